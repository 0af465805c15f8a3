/**
 * One chunk of a tenant's CRM data: 5 accounts (some forming parent/child families up to
 * three levels deep), 5 opportunities on them, the account matches with partner
 * organizations together with the partners' matched accounts, and 8 attribution events.
 * Account counters (open/closed/won counts, pipeline, ACV, recent dates) are computed from
 * the chunk's own opportunities, and events are placed around those opportunities: most
 * within the attribution window before one (on an account of the same family), some
 * after it or too early. Each chunk has its own generator keyed by (seed, tenant, chunk),
 * so chunks are independent of each other and of the scale.
 *
 * The connected matches of a chunk always add up to the same number (every match
 * pattern of the tenant has the same sum), which makes the report row counts exact:
 * chunksPerScale * scale * patternSum.
 *
 * Lines are built by hand (json-lines.ts explains the rules): text that can hold a quote
 * or a backslash is escaped once, where it is made (`nameJson` of an account), and the
 * rest comes from the word lists.
 *
 * Speed (millions of rows): writing a line costs per piece it is concatenated from (V8
 * keeps a concatenation as a tree of its pieces, copied together when the line is
 * encoded) about as much as for 25 of its bytes, so what does not change from row to
 * row is concatenated once, in advance: `,"key":value` fragments of the word-list
 * entries (a place's city, state and country, an industry, an owner object) and of the
 * few values a field takes. Rows are written straight from local values, without an
 * intermediate record object.
 */
import type { CompanyNames } from './company-names.js';
import { ACCOUNT_SHARE_NAMES, type CustomFieldDef, type OrgDef, type TenantDef } from './cast.js';
import { DAY, HISTORY_DAYS, REFERENCE_DATE } from './dates.js';
import { jsonString, type JsonLines } from './json-lines.js';
import { fill, type Rep } from './people.js';
import { Rng } from './random.js';
import {
  ACCOUNT_DIVISIONS, EDUCATION_INDUSTRY, FRENCH_STREETS, GERMAN_STREETS, INDUSTRIES, OPEN_STAGES, OPPORTUNITY_TYPES, PLACES,
  STREET_NAMES, STREET_SUFFIXES, SUBSIDIARY_QUALIFIERS,
} from './vocabulary.js';

export const ACCOUNTS_PER_CHUNK = 5;
export const OPPORTUNITIES_PER_CHUNK = 5;
export const EVENTS_PER_CHUNK = 8;

/** Parent slot of each account slot of a chunk (-1: a top parent). Parents come before children: no cycles. */
const FAMILY_PATTERNS: ReadonlyArray<readonly number[]> = [
  [-1, -1, -1, -1, -1],
  [-1, 0, 0, -1, -1],
  [-1, 0, 1, -1, 3],
  [-1, 0, 1, 1, -1],
  [-1, -1, 1, 2, 1],
];
const FAMILY_WEIGHTS = [40, 20, 20, 10, 10];

/** (type, subtype, weight) of generated events. */
const EVENT_KINDS: ReadonlyArray<readonly [string, string, number]> = [
  ['ACTION_LIST', 'CREATED', 24], ['ACTION_LIST', 'DOWNLOADED', 18], ['WORKFLOW', 'INITIATED', 18], ['WORKFLOW', 'INTRO_COMPLETED', 14],
  ['CRM_UPDATE', 'FIELD_CHANGED', 10], ['CRM_UPDATE', 'NOTE_ADDED', 6], ['CO_SELL', 'MEETING_BOOKED', 6], ['CO_SELL', 'DEAL_REGISTERED', 4],
];
const EVENT_KIND_WEIGHTS = EVENT_KINDS.map((k) => k[2]);
const EVENT_KIND_FRAGMENTS = EVENT_KINDS.map(([type, subtype]) => flat(`,"eventTypeCode":"${type}","eventSubtypeCode":"${subtype}"`));
const SALESFORCE = ',"eventSource":"Salesforce"';
const HUBSPOT = ',"eventSource":"HubSpot"';
const PARTNER_REPORTS = ',"eventSource":"Partner Reports"';
const EVENT_MODE_WEIGHTS = [60, 15, 15, 10];
const LIST_NAMES = ['Q4 expansion targets', 'Shared customers', 'EMEA whitespace', 'Renewals at risk', 'Net-new logos', 'Top 50 overlaps', 'Healthcare overlap'];
const FIELD_NAMES = ['Partner of Record', 'Partner Influence', 'Co-Sell Stage', 'Referral Source'];
/** Free-text notes, already as JSON strings: quotes, a formula for the CSV guard, non-ASCII. */
const NOTES_JSON = [
  'Partner confirmed budget for next quarter.',
  'Follow up after the joint webinar.',
  'Champion moved to a new role; re-map the buying group.',
  'Asked for 10% discount_code "PARTNER_10".',
  '=HYPERLINK("https://example.com","open")',
  'Zoë from the partner team will join the call.',
].map(jsonString);
const OPPORTUNITY_TYPE_WEIGHTS = [50, 30, 20];

export interface ChunkOutput {
  accounts: JsonLines;
  opportunities: JsonLines;
  account_matches: JsonLines;
  events: JsonLines;
}

export interface TenantRun {
  tenant: TenantDef;
  /** Position of the tenant in the cast (part of every chunk generator's key). */
  tenantIndex: number;
  seed: number;
  names: CompanyNames;
  /** Company-name number of the tenant's first account. */
  nameBase: number;
  /** Company-name number of the first extra partner account of the tenant's chunks. */
  extraNameBase: number;
}

interface AccountStub {
  id: string;
  name: string;
  /** The name escaped for a JSON string, without the quotes. */
  nameJson: string;
  parent: number;
  root: number;
  /** Index into INDUSTRIES. */
  industry: number;
  website: string | undefined;
  /** Index into PLACES. */
  place: number;
  rep: Rep;
  special: boolean;
  openCount: number;
  closedCount: number;
  wonCount: number;
  openPipeline: number;
  wonAmount: number;
  recentOpen: number | undefined;
  recentClosed: number | undefined;
  /** Connected partners matched to the account. */
  partners: OrgDef[];
}

interface OpportunityStub {
  id: string;
  slot: number;
  created: number;
}

/** Owner and user objects are shared by many rows: each `,"key":{...}` fragment is encoded once. */
class ObjectFragments {
  private readonly encoded = new WeakMap<object, string>();
  constructor(private readonly prefix: string) {}
  get(o: object): string {
    let e = this.encoded.get(o);
    if (e === undefined) {
      e = flat(this.prefix + JSON.stringify(o));
      this.encoded.set(o, e);
    }
    return e;
  }
}
const OWNER = new ObjectFragments(',"owner":');
const CUSTOM_OWNER = new ObjectFragments(',"customOwner":');
const USER = new ObjectFragments(',"user":');

/**
 * `s` as one flat string. A string concatenated from pieces stays a tree of them (V8 cons
 * strings) until it is read; writing a line copies every piece of every fragment it holds,
 * so a fragment used in many lines is worth making one piece once.
 */
function flat(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** `,"key":"value"` for each value of a word list. */
const fragments = (key: string, values: readonly string[]) => values.map((v) => flat(`,"${key}":"${v}"`));
// Places and industries are drawn as indexes into PLACES and INDUSTRIES; these fragments are indexed alike.
/** `,"city":…,"state":…,"country":…` of each place (no state where addresses have none). */
const PLACE_LOCATION = PLACES.map((p) => flat(`,"city":"${p.city}"${p.state === undefined ? '' : `,"state":"${p.state}"`},"country":"${p.country}"`));
const PLACE_TERRITORY = PLACES.map((p) => flat(`,"territory":"${p.territory}"`));
const INDUSTRY_NAME = fragments('industry', INDUSTRIES.map((i) => i.name));
const INDUSTRY_SIC = fragments('sicCode', INDUSTRIES.map((i) => i.sic));
const INDUSTRY_NAICS = fragments('naicsCode', INDUSTRIES.map((i) => i.naics));
const DIVISIONS = fragments('divisions', ACCOUNT_DIVISIONS);
const CUSTOMER_TYPE = ',"accountType":"Customer"';
const PROSPECT_TYPE = ',"accountType":"Prospect"';
const PARTNER_PROSPECT_TYPES = fragments('accountType', ['Prospect', 'Prospect', 'Partner Prospect']);
/** `,"stageName":…` and the probability of each open stage, and of the closed ones. */
const OPEN_STAGE_FRAGMENTS = OPEN_STAGES.map(([name, p]) => [flat(`,"stageName":"${name}"`), p] as const);
const CLOSED_WON = [',"stageName":"Closed Won"', 100] as const;
const CLOSED_LOST = [',"stageName":"Closed Lost"', 0] as const;
const OPPORTUNITY_TYPE = fragments('opportunityType', OPPORTUNITY_TYPES);
/** What an opportunity's type adds to its name (`<account> - <product> Renewal`). */
const OPPORTUNITY_NAME_SUFFIX = OPPORTUNITY_TYPES.map((t) => (t === 'New Business' ? '' : flat(` ${t}`)));

/** The account fields a partner's sheet carries, as flags (looked up once per partner, not per field and row). */
type SheetFlags = Record<(typeof ACCOUNT_SHARE_NAMES)[number], boolean>;
const sheetFlags = new WeakMap<OrgDef, SheetFlags>();
function flagsOf(partner: OrgDef): SheetFlags {
  let flags = sheetFlags.get(partner);
  if (flags === undefined) {
    const sheet = partner.sheet;
    flags = Object.fromEntries(ACCOUNT_SHARE_NAMES.map((f) => [f, sheet === undefined || sheet.has(f)])) as SheetFlags;
    sheetFlags.set(partner, flags);
  }
  return flags;
}

const pad = (n: number) => String(n).padStart(7, '0');

/** Log-uniform number in [min, max). */
function logUniform(rng: Rng, min: number, max: number): number {
  return min * Math.exp(rng.float() * Math.log(max / min));
}

function street(rng: Rng, place: number): string {
  switch (PLACES[place]!.street) {
    case 'de':
      return `${rng.pick(GERMAN_STREETS)} ${rng.between(1, 180)}`;
    case 'fr':
      return `${rng.between(1, 120)} ${rng.pick(FRENCH_STREETS)}`;
    default: {
      const s = `${rng.between(1, 9999)} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_SUFFIXES)}`;
      return rng.chance(0.2) ? `${s}, Suite ${rng.between(1, 30) * 100}` : s;
    }
  }
}

function taxId(rng: Rng, country: string): string {
  return country === 'US' ? `${rng.digits(2)}-${rng.digits(7)}` : `${country}${rng.digits(9)}`;
}

/**
 * `,"custom":{...}` with values for the custom fields `defs`, each present with
 * probability `presence`. String values come from the definitions' word lists.
 */
function customJson(rng: Rng, defs: readonly CustomFieldDef[], presence: number, override?: readonly [string, string]): string {
  let out = ',"custom":{';
  let sep = '"';
  for (const def of defs) {
    if (!rng.chance(presence)) continue;
    out += sep + def.key + '":';
    sep = ',"';
    if (override && override[0] === def.key) {
      out += `"${override[1]}"`;
      continue;
    }
    const min = def.min ?? 0;
    const max = def.max ?? 100;
    switch (def.type) {
      case 'string':
        out += `"${def.values ? rng.pick(def.values) : `${def.key}-${rng.digits(4)}`}"`;
        break;
      case 'number':
        out += rng.between(min, max);
        break;
      case 'currency':
        out += rng.between(min * 100, max * 100) / 100;
        break;
      case 'date':
        out += REFERENCE_DATE + rng.between(min, max) * DAY;
        break;
      case 'boolean':
        out += rng.chance(0.4);
    }
  }
  return out + '}';
}

/**
 * A partner organization's account, optionally the partner's record of the tenant account
 * `src`, with the fields of the partner's sheet (all of them for a full CRM sync).
 */
function writePartnerAccount(rng: Rng, w: JsonLines, partner: OrgDef, id: string, nameJson: string, src: AccountStub | undefined, parent: string | undefined): void {
  const has = flagsOf(partner);
  let place = rng.int(PLACES.length);
  let lower = false;
  if (src && rng.chance(0.35)) {
    // Same location as the tenant's account, sometimes written differently (mapByLocations compares case-insensitively).
    place = src.place;
    lower = rng.chance(0.25);
  }
  const { city, state, country, zip, phone } = PLACES[place]!;
  const industry = src && rng.chance(0.7) ? src.industry : rng.int(INDUSTRIES.length);
  const employees = Math.round(logUniform(rng, 10, 120_000));
  const openCount = rng.between(0, 5);
  const closedCount = rng.between(0, 8);
  const wonCount = rng.between(0, closedCount);
  const isCustomer = wonCount > 0;
  let line = `{"org":"${partner.publicId}","crmAccountId":"${id}","name":"${nameJson}"`;
  if (has.accountType) line += isCustomer ? CUSTOMER_TYPE : rng.pick(PARTNER_PROSPECT_TYPES);
  if (parent !== undefined) line += `,"parentCrmAccountId":"${parent}"`;
  if (has.street && rng.chance(0.85)) line += `,"street":"${street(rng, place)}"`;
  if (has.city && has.state && has.country && !lower) line += PLACE_LOCATION[place]!;
  else {
    if (has.city) line += `,"city":"${lower ? city.toLowerCase() : city}"`;
    if (has.state && state !== undefined) line += `,"state":"${lower ? state.toLowerCase() : state}"`;
    if (has.country) line += `,"country":"${lower ? country.toLowerCase() : country}"`;
  }
  if (has.zipCode && rng.chance(0.85)) line += `,"zipCode":"${fill(rng, zip)}"`;
  if (has.website) {
    const website = src?.website ?? (rng.chance(0.6) ? `www.${id.toLowerCase()}.example` : undefined);
    if (website !== undefined) line += `,"website":"${website}"`;
  }
  if (has.industry) line += INDUSTRY_NAME[industry]!;
  if (has.territory) line += PLACE_TERRITORY[place]!;
  if (has.divisions && rng.chance(0.7)) line += rng.pick(DIVISIONS);
  if (has.numberOfEmployees) line += `,"numberOfEmployees":${employees}`;
  if (has.annualRevenue && rng.chance(0.85)) line += `,"annualRevenue":${Math.round((employees * rng.between(80, 400)) / 10) * 10_000}`;
  if (has.accountAcv) line += `,"accountAcv":${isCustomer ? rng.between(50, 5000) * 100 : 0}`;
  if (has.openPipelineAmount) line += `,"openPipelineAmount":${openCount ? rng.between(50, 9000) * 100 : 0}`;
  if (has.openOppCount) line += `,"openOppCount":${openCount}`;
  if (has.closedOppCount) line += `,"closedOppCount":${closedCount}`;
  if (has.closedWonOppCount) line += `,"closedWonOppCount":${wonCount}`;
  if (has.isCustomer) line += isCustomer ? ',"isCustomer":true' : ',"isCustomer":false';
  if (has.sicCode && rng.chance(0.8)) line += INDUSTRY_SIC[industry]!;
  if (has.naicsCode && rng.chance(0.8)) line += INDUSTRY_NAICS[industry]!;
  if (has.ncesId && industry === EDUCATION_INDUSTRY) line += `,"ncesId":"${rng.digits(12)}"`;
  if (has.dunsNumber && rng.chance(0.7)) line += `,"dunsNumber":"${rng.digits(9)}"`;
  if (has.taxId && rng.chance(0.5)) line += `,"taxId":"${taxId(rng, country)}"`;
  if (has.phoneNumber && rng.chance(0.9)) line += `,"phoneNumber":"${fill(rng, phone)}"`;
  if (has.owner && rng.chance(0.95)) line += OWNER.get(rng.pick(partner.reps).account);
  if (has.customOwner && rng.chance(0.5)) line += CUSTOM_OWNER.get(rng.pick(partner.csms));
  if (has.recentOpenOppDate && openCount) line += `,"recentOpenOppDate":${REFERENCE_DATE - rng.int(120 * DAY)}`;
  if (has.recentClosedOppDate && closedCount) line += `,"recentClosedOppDate":${REFERENCE_DATE - rng.int(HISTORY_DAYS * DAY)}`;
  w.line(line + customJson(rng, partner.accountCustom, 0.8) + '}');
}

/** How a partner names a company it shares with the tenant: mostly the same, sometimes in other letter case. */
function partnerNameJson(rng: Rng, src: AccountStub): string {
  if (src.special) return src.nameJson;
  const r = rng.float();
  return r < 0.82 ? src.nameJson : r < 0.91 ? src.nameJson.toUpperCase() : src.nameJson.toLowerCase();
}

/** Weighted choice of `k` different connected partners. */
function choosePartners(rng: Rng, tenant: TenantDef, k: number): OrgDef[] {
  if (k === 0) return [];
  const weights = [...tenant.connectedWeights];
  const chosen: OrgDef[] = [];
  for (let i = 0; i < k; i++) {
    const j = rng.weighted(weights);
    chosen.push(tenant.connected[j]!);
    weights[j] = 0;
  }
  return chosen;
}

export function writeChunk(run: TenantRun, c: number, out: ChunkOutput): void {
  const { tenant } = run;
  const org = tenant.org;
  const orgId = org.publicId;
  const rng = new Rng(run.seed, 0x6368756e, run.tenantIndex, c);
  const first = c * ACCOUNTS_PER_CHUNK;

  // Accounts: names, families, places, owners.
  const parents = FAMILY_PATTERNS[rng.weighted(FAMILY_WEIGHTS)]!;
  const qualifierBase = rng.int(SUBSIDIARY_QUALIFIERS.length);
  const stubs: AccountStub[] = [];
  for (let s = 0; s < ACCOUNTS_PER_CHUNK; s++) {
    const n = first + s;
    const parent = parents[s]!;
    // Names that differ only in letter case (and their subsidiaries) are never re-cased by partners: see partnerNameJson.
    const special = parent >= 0 ? stubs[parent]!.special : n < tenant.specialNames.length;
    let name: string;
    let industry: number;
    let website: string | undefined;
    if (parent >= 0) {
      const p = stubs[parent]!;
      name = `${p.name} - ${SUBSIDIARY_QUALIFIERS[(qualifierBase + s) % SUBSIDIARY_QUALIFIERS.length]!}`;
      industry = p.industry;
      website = rng.chance(0.5) ? p.website : undefined;
    } else if (special) {
      name = tenant.specialNames[n]!;
      industry = rng.int(INDUSTRIES.length);
      website = `www.${name.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toLowerCase()}.example`;
    } else {
      const company = run.names.get(run.nameBase + n);
      name = company.name;
      industry = company.industryIndex;
      website = rng.chance(0.92) ? company.website : undefined;
    }
    stubs.push({
      id: `${org.code}-A${pad(n + 1)}`, name, nameJson: special ? jsonString(name).slice(1, -1) : name, parent,
      root: parent >= 0 ? stubs[parent]!.root : s, industry, website, place: rng.int(PLACES.length), rep: rng.pick(org.reps), special,
      openCount: 0, closedCount: 0, wonCount: 0, openPipeline: 0, wonAmount: 0, recentOpen: undefined, recentClosed: undefined, partners: [],
    });
  }

  // Opportunities, and the account counters that follow from them.
  const opportunities: OpportunityStub[] = [];
  for (let j = 0; j < OPPORTUNITIES_PER_CHUNK; j++) {
    const slot = rng.int(ACCOUNTS_PER_CHUNK);
    const a = stubs[slot]!;
    const id = `${org.code}-O${pad(c * OPPORTUNITIES_PER_CHUNK + j + 1)}`;
    const created = rng.chance(0.4)
      ? REFERENCE_DATE - rng.int(85 * DAY)
      : REFERENCE_DATE - 85 * DAY - rng.int((HISTORY_DAYS - 85) * DAY);
    const age = (REFERENCE_DATE - created) / DAY;
    const isClosed = rng.chance(age > 180 ? 0.85 : age > 60 ? 0.5 : 0.15);
    const isWon = isClosed && rng.chance(0.45);
    const [stage, probability] = isClosed ? (isWon ? CLOSED_WON : CLOSED_LOST) : rng.pick(OPEN_STAGE_FRAGMENTS);
    const amount = rng.chance(0.03) ? undefined : Math.round(logUniform(rng, 50, 5000)) * 100;
    const closeDate = isClosed
      ? created + Math.floor((REFERENCE_DATE - created) * (0.2 + 0.8 * rng.float()))
      : REFERENCE_DATE + rng.between(-20, 180) * DAY;
    const lastModifiedDate = isClosed ? Math.min(REFERENCE_DATE, closeDate + rng.int(3 * DAY)) : created + rng.int(REFERENCE_DATE - created + 1);
    const type = rng.weighted(OPPORTUNITY_TYPE_WEIGHTS);
    const product = rng.pick(tenant.products);
    const owner = rng.chance(0.7) ? a.rep : rng.pick(org.reps);
    let line =
      `{"org":"${orgId}","crmOpportunityId":"${id}","crmAccountId":"${a.id}","name":"${a.nameJson} - ${product}${OPPORTUNITY_NAME_SUFFIX[type]}","createdDate":${created}`;
    if (amount !== undefined) line += `,"amount":${amount}`;
    line += `${stage},"closeDate":${closeDate}${isClosed ? (isWon ? ',"isWon":true,"isClosed":true' : ',"isWon":false,"isClosed":true') : ',"isWon":false,"isClosed":false'}${OPPORTUNITY_TYPE[type]}`;
    if (rng.chance(0.97)) line += OWNER.get(owner.opportunity);
    line += `,"lastModifiedDate":${lastModifiedDate},"probability":${probability}`;
    if (amount !== undefined) line += `,"expectedRevenue":${(amount * probability) / 100}`;
    out.opportunities.line(line + customJson(rng, org.opportunityCustom, 0.85) + '}');
    opportunities.push({ id, slot, created });
    if (isClosed) {
      a.closedCount++;
      if (isWon) {
        a.wonCount++;
        a.wonAmount += amount ?? 0;
      }
      if (a.recentClosed === undefined || closeDate > a.recentClosed) a.recentClosed = closeDate;
    } else {
      a.openCount++;
      a.openPipeline += amount ?? 0;
      if (a.recentOpen === undefined || created > a.recentOpen) a.recentOpen = created;
    }
  }

  for (let s = 0; s < ACCOUNTS_PER_CHUNK; s++) {
    const a = stubs[s]!;
    const place = a.place;
    const { zip, phone, country } = PLACES[place]!;
    const isCustomer = a.wonCount > 0 || rng.chance(0.08);
    const employees = rng.chance(0.95) ? Math.round(logUniform(rng, 5, 250_000)) : undefined;
    // One formula-like value for the CSV injection guard to neutralize.
    const formula = a.special && a.parent < 0 && a.name.startsWith('Back') ? (['tier', '=SUM(A1:A9)'] as const) : undefined;
    const custom = customJson(rng, org.accountCustom, 0.85, formula);
    let line = `{"org":"${orgId}","crmAccountId":"${a.id}","name":"${a.nameJson}"`;
    if (rng.chance(0.95)) line += isCustomer ? CUSTOMER_TYPE : PROSPECT_TYPE;
    if (a.parent >= 0) line += `,"parentCrmAccountId":"${stubs[a.parent]!.id}"`;
    if (rng.chance(0.9)) line += `,"street":"${street(rng, place)}"`;
    line += PLACE_LOCATION[place]!;
    if (rng.chance(0.9)) line += `,"zipCode":"${fill(rng, zip)}"`;
    if (a.website !== undefined) line += `,"website":"${a.website}"`;
    line += INDUSTRY_NAME[a.industry]!;
    if (rng.chance(0.95)) line += PLACE_TERRITORY[place]!;
    line += rng.pick(DIVISIONS);
    if (employees !== undefined) {
      line += `,"numberOfEmployees":${employees}`;
      if (rng.chance(0.9)) line += `,"annualRevenue":${Math.round((employees * rng.between(80, 400)) / 10) * 10_000}`;
    }
    const acv = a.wonAmount > 0 ? a.wonAmount : isCustomer ? rng.between(100, 3000) * 100 : rng.chance(0.5) ? 0 : undefined;
    if (acv !== undefined) line += `,"accountAcv":${acv}`;
    line +=
      `,"openPipelineAmount":${a.openPipeline},"openOppCount":${a.openCount},"closedOppCount":${a.closedCount},"closedWonOppCount":${a.wonCount}` +
      (isCustomer ? ',"isCustomer":true' : ',"isCustomer":false');
    if (rng.chance(0.85)) line += INDUSTRY_SIC[a.industry]!;
    if (rng.chance(0.85)) line += INDUSTRY_NAICS[a.industry]!;
    if (a.industry === EDUCATION_INDUSTRY) line += `,"ncesId":"${rng.digits(12)}"`;
    if (rng.chance(0.8)) line += `,"dunsNumber":"${rng.digits(9)}"`;
    if (rng.chance(0.7)) line += `,"taxId":"${taxId(rng, country)}"`;
    if (rng.chance(0.95)) line += `,"phoneNumber":"${fill(rng, phone)}"`;
    if (rng.chance(0.97)) line += OWNER.get(a.rep.account);
    if (rng.chance(0.6)) line += CUSTOM_OWNER.get(rng.pick(org.csms));
    if (a.recentOpen !== undefined) line += `,"recentOpenOppDate":${a.recentOpen}`;
    if (a.recentClosed !== undefined) line += `,"recentClosedOppDate":${a.recentClosed}`;
    if (rng.chance(0.97)) line += custom;
    out.accounts.line(line + '}');
  }

  // Matches with partners and the partners' own records of those accounts.
  const counts = rng.shuffle([...tenant.matchPatterns[rng.int(tenant.matchPatterns.length)]!]);
  const mirrors: Array<readonly [OrgDef, string]> = [];
  const match = (a: AccountStub, n: number, partner: OrgDef) => {
    const partnerId = `${partner.code}-${org.code}${pad(n + 1)}`;
    const firstMatchDate = rng.chance(0.2) ? REFERENCE_DATE - rng.int(90 * DAY) : REFERENCE_DATE - 90 * DAY - rng.int((HISTORY_DAYS - 120) * DAY);
    out.account_matches.line(
      `{"org":"${orgId}","crmAccountId":"${a.id}","partner":"${partner.publicId}","partnerCrmAccountId":"${partnerId}","firstMatchDate":${firstMatchDate}}`,
    );
    writePartnerAccount(rng, out.accounts, partner, partnerId, partnerNameJson(rng, a), a, undefined);
    mirrors.push([partner, partnerId]);
  };
  for (let s = 0; s < ACCOUNTS_PER_CHUNK; s++) {
    const a = stubs[s]!;
    a.partners = choosePartners(rng, tenant, counts[s]!);
    for (const partner of a.partners) match(a, first + s, partner);
  }
  if (rng.chance(tenant.inactiveMatchRate)) {
    const s = rng.int(ACCOUNTS_PER_CHUNK);
    match(stubs[s]!, first + s, rng.pick(tenant.inactive));
  }
  if (rng.chance(tenant.extraAccountRate)) {
    // An account only the partner has; now and then a subsidiary of one of its matched accounts.
    const partner = rng.pick(tenant.extraPartners);
    const parent = mirrors.find(([p]) => p === partner)?.[1];
    const id = `${partner.code}-X${org.code}${pad(c + 1)}`;
    writePartnerAccount(rng, out.accounts, partner, id, run.names.get(run.extraNameBase + c).name, undefined, parent && rng.chance(0.5) ? parent : undefined);
  }

  // Attribution events around the chunk's opportunities; activity clusters around recent
  // opportunities, so "last 90 days" windows have data.
  const window = tenant.attributionWindowDays;
  const recent = opportunities.filter((o) => o.created >= REFERENCE_DATE - 85 * DAY);
  const families: number[][] = [];
  for (let s = 0; s < ACCOUNTS_PER_CHUNK; s++) {
    const root = stubs[s]!.root;
    if (root === s) families[s] = [s];
    else families[root]!.push(s);
  }
  for (let s = 0; s < ACCOUNTS_PER_CHUNK; s++) families[s] = families[stubs[s]!.root]!;
  for (let j = 0; j < EVENTS_PER_CHUNK; j++) {
    const eventId = `${org.code}-E${pad(c * EVENTS_PER_CHUNK + j + 1)}`;
    const opp = recent.length > 0 && rng.chance(0.5) ? rng.pick(recent) : opportunities[rng.int(opportunities.length)]!;
    let slot = rng.pick(families[opp.slot]!);
    let eventDate: number;
    let linked = false;
    switch (rng.weighted(EVENT_MODE_WEIGHTS)) {
      case 0: // within the attribution window before the opportunity was created, mostly shortly before
        eventDate = opp.created - DAY - Math.floor((window - 1) * DAY * rng.float() ** 2);
        linked = true;
        break;
      case 1: // after the opportunity was created (does not count for it)
        eventDate = opp.created + DAY + rng.int(60 * DAY);
        if (eventDate > REFERENCE_DATE) eventDate = opp.created - (window + 10) * DAY - rng.int(300 * DAY);
        break;
      case 2: // too long before it
        eventDate = opp.created - (window + 1) * DAY - rng.int(400 * DAY);
        break;
      default: // lately, on any account of the chunk
        slot = rng.int(ACCOUNTS_PER_CHUNK);
        eventDate = REFERENCE_DATE - rng.int(120 * DAY);
    }
    eventDate = Math.max(eventDate, REFERENCE_DATE - (HISTORY_DAYS + 60) * DAY);
    const a = stubs[slot]!;
    const r = rng.float();
    const partner = r < 0.04 ? rng.pick(tenant.inactive) : a.partners.length > 0 && r < 0.84 ? rng.pick(a.partners) : tenant.connected[rng.weighted(tenant.connectedWeights)]!;
    const kind = rng.weighted(EVENT_KIND_WEIGHTS);
    const [type, subtype] = EVENT_KINDS[kind]!;
    const crm = type === 'CRM_UPDATE';
    const source = crm ? (rng.chance(0.6) ? 'Salesforce' : 'HubSpot') : 'Partner Reports';
    const user = crm ? a.rep.person : rng.pick(org.actors);
    const list = rng.pick(LIST_NAMES);
    // Name and description as JSON string bodies: the quotes and line break are escaped here.
    let eventName: string;
    let eventDescription: string;
    switch (subtype) {
      case 'CREATED':
        eventName = `Action list \\"${list}\\" created`;
        eventDescription = `${user.name} created an action list of ${rng.between(5, 400)} accounts overlapping with ${partner.name}.`;
        break;
      case 'DOWNLOADED':
        eventName = `Action list \\"${list}\\" downloaded`;
        eventDescription = `${user.name} downloaded \\"${list}\\" (${rng.between(5, 400)} rows) as CSV.`;
        break;
      case 'INITIATED':
        eventName = `Intro request: ${a.nameJson}`;
        eventDescription = `${user.name} asked ${partner.name} for an introduction to ${a.nameJson}.`;
        break;
      case 'INTRO_COMPLETED':
        eventName = `Intro completed: ${a.nameJson}`;
        eventDescription = `${partner.name} introduced ${user.name} to the buying team at ${a.nameJson}.`;
        break;
      case 'FIELD_CHANGED':
        eventName = `${rng.pick(FIELD_NAMES)} updated`;
        eventDescription = `Partner of record on ${a.nameJson} set to ${partner.name}.`;
        break;
      case 'NOTE_ADDED':
        eventName = 'Partner note added';
        eventDescription = `Call notes: \\"${partner.name} confirmed the evaluation\\"\\nNext step: joint demo with ${a.nameJson}.`;
        break;
      case 'MEETING_BOOKED':
        eventName = `Co-sell meeting booked with ${partner.name}`;
        eventDescription = `Joint discovery call with ${a.nameJson} and ${partner.name}.`;
        break;
      default:
        eventName = `Deal registration from ${partner.name}`;
        eventDescription = `${partner.name} registered a deal on ${a.nameJson}.`;
    }
    let line =
      `{"org":"${orgId}","eventId":"${eventId}","eventDate":${eventDate}${EVENT_KIND_FRAGMENTS[kind]}` +
      `,"crmAccountId":"${a.id}","partner":"${partner.publicId}"${source === 'Salesforce' ? SALESFORCE : source === 'HubSpot' ? HUBSPOT : PARTNER_REPORTS},"eventName":"${eventName}"`;
    if (rng.chance(0.95)) line += `,"eventDescription":"${eventDescription}"`;
    if (rng.chance(0.97)) line += USER.get(user);
    if (!rng.chance(0.1)) {
      line +=
        source === 'Salesforce'
          ? `,"sourceLink":"https://${tenant.crmHost}/lightning/r/Account/${a.id}/view"`
          : source === 'HubSpot'
            ? `,"sourceLink":"https://app.hubspot.example/contacts/${rng.digits(7)}/record/0-2/${rng.digits(10)}"`
            : `,"sourceLink":"https://app.partner-reports.example/${type === 'ACTION_LIST' ? 'action-lists' : type === 'WORKFLOW' ? 'workflows' : 'co-sell'}/${eventId}"`;
    }
    if (rng.chance(0.9)) {
      // The first field opens the object, the others follow a comma; an empty object is `{}`.
      let custom = ',"custom":{';
      let sep = '"';
      if (rng.chance(0.5)) {
        custom += `${sep}campaignId":"CMP-${2025 + rng.int(2)}-${rng.digits(3)}"`;
        sep = ',"';
      }
      if (rng.chance(0.25)) {
        custom += `${sep}leadId":"00Q${rng.digits(12)}"`;
        sep = ',"';
      }
      if (rng.chance(0.35)) {
        custom += `${sep}contactId":"003${rng.digits(12)}"`;
        sep = ',"';
      }
      if (linked && rng.chance(0.5)) {
        custom += `${sep}opportunityId":"${opp.id}"`;
        sep = ',"';
      }
      if (rng.chance(0.3)) {
        custom += `${sep}detail1":"${type === 'ACTION_LIST' ? list : rng.pick(FIELD_NAMES)}"`;
        sep = ',"';
      }
      if (rng.chance(0.2)) {
        custom += `${sep}detail2":"${rng.between(1, 250)} rows"`;
        sep = ',"';
      }
      if (rng.chance(0.15)) custom += `${sep}note":${rng.pick(NOTES_JSON)}`;
      line += custom + '}';
    }
    out.events.line(line + '}');
  }
}

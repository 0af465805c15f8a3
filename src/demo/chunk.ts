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
 */
import type { CompanyNames } from './company-names.js';
import type { CustomFieldDef, OrgDef, TenantDef } from './cast.js';
import { DAY, HISTORY_DAYS, REFERENCE_DATE } from './dates.js';
import { jsonString, type JsonLines } from './json-lines.js';
import { fill, type Rep } from './people.js';
import { Rng } from './random.js';
import {
  ACCOUNT_DIVISIONS, EDUCATION_INDUSTRY, FRENCH_STREETS, GERMAN_STREETS, INDUSTRIES, OPEN_STAGES, OPPORTUNITY_TYPES, PLACES,
  STREET_NAMES, STREET_SUFFIXES, SUBSIDIARY_QUALIFIERS, type Industry, type Place,
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
const PARTNER_PROSPECT_TYPES = ['Prospect', 'Prospect', 'Partner Prospect'];
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
  industry: Industry;
  website: string | undefined;
  place: Place;
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

/** One line of accounts.ndjson; `undefined` fields are left out. */
interface AccountRow {
  org: string;
  crmAccountId: string;
  /** The name as an escaped JSON string body (no quotes). */
  nameJson: string;
  accountType: string | undefined;
  parentCrmAccountId: string | undefined;
  street: string | undefined;
  city: string | undefined;
  state: string | undefined;
  zipCode: string | undefined;
  country: string | undefined;
  website: string | undefined;
  industry: string | undefined;
  territory: string | undefined;
  divisions: string | undefined;
  numberOfEmployees: number | undefined;
  annualRevenue: number | undefined;
  accountAcv: number | undefined;
  openPipelineAmount: number | undefined;
  openOppCount: number | undefined;
  closedOppCount: number | undefined;
  closedWonOppCount: number | undefined;
  isCustomer: boolean | undefined;
  sicCode: string | undefined;
  naicsCode: string | undefined;
  ncesId: string | undefined;
  dunsNumber: string | undefined;
  taxId: string | undefined;
  phoneNumber: string | undefined;
  owner: object | undefined;
  customOwner: object | undefined;
  recentOpenOppDate: number | undefined;
  recentClosedOppDate: number | undefined;
  /** `,"custom":{...}` or ''. */
  custom: string;
}

/** Owner and user objects are shared by many rows: each is encoded once. */
const encoded = new WeakMap<object, string>();
function enc(o: object): string {
  let e = encoded.get(o);
  if (e === undefined) {
    e = JSON.stringify(o);
    encoded.set(o, e);
  }
  return e;
}

// Pieces of hand-built lines. `prefix` is `,"key":` (and the opening quote for `word`);
// an absent value leaves the field out.
/** A string from the word lists or built from them: no escaping needed. */
const word = (prefix: string, v: string | undefined) => (v === undefined ? '' : prefix + v + '"');
/** A number, a boolean or encoded JSON. */
const raw = (prefix: string, v: number | boolean | string | undefined) => (v === undefined ? '' : prefix + v);
const object = (prefix: string, v: object | undefined) => (v === undefined ? '' : prefix + enc(v));

function writeAccount(w: JsonLines, a: AccountRow): void {
  w.line(
    `{"org":"${a.org}","crmAccountId":"${a.crmAccountId}","name":"${a.nameJson}"` +
      word(',"accountType":"', a.accountType) +
      word(',"parentCrmAccountId":"', a.parentCrmAccountId) +
      word(',"street":"', a.street) +
      word(',"city":"', a.city) +
      word(',"state":"', a.state) +
      word(',"zipCode":"', a.zipCode) +
      word(',"country":"', a.country) +
      word(',"website":"', a.website) +
      word(',"industry":"', a.industry) +
      word(',"territory":"', a.territory) +
      word(',"divisions":"', a.divisions) +
      raw(',"numberOfEmployees":', a.numberOfEmployees) +
      raw(',"annualRevenue":', a.annualRevenue) +
      raw(',"accountAcv":', a.accountAcv) +
      raw(',"openPipelineAmount":', a.openPipelineAmount) +
      raw(',"openOppCount":', a.openOppCount) +
      raw(',"closedOppCount":', a.closedOppCount) +
      raw(',"closedWonOppCount":', a.closedWonOppCount) +
      raw(',"isCustomer":', a.isCustomer) +
      word(',"sicCode":"', a.sicCode) +
      word(',"naicsCode":"', a.naicsCode) +
      word(',"ncesId":"', a.ncesId) +
      word(',"dunsNumber":"', a.dunsNumber) +
      word(',"taxId":"', a.taxId) +
      word(',"phoneNumber":"', a.phoneNumber) +
      object(',"owner":', a.owner) +
      object(',"customOwner":', a.customOwner) +
      raw(',"recentOpenOppDate":', a.recentOpenOppDate) +
      raw(',"recentClosedOppDate":', a.recentClosedOppDate) +
      a.custom +
      '}',
  );
}

const pad = (n: number) => String(n).padStart(7, '0');

/** Log-uniform number in [min, max). */
function logUniform(rng: Rng, min: number, max: number): number {
  return min * Math.exp(rng.float() * Math.log(max / min));
}

function street(rng: Rng, place: Place): string {
  switch (place.street) {
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
  const sheet = partner.sheet;
  const has = (field: string) => sheet === undefined || sheet.has(field);
  let place = rng.pick(PLACES);
  let city: string = place.city;
  let state: string | undefined = place.state;
  let country: string = place.country;
  if (src && rng.chance(0.35)) {
    // Same location as the tenant's account, sometimes written differently (mapByLocations compares case-insensitively).
    place = src.place;
    const lower = rng.chance(0.25);
    city = lower ? place.city.toLowerCase() : place.city;
    state = lower ? place.state?.toLowerCase() : place.state;
    country = lower ? place.country.toLowerCase() : place.country;
  }
  const industry = src && rng.chance(0.7) ? src.industry : rng.pick(INDUSTRIES);
  const employees = Math.round(logUniform(rng, 10, 120_000));
  const openCount = rng.between(0, 5);
  const closedCount = rng.between(0, 8);
  const wonCount = rng.between(0, closedCount);
  const isCustomer = wonCount > 0;
  writeAccount(w, {
    org: partner.publicId,
    crmAccountId: id,
    nameJson,
    accountType: has('accountType') ? (isCustomer ? 'Customer' : rng.pick(PARTNER_PROSPECT_TYPES)) : undefined,
    parentCrmAccountId: parent,
    street: has('street') && rng.chance(0.85) ? street(rng, place) : undefined,
    city: has('city') ? city : undefined,
    state: has('state') ? state : undefined,
    zipCode: has('zipCode') && rng.chance(0.85) ? fill(rng, place.zip) : undefined,
    country: has('country') ? country : undefined,
    website: has('website') ? src?.website ?? (rng.chance(0.6) ? `www.${id.toLowerCase()}.example` : undefined) : undefined,
    industry: has('industry') ? industry.name : undefined,
    territory: has('territory') ? place.territory : undefined,
    divisions: has('divisions') && rng.chance(0.7) ? rng.pick(ACCOUNT_DIVISIONS) : undefined,
    numberOfEmployees: has('numberOfEmployees') ? employees : undefined,
    annualRevenue: has('annualRevenue') && rng.chance(0.85) ? Math.round((employees * rng.between(80, 400)) / 10) * 10_000 : undefined,
    accountAcv: has('accountAcv') ? (isCustomer ? rng.between(50, 5000) * 100 : 0) : undefined,
    openPipelineAmount: has('openPipelineAmount') ? (openCount ? rng.between(50, 9000) * 100 : 0) : undefined,
    openOppCount: has('openOppCount') ? openCount : undefined,
    closedOppCount: has('closedOppCount') ? closedCount : undefined,
    closedWonOppCount: has('closedWonOppCount') ? wonCount : undefined,
    isCustomer: has('isCustomer') ? isCustomer : undefined,
    sicCode: has('sicCode') && rng.chance(0.8) ? industry.sic : undefined,
    naicsCode: has('naicsCode') && rng.chance(0.8) ? industry.naics : undefined,
    ncesId: has('ncesId') && industry === INDUSTRIES[EDUCATION_INDUSTRY] ? rng.digits(12) : undefined,
    dunsNumber: has('dunsNumber') && rng.chance(0.7) ? rng.digits(9) : undefined,
    taxId: has('taxId') && rng.chance(0.5) ? taxId(rng, place.country) : undefined,
    phoneNumber: has('phoneNumber') && rng.chance(0.9) ? fill(rng, place.phone) : undefined,
    owner: has('owner') && rng.chance(0.95) ? rng.pick(partner.reps).account : undefined,
    customOwner: has('customOwner') && rng.chance(0.5) ? rng.pick(partner.csms) : undefined,
    recentOpenOppDate: has('recentOpenOppDate') && openCount ? REFERENCE_DATE - rng.int(120 * DAY) : undefined,
    recentClosedOppDate: has('recentClosedOppDate') && closedCount ? REFERENCE_DATE - rng.int(HISTORY_DAYS * DAY) : undefined,
    custom: customJson(rng, partner.accountCustom, 0.8),
  });
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
    let industry: Industry;
    let website: string | undefined;
    if (parent >= 0) {
      const p = stubs[parent]!;
      name = `${p.name} - ${SUBSIDIARY_QUALIFIERS[(qualifierBase + s) % SUBSIDIARY_QUALIFIERS.length]!}`;
      industry = p.industry;
      website = rng.chance(0.5) ? p.website : undefined;
    } else if (special) {
      name = tenant.specialNames[n]!;
      industry = rng.pick(INDUSTRIES);
      website = `www.${name.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toLowerCase()}.example`;
    } else {
      const company = run.names.get(run.nameBase + n);
      name = company.name;
      industry = company.industry;
      website = rng.chance(0.92) ? company.website : undefined;
    }
    stubs.push({
      id: `${org.code}-A${pad(n + 1)}`, name, nameJson: special ? jsonString(name).slice(1, -1) : name, parent,
      root: parent >= 0 ? stubs[parent]!.root : s, industry, website, place: rng.pick(PLACES), rep: rng.pick(org.reps), special,
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
    const [stageName, probability] = isClosed ? (isWon ? ['Closed Won', 100] : ['Closed Lost', 0]) : rng.pick(OPEN_STAGES);
    const amount = rng.chance(0.03) ? undefined : Math.round(logUniform(rng, 50, 5000)) * 100;
    const closeDate = isClosed
      ? created + Math.floor((REFERENCE_DATE - created) * (0.2 + 0.8 * rng.float()))
      : REFERENCE_DATE + rng.between(-20, 180) * DAY;
    const lastModifiedDate = isClosed ? Math.min(REFERENCE_DATE, closeDate + rng.int(3 * DAY)) : created + rng.int(REFERENCE_DATE - created + 1);
    const opportunityType = OPPORTUNITY_TYPES[rng.weighted(OPPORTUNITY_TYPE_WEIGHTS)]!;
    const product = rng.pick(tenant.products);
    const owner = rng.chance(0.7) ? a.rep : rng.pick(org.reps);
    out.opportunities.line(
      `{"org":"${orgId}","crmOpportunityId":"${id}","crmAccountId":"${a.id}"` +
        `,"name":"${a.nameJson} - ${product}${opportunityType === 'New Business' ? '' : ` ${opportunityType}`}","createdDate":${created}` +
        raw(',"amount":', amount) +
        `,"stageName":"${stageName}","closeDate":${closeDate},"isWon":${isWon},"isClosed":${isClosed},"opportunityType":"${opportunityType}"` +
        object(',"owner":', rng.chance(0.97) ? owner.opportunity : undefined) +
        `,"lastModifiedDate":${lastModifiedDate},"probability":${probability}` +
        raw(',"expectedRevenue":', amount === undefined ? undefined : (amount * probability) / 100) +
        customJson(rng, org.opportunityCustom, 0.85) +
        '}',
    );
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
    const isCustomer = a.wonCount > 0 || rng.chance(0.08);
    const employees = rng.chance(0.95) ? Math.round(logUniform(rng, 5, 250_000)) : undefined;
    // One formula-like value for the CSV injection guard to neutralize.
    const formula = a.special && a.parent < 0 && a.name.startsWith('Back') ? (['tier', '=SUM(A1:A9)'] as const) : undefined;
    const custom = customJson(rng, org.accountCustom, 0.85, formula);
    writeAccount(out.accounts, {
      org: orgId,
      crmAccountId: a.id,
      nameJson: a.nameJson,
      accountType: rng.chance(0.95) ? (isCustomer ? 'Customer' : 'Prospect') : undefined,
      parentCrmAccountId: a.parent >= 0 ? stubs[a.parent]!.id : undefined,
      street: rng.chance(0.9) ? street(rng, place) : undefined,
      city: place.city,
      state: place.state,
      zipCode: rng.chance(0.9) ? fill(rng, place.zip) : undefined,
      country: place.country,
      website: a.website,
      industry: a.industry.name,
      territory: rng.chance(0.95) ? place.territory : undefined,
      divisions: rng.pick(ACCOUNT_DIVISIONS),
      numberOfEmployees: employees,
      annualRevenue: employees !== undefined && rng.chance(0.9) ? Math.round((employees * rng.between(80, 400)) / 10) * 10_000 : undefined,
      accountAcv: a.wonAmount > 0 ? a.wonAmount : isCustomer ? rng.between(100, 3000) * 100 : rng.chance(0.5) ? 0 : undefined,
      openPipelineAmount: a.openPipeline,
      openOppCount: a.openCount,
      closedOppCount: a.closedCount,
      closedWonOppCount: a.wonCount,
      isCustomer,
      sicCode: rng.chance(0.85) ? a.industry.sic : undefined,
      naicsCode: rng.chance(0.85) ? a.industry.naics : undefined,
      ncesId: a.industry === INDUSTRIES[EDUCATION_INDUSTRY] ? rng.digits(12) : undefined,
      dunsNumber: rng.chance(0.8) ? rng.digits(9) : undefined,
      taxId: rng.chance(0.7) ? taxId(rng, place.country) : undefined,
      phoneNumber: rng.chance(0.95) ? fill(rng, place.phone) : undefined,
      owner: rng.chance(0.97) ? a.rep.account : undefined,
      customOwner: rng.chance(0.6) ? rng.pick(org.csms) : undefined,
      recentOpenOppDate: a.recentOpen,
      recentClosedOppDate: a.recentClosed,
      custom: rng.chance(0.97) ? custom : '',
    });
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
    const [type, subtype] = EVENT_KINDS[rng.weighted(EVENT_KIND_WEIGHTS)]!;
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
    const sourceLink = rng.chance(0.1)
      ? undefined
      : source === 'Salesforce'
        ? `https://${tenant.crmHost}/lightning/r/Account/${a.id}/view`
        : source === 'HubSpot'
          ? `https://app.hubspot.example/contacts/${rng.digits(7)}/record/0-2/${rng.digits(10)}`
          : `https://app.partner-reports.example/${type === 'ACTION_LIST' ? 'action-lists' : type === 'WORKFLOW' ? 'workflows' : 'co-sell'}/${eventId}`;
    let custom = '';
    if (rng.chance(0.9)) {
      custom =
        word(',"campaignId":"', rng.chance(0.5) ? `CMP-${2025 + rng.int(2)}-${rng.digits(3)}` : undefined) +
        word(',"leadId":"', rng.chance(0.25) ? `00Q${rng.digits(12)}` : undefined) +
        word(',"contactId":"', rng.chance(0.35) ? `003${rng.digits(12)}` : undefined) +
        word(',"opportunityId":"', linked && rng.chance(0.5) ? opp.id : undefined) +
        word(',"detail1":"', rng.chance(0.3) ? (type === 'ACTION_LIST' ? list : rng.pick(FIELD_NAMES)) : undefined) +
        word(',"detail2":"', rng.chance(0.2) ? `${rng.between(1, 250)} rows` : undefined) +
        raw(',"note":', rng.chance(0.15) ? rng.pick(NOTES_JSON) : undefined);
      custom = `,"custom":{${custom.slice(1)}}`;
    }
    out.events.line(
      `{"org":"${orgId}","eventId":"${eventId}","eventDate":${eventDate},"eventTypeCode":"${type}","eventSubtypeCode":"${subtype}"` +
        `,"crmAccountId":"${a.id}","partner":"${partner.publicId}","eventSource":"${source}","eventName":"${eventName}"` +
        word(',"eventDescription":"', rng.chance(0.95) ? eventDescription : undefined) +
        object(',"user":', rng.chance(0.97) ? user : undefined) +
        word(',"sourceLink":"', sourceLink) +
        custom +
        '}',
    );
  }
}

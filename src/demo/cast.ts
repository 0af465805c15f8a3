/**
 * The fixed cast of the demo dataset: its organizations (the demo caller Northwind
 * Analytics, a second tenant Bluefin Robotics, and their partner organizations), users,
 * partnerships with their share settings, custom field definitions and event types.
 * None of it grows with the scale; chunk.ts generates the accounts, opportunities,
 * matches and events of the two tenants from it. Only the demo organization's publicId
 * and users are constants; everything else is drawn from the seed.
 */
import { DAY, REFERENCE_DATE } from './dates.js';
import { emailLocal, fill, fullNames, salesReps, successManagers, type NamedPerson, type Rep } from './people.js';
import { Rng } from './random.js';
import { SPECIAL_ACCOUNT_NAMES } from './vocabulary.js';

/** The demo caller organization (constant, whatever the seed). */
export const DEMO_ORG_PUBLIC_ID = '5e1f0c2a-7b3d-4c8e-9a21-3f6d8b4e2c10';
/** An ADMIN user of the demo organization. */
export const DEMO_ADMIN_EMAIL = 'dana.reyes@northwindanalytics.example';

/** Every account field of contract section 7 a partner can share (besides `custom.<key>`). */
export const ACCOUNT_SHARE_NAMES = [
  'name', 'crmAccountId', 'accountType', 'parentCrmAccountId', 'street', 'city', 'state', 'zipCode', 'country',
  'website', 'industry', 'territory', 'divisions', 'numberOfEmployees', 'annualRevenue', 'accountAcv',
  'openPipelineAmount', 'openOppCount', 'closedOppCount', 'closedWonOppCount', 'isCustomer', 'sicCode', 'naicsCode',
  'ncesId', 'dunsNumber', 'taxId', 'phoneNumber', 'owner', 'customOwner', 'recentOpenOppDate', 'recentClosedOppDate',
] as const;

export type CustomType = 'string' | 'number' | 'currency' | 'date' | 'boolean';
export type CustomEntity = 'account' | 'opportunity' | 'event';

/** A custom field definition plus what its generated values look like. */
export interface CustomFieldDef {
  entity: CustomEntity;
  key: string;
  title: string;
  type: CustomType;
  classification: 'CUSTOM_CRM_FIELD' | 'CUSTOM_CRM_OBJECT';
  /** string: the values to pick from. */
  values?: readonly string[];
  /** number / currency: range of the values; date: range in days around the reference date. */
  min?: number;
  max?: number;
}

export interface OrgDef {
  /** Short code used in the record ids of the organization (`NW-A0000001`). */
  code: string;
  publicId: string;
  name: string;
  domain: string;
  /** The `orgs.ndjson` record. */
  record: Record<string, unknown>;
  reps: Rep[];
  csms: NamedPerson[];
  /** The `users.ndjson` records. */
  users: Array<{ org: string; email: string; name: string; title?: string; phone?: string; division?: string; role: 'ADMIN' | 'MEMBER' }>;
  /** Users as event actors. */
  actors: NamedPerson[];
  customFields: CustomFieldDef[];
  accountCustom: CustomFieldDef[];
  opportunityCustom: CustomFieldDef[];
  /**
   * As a partner: the account fields its uploaded partner sheet carries (undefined: a full
   * CRM sync). Partners whose data the tenants mostly cannot see keep lean sheets, which
   * is realistic and keeps large bundles fast to write and import.
   */
  sheet: ReadonlySet<string> | undefined;
}

/** An organization whose CRM data (accounts, opportunities, matches, events) grows with the scale. */
export interface TenantDef {
  org: OrgDef;
  /** Chunks of 5 accounts per unit of scale. */
  chunksPerScale: number;
  /** Per chunk, the numbers of connected partners matched to its 5 accounts (shuffled); every pattern has the same sum. */
  matchPatterns: ReadonlyArray<readonly number[]>;
  connected: readonly OrgDef[];
  connectedWeights: readonly number[];
  /** PENDING or DISCONNECTED partners that still have matches and events (the reports must ignore them). */
  inactive: readonly OrgDef[];
  inactiveMatchRate: number;
  /** Partners that get an extra account of their own (not matched) now and then. */
  extraPartners: readonly OrgDef[];
  extraAccountRate: number;
  products: readonly string[];
  attributionWindowDays: number;
  specialNames: readonly string[];
  crmHost: string;
}

export interface Cast {
  orgs: OrgDef[];
  tenants: TenantDef[];
  partnerships: Array<Record<string, unknown>>;
  eventTypes: Array<{ code: string; displayName: string; group: string; subtypes: Array<{ code: string; displayName: string }> }>;
}

interface OrgSpec {
  code: string;
  name: string;
  domain: string;
  street: string;
  city: string;
  state?: string;
  zipCode: string;
  country: string;
  phone: string;
  attributionWindowDays?: number;
  reps: number;
  /** Account fields the organization's partner sheet carries besides the name (all when absent). */
  sheet?: readonly string[];
  custom: Array<Omit<CustomFieldDef, 'entity'> & { entity?: CustomEntity }>;
}

const f = (key: string, title: string, type: CustomType, classification: CustomFieldDef['classification'], extra: Partial<CustomFieldDef> = {}) =>
  ({ key, title, type, classification, ...extra });

const SEGMENTS = ['Enterprise', 'Mid-Market', 'SMB', 'Strategic'];

const ORG_SPECS: Record<string, OrgSpec> = {
  NW: {
    code: 'NW', name: 'Northwind Analytics', domain: 'northwindanalytics.example', street: '400 Pine Street, Floor 12', city: 'Seattle',
    state: 'WA', zipCode: '98101', country: 'US', phone: '+1 206 555 ####', attributionWindowDays: 90, reps: 12,
    custom: [
      f('tier', 'Customer Tier', 'string', 'CUSTOM_CRM_FIELD', { values: ['Platinum', 'Gold', 'Silver', 'Bronze'] }),
      f('health_score', 'Health Score', 'number', 'CUSTOM_CRM_FIELD', { min: 0, max: 100 }),
      f('arr', 'ARR', 'currency', 'CUSTOM_CRM_OBJECT', { min: 5_000, max: 900_000 }),
      f('renewal_date', 'Renewal Date', 'date', 'CUSTOM_CRM_OBJECT', { min: -200, max: 400 }),
      f('ispartnerpaid', 'Is Partner Paid', 'boolean', 'CUSTOM_CRM_FIELD'),
      { ...f('lead_source', 'Lead Source', 'string', 'CUSTOM_CRM_FIELD', { values: ['Partner Referral', 'Inbound', 'Outbound', 'Event', 'Partner Reports'] }), entity: 'opportunity' },
      { ...f('partner_sourced', 'Partner Sourced', 'boolean', 'CUSTOM_CRM_FIELD'), entity: 'opportunity' },
      { ...f('discount_pct', 'Discount %', 'number', 'CUSTOM_CRM_OBJECT', { min: 0, max: 35 }), entity: 'opportunity' },
      { ...f('campaignId', 'Campaign', 'string', 'CUSTOM_CRM_OBJECT'), entity: 'event' },
    ],
  },
  BF: {
    code: 'BF', name: 'Bluefin Robotics', domain: 'bluefinrobotics.example', street: '75 Seaport Boulevard', city: 'Boston', state: 'MA',
    zipCode: '02210', country: 'US', phone: '+1 617 555 ####', attributionWindowDays: 60, reps: 6,
    custom: [
      f('region_code', 'Region Code', 'string', 'CUSTOM_CRM_FIELD', { values: ['NA-E', 'NA-W', 'EU-C', 'EU-N', 'APJ'] }),
      f('contract_value', 'Contract Value', 'currency', 'CUSTOM_CRM_OBJECT', { min: 20_000, max: 2_000_000 }),
      { ...f('channel', 'Channel', 'string', 'CUSTOM_CRM_FIELD', { values: ['Direct', 'Distributor', 'Marketplace'] }), entity: 'opportunity' },
    ],
  },
  SCP: {
    code: 'SCP', name: 'Summit Cloud Partners', domain: 'summitcloudpartners.example', street: '1800 Larimer Street, Suite 1400', city: 'Denver',
    state: 'CO', zipCode: '80202', country: 'US', phone: '+1 303 555 ####', reps: 5,
    custom: [
      f('segment', 'Segment', 'string', 'CUSTOM_CRM_FIELD', { values: SEGMENTS }),
      f('ispartnerpaid', 'Is Partner Paid', 'boolean', 'CUSTOM_CRM_FIELD'),
      f('systems_sold', 'Systems Sold', 'number', 'CUSTOM_CRM_OBJECT', { min: 0, max: 250 }),
      f('registration_date', 'Registration Date', 'date', 'CUSTOM_CRM_OBJECT', { min: -700, max: -1 }),
    ],
  },
  BPC: {
    code: 'BPC', name: 'Brightpath Consulting', domain: 'brightpathconsulting.example', street: '220 King Street West', city: 'Toronto',
    state: 'ON', zipCode: 'M5H 1K4', country: 'CA', phone: '+1 416 555 ####', reps: 4,
    sheet: ['accountType', 'street', 'city', 'state', 'zipCode', 'country', 'website', 'industry', 'numberOfEmployees', 'owner'],
    custom: [
      f('practice', 'Practice', 'string', 'CUSTOM_CRM_FIELD', { values: ['Data & AI', 'Cloud Migration', 'Security', 'CX'] }),
      f('practice_size', 'Practice Size', 'number', 'CUSTOM_CRM_FIELD', { min: 1, max: 60 }),
    ],
  },
  KDS: {
    code: 'KDS', name: 'Keystone Data Systems', domain: 'keystonedatasystems.example', street: '500 West 2nd Street', city: 'Austin',
    state: 'TX', zipCode: '78701', country: 'US', phone: '+1 512 555 ####', reps: 4,
    custom: [
      f('segment', 'Segment', 'string', 'CUSTOM_CRM_FIELD', { values: SEGMENTS }),
      f('annual_commit', 'Annual Commit', 'currency', 'CUSTOM_CRM_OBJECT', { min: 10_000, max: 750_000 }),
    ],
  },
  HPS: {
    code: 'HPS', name: 'Harbor & Pine Solutions', domain: 'harborandpine.example', street: '1120 NW Couch Street', city: 'Portland',
    state: 'OR', zipCode: '97209', country: 'US', phone: '+1 503 555 ####', reps: 4,
    sheet: ['accountType', 'street', 'city', 'state', 'zipCode', 'country', 'website', 'industry', 'isCustomer', 'openOppCount', 'owner'],
    custom: [
      f('target_org_size', 'Target Org Size', 'string', 'CUSTOM_CRM_FIELD', { values: ['1-50', '51-500', '501-5000', '5000+'] }),
      f('is_active', 'Is Active', 'boolean', 'CUSTOM_CRM_FIELD'),
    ],
  },
  OIG: {
    code: 'OIG', name: 'Orbital Integrators GmbH', domain: 'orbital-integrators.example', street: 'Leopoldstraße 31', city: 'München',
    state: 'Bayern', zipCode: '80802', country: 'DE', phone: '+49 89 5555 ####', reps: 4,
    sheet: ['accountType', 'city', 'state', 'zipCode', 'country', 'website', 'accountAcv', 'openPipelineAmount', 'openOppCount', 'closedOppCount', 'closedWonOppCount', 'isCustomer', 'recentOpenOppDate', 'customOwner'],
    custom: [
      f('product', 'Product', 'string', 'CUSTOM_CRM_FIELD', { values: ['Orbital Sync', 'Orbital Edge', 'Managed Services'] }),
      f('partnered_date', 'Partnered Date', 'date', 'CUSTOM_CRM_OBJECT', { min: -600, max: -10 }),
    ],
  },
  CLS: {
    code: 'CLS', name: 'Cedarline Software', domain: 'cedarline.example', street: '3 Grand Canal Plaza', city: 'Dublin',
    zipCode: 'D04 EE70', country: 'IE', phone: '+353 1 555 ####', reps: 3,
    sheet: ['accountType', 'city', 'state', 'country', 'website', 'industry'],
    custom: [f('segment', 'Segment', 'string', 'CUSTOM_CRM_FIELD', { values: SEGMENTS })],
  },
  RCG: {
    code: 'RCG', name: 'Redwood Channel Group', domain: 'redwoodchannel.example', street: '60 South Market Street', city: 'San Jose',
    state: 'CA', zipCode: '95113', country: 'US', phone: '+1 408 555 ####', reps: 3,
    sheet: ['accountType', 'city', 'state', 'country', 'website', 'industry', 'owner'],
    custom: [f('segment', 'Segment', 'string', 'CUSTOM_CRM_FIELD', { values: SEGMENTS })],
  },
  LRN: {
    code: 'LRN', name: 'Lumen Referral Network', domain: 'lumenreferral.example', street: '1 Finsbury Avenue', city: 'London',
    state: 'England', zipCode: 'EC2M 2PF', country: 'GB', phone: '+44 20 7946 ####', reps: 3,
    sheet: ['accountType', 'city', 'state', 'zipCode', 'country', 'website', 'industry', 'numberOfEmployees'],
    custom: [
      f('segment', 'Segment', 'string', 'CUSTOM_CRM_FIELD', { values: SEGMENTS }),
      f('referral_tier', 'Referral Tier', 'string', 'CUSTOM_CRM_OBJECT', { values: ['Registered', 'Silver', 'Gold'] }),
    ],
  },
};

/** Users of the demo organization: fixed, so the README and `npm start` can name them. */
const DEMO_USERS: Array<[string, string | undefined, string | undefined, 'ADMIN' | 'MEMBER']> = [
  ['Dana Reyes', 'VP of Partnerships', '+1 206 555 0100', 'ADMIN'],
  ['Marcus Lee', 'Partner Manager', '+1 206 555 0101', 'MEMBER'],
  ['Priya Natarajan', 'Channel Sales Manager', '+1 206 555 0102', 'MEMBER'],
  ['Zoë Müller', 'Alliances Director', '+1 206 555 0103', 'MEMBER'],
  ["Sean O'Connor", 'RevOps Analyst', '+1 206 555 0104', 'MEMBER'],
  ['Ana Ortega', undefined, undefined, 'MEMBER'],
];
const PARTNER_USER_TITLES = ['Partner Manager', 'Alliances Lead', 'Channel Account Manager', 'Partner Operations'];

function buildOrg(rng: Rng, spec: OrgSpec, publicId: string): OrgDef {
  const record: Record<string, unknown> = {
    publicId, name: spec.name, website: `www.${spec.domain}`, street: spec.street, city: spec.city, state: spec.state,
    zipCode: spec.zipCode, country: spec.country, attributionWindowDays: spec.attributionWindowDays,
  };
  const users: OrgDef['users'] =
    spec.code === 'NW'
      ? DEMO_USERS.map(([name, title, phone, role]) => ({ org: publicId, email: `${emailLocal(name)}@${spec.domain}`, name, title, phone, division: title ? 'Partnerships' : undefined, role }))
      : fullNames(rng, 3).map((name, i) => ({
          org: publicId, email: `${emailLocal(name)}@${spec.domain}`, name, title: i === 0 ? 'Head of Partnerships' : rng.pick(PARTNER_USER_TITLES),
          phone: i === 2 ? undefined : fill(rng, spec.phone), division: 'Partnerships', role: i === 0 ? 'ADMIN' : 'MEMBER',
        }));
  const customFields = spec.custom.map((c) => ({ ...c, entity: c.entity ?? 'account' }));
  return {
    code: spec.code, publicId, name: spec.name, domain: spec.domain, record, users,
    reps: salesReps(rng, spec.reps, spec.domain, spec.phone),
    csms: successManagers(rng, Math.max(2, Math.floor(spec.reps / 2)), spec.domain),
    actors: users.map((u) => ({ name: u.name, email: u.email, title: u.title ?? 'Partner Manager' })),
    customFields,
    accountCustom: customFields.filter((c) => c.entity === 'account'),
    opportunityCustom: customFields.filter((c) => c.entity === 'opportunity'),
    sheet: spec.sheet ? new Set(spec.sheet) : undefined,
  };
}

type Status = 'CONNECTED' | 'PENDING' | 'DISCONNECTED';

function partnership(
  rng: Rng, org: OrgDef, partner: OrgDef, status: Status,
  o: { mutual: boolean; partnerType: string; recommended?: boolean; sharedFields: string[]; brief?: boolean },
): Record<string, unknown> {
  const owner = rng.pick(org.users);
  const connectedOnce = status !== 'PENDING';
  const first = connectedOnce ? REFERENCE_DATE - rng.between(200, 700) * DAY + rng.int(DAY) : undefined;
  const mostRecent = first !== undefined ? first + rng.int(REFERENCE_DATE - 60 * DAY - first) : undefined;
  const full = !o.brief;
  return {
    org: org.publicId,
    partner: partner.publicId,
    status,
    mutual: o.mutual,
    partnerType: o.partnerType,
    recommended: full ? o.recommended ?? rng.chance(0.5) : undefined,
    firstConnectedDate: first,
    mostRecentConnectedDate: mostRecent,
    lastPartnerSheetUploadDate: status === 'CONNECTED' && full ? REFERENCE_DATE - rng.between(1, 40) * DAY + rng.int(DAY) : undefined,
    activeConnections: connectedOnce && full ? (status === 'CONNECTED' ? rng.between(1, 12) : 0) : undefined,
    spreadsheetsShared: connectedOnce && full ? rng.between(0, 9) : undefined,
    owner: full ? { name: owner.name, email: owner.email, phone: owner.phone ?? fill(rng, '+1 206 555 ####') } : undefined,
    crmRecordId: full ? `a0B${rng.digits(12)}` : undefined,
    prmRecordId: full && status === 'CONNECTED' ? `PRM-${partner.code}-${rng.digits(5)}` : undefined,
    averageReferralDealSize: full && status !== 'PENDING' ? rng.between(500_000, 9_000_000) / 100 : undefined,
    sharedFields: o.sharedFields,
  };
}

export function buildCast(seed: number): Cast {
  const rng = new Rng(seed, 0x63617374);
  const orgs: Record<string, OrgDef> = {};
  for (const code of Object.keys(ORG_SPECS)) {
    const publicId = code === 'NW' ? DEMO_ORG_PUBLIC_ID : rng.uuid();
    orgs[code] = buildOrg(rng, ORG_SPECS[code]!, publicId);
  }
  const o = (code: string) => orgs[code]!;
  const everything = (p: OrgDef) => [...ACCOUNT_SHARE_NAMES, ...p.accountCustom.map((c) => `custom.${c.key}`)];
  const [NW, BF, SCP, BPC, KDS, HPS, OIG, CLS, RCG, LRN] = ['NW', 'BF', 'SCP', 'BPC', 'KDS', 'HPS', 'OIG', 'CLS', 'RCG', 'LRN'].map(o) as [
    OrgDef, OrgDef, OrgDef, OrgDef, OrgDef, OrgDef, OrgDef, OrgDef, OrgDef, OrgDef,
  ];

  const partnerships = [
    // The demo organization's partners, in the order its partner list shows them.
    partnership(rng, NW, SCP, 'CONNECTED', { mutual: true, partnerType: 'Reseller', recommended: true, sharedFields: everything(SCP) }),
    partnership(rng, NW, BPC, 'CONNECTED', { mutual: false, partnerType: 'SI', recommended: false, sharedFields: ['name', 'country'] }),
    partnership(rng, NW, KDS, 'CONNECTED', { mutual: false, partnerType: 'ISV', recommended: true, sharedFields: [] }),
    partnership(rng, NW, HPS, 'CONNECTED', {
      mutual: true, partnerType: 'Referral',
      sharedFields: ['name', 'accountType', 'website', 'industry', 'city', 'state', 'country', 'isCustomer', 'openOppCount', 'owner.name', 'owner.email', 'custom.target_org_size'],
    }),
    partnership(rng, NW, OIG, 'CONNECTED', {
      mutual: true, partnerType: 'Technology',
      sharedFields: ['name', 'crmAccountId', 'zipCode', 'country', 'accountAcv', 'openPipelineAmount', 'openOppCount', 'closedOppCount', 'closedWonOppCount', 'recentOpenOppDate', 'customOwner', 'custom.product', 'custom.partnered_date'],
    }),
    partnership(rng, NW, CLS, 'PENDING', { mutual: false, partnerType: 'ISV', sharedFields: ['name', 'country'] }),
    partnership(rng, NW, RCG, 'DISCONNECTED', { mutual: false, partnerType: 'Reseller', sharedFields: ['name', 'city', 'country'] }),
    // The other direction: what the demo organization shares with its partners.
    partnership(rng, SCP, NW, 'CONNECTED', { mutual: true, partnerType: 'Technology', sharedFields: ['name', 'website', 'industry', 'country'], brief: true }),
    partnership(rng, HPS, NW, 'CONNECTED', { mutual: true, partnerType: 'Technology', sharedFields: ['name', 'country'], brief: true }),
    partnership(rng, OIG, NW, 'CONNECTED', { mutual: true, partnerType: 'ISV', sharedFields: ['name', 'crmAccountId', 'country'], brief: true }),
    partnership(rng, BPC, NW, 'PENDING', { mutual: false, partnerType: 'ISV', sharedFields: ['name'], brief: true }),
    // The second tenant's partners: Keystone shares everything with it and nothing with the demo organization.
    partnership(rng, BF, SCP, 'CONNECTED', { mutual: true, partnerType: 'Reseller', sharedFields: ['name', 'city', 'state', 'country', 'accountAcv', 'openPipelineAmount', 'custom.segment'] }),
    partnership(rng, BF, KDS, 'CONNECTED', { mutual: false, partnerType: 'ISV', sharedFields: everything(KDS) }),
    partnership(rng, BF, LRN, 'CONNECTED', { mutual: true, partnerType: 'Referral', sharedFields: ['name', 'industry', 'country', 'custom.referral_tier'] }),
    partnership(rng, BF, BPC, 'PENDING', { mutual: false, partnerType: 'SI', sharedFields: ['name'] }),
    partnership(rng, SCP, BF, 'CONNECTED', { mutual: true, partnerType: 'Hardware', sharedFields: ['name', 'country'], brief: true }),
    partnership(rng, LRN, BF, 'CONNECTED', { mutual: true, partnerType: 'Hardware', sharedFields: ['name'], brief: true }),
  ];

  const tenants: TenantDef[] = [
    {
      org: NW, chunksPerScale: 250,
      matchPatterns: [[0, 1, 2, 2, 3], [1, 1, 1, 2, 3], [0, 0, 2, 3, 3], [0, 2, 2, 2, 2], [1, 1, 2, 2, 2], [0, 1, 1, 1, 5], [0, 0, 1, 3, 4], [1, 1, 1, 1, 4]],
      connected: [SCP, BPC, KDS, HPS, OIG], connectedWeights: [32, 18, 15, 20, 15],
      inactive: [CLS, RCG], inactiveMatchRate: 0.5,
      extraPartners: [SCP, BPC, KDS, HPS, OIG, CLS, RCG], extraAccountRate: 0.4,
      products: ['Analytics Platform', 'Data Pipelines', 'Embedded BI', 'Forecasting Add-on', 'Insights Suite', 'Premium Support'],
      attributionWindowDays: 90, specialNames: SPECIAL_ACCOUNT_NAMES, crmHost: 'northwindanalytics.my.salesforce.example',
    },
    {
      org: BF, chunksPerScale: 25,
      matchPatterns: [[0, 0, 1, 1, 2], [0, 1, 1, 1, 1], [0, 0, 0, 1, 3], [0, 0, 0, 2, 2], [0, 0, 1, 0, 3]],
      connected: [SCP, KDS, LRN], connectedWeights: [40, 30, 30],
      inactive: [BPC], inactiveMatchRate: 0.3,
      extraPartners: [SCP, KDS, LRN, BPC], extraAccountRate: 0.5,
      products: ['Autonomous Picker', 'Fleet Manager', 'Vision Kit', 'Service Plan'],
      attributionWindowDays: 60, specialNames: [], crmHost: 'bluefinrobotics.my.salesforce.example',
    },
  ];

  const eventTypes = [
    { code: 'ACTION_LIST', displayName: 'Action List', group: 'Action List', subtypes: [{ code: 'CREATED', displayName: 'Created' }, { code: 'DOWNLOADED', displayName: 'Downloaded' }] },
    { code: 'WORKFLOW', displayName: 'Workflow', group: 'Workflow', subtypes: [{ code: 'INITIATED', displayName: 'Initiated' }, { code: 'INTRO_COMPLETED', displayName: 'Intro Completed' }] },
    { code: 'CRM_UPDATE', displayName: 'CRM Update', group: 'CRM', subtypes: [{ code: 'FIELD_CHANGED', displayName: 'Field Changed' }, { code: 'NOTE_ADDED', displayName: 'Note Added' }] },
    { code: 'CO_SELL', displayName: 'Co-Sell Activity', group: 'Co-Sell', subtypes: [{ code: 'MEETING_BOOKED', displayName: 'Meeting Booked' }, { code: 'DEAL_REGISTERED', displayName: 'Deal Registered' }] },
  ];

  return { orgs: Object.values(orgs), tenants, partnerships, eventTypes };
}

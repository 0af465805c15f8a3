/**
 * Structural validity of the demo bundle, checked without the importer: every line is a
 * JSON object with the fields of contract section 7 and the right JSON types, every
 * reference resolves, natural keys are unique, account hierarchies have no cycles, the
 * share settings and statuses the reports need are there, and the row counts follow the
 * scale exactly (2000 * S connected matches of the demo organization, 100 * S of the
 * second tenant).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { demoBundle, readBundle, type Bundle, type Row } from './bundle-reader.js';
import { DEMO_ADMIN_EMAIL, DEMO_ORG_PUBLIC_ID } from '../../src/demo/generate.js';

const DAY = 86_400;
/** 2026-11-22T00:00:00Z: "now" of the demo, whose last 90 days must hold data. */
const NOW = Date.UTC(2026, 10, 22) / 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Account fields of contract section 7 a partner can share (written down here, independently of the generator). */
const ACCOUNT_FIELDS = [
  'name', 'crmAccountId', 'accountType', 'parentCrmAccountId', 'street', 'city', 'state', 'zipCode', 'country', 'website',
  'industry', 'territory', 'divisions', 'numberOfEmployees', 'annualRevenue', 'accountAcv', 'openPipelineAmount',
  'openOppCount', 'closedOppCount', 'closedWonOppCount', 'isCustomer', 'sicCode', 'naicsCode', 'ncesId', 'dunsNumber',
  'taxId', 'phoneNumber', 'owner', 'customOwner', 'recentOpenOppDate', 'recentClosedOppDate',
];

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
type Shape = Record<string, Kind>;

/** Checks required and optional fields and rejects unknown ones. */
function checkShape(file: string, rows: Row[], required: Shape, optional: Shape = {}): void {
  rows.forEach((row, i) => {
    const where = `${file}:${i + 1}`;
    for (const [key, kind] of Object.entries(required)) {
      assert.ok(key in row, `${where}: ${key} is missing`);
      checkKind(where, key, row[key], kind);
    }
    for (const [key, value] of Object.entries(row)) {
      const kind = required[key] ?? optional[key];
      assert.ok(kind, `${where}: unknown field ${key}`);
      checkKind(where, key, value, kind);
    }
  });
}

function checkKind(where: string, key: string, value: unknown, kind: Kind): void {
  const ok =
    kind === 'integer' ? Number.isSafeInteger(value)
    : kind === 'array' ? Array.isArray(value)
    : kind === 'object' ? value !== null && typeof value === 'object' && !Array.isArray(value)
    : typeof value === kind;
  assert.ok(ok, `${where}: ${key} should be ${kind}, is ${JSON.stringify(value)}`);
  if (kind === 'string') assert.ok((value as string).length > 0, `${where}: ${key} is empty`);
}

function checkPerson(where: string, value: unknown, keys: string[], required: string[]): void {
  assert.ok(value && typeof value === 'object', `${where}: not an object`);
  for (const [k, v] of Object.entries(value)) {
    assert.ok(keys.includes(k), `${where}: unknown key ${k}`);
    assert.equal(typeof v, 'string', `${where}.${k}`);
  }
  for (const k of required) assert.ok(k in value, `${where}: ${k} missing`);
}

function unique(file: string, rows: Row[], key: (r: Row) => string): void {
  const seen = new Set<string>();
  for (const r of rows) {
    const k = key(r);
    assert.ok(!seen.has(k), `${file}: duplicate natural key ${k}`);
    seen.add(k);
  }
}

const key2 = (a: string, b: string) => `${a}\u0000${b}`;

/** Connected matches per organization: matches whose partnership (org -> partner) is CONNECTED. */
function connectedMatches(b: Bundle): Map<string, number> {
  const status = new Map(b.partnerships.map((p) => [key2(p.org, p.partner), p.status]));
  const counts = new Map<string, number>();
  for (const m of b.account_matches) if (status.get(key2(m.org, m.partner)) === 'CONNECTED') counts.set(m.org, (counts.get(m.org) ?? 0) + 1);
  return counts;
}

describe('demo bundle at scale 1', () => {
  let written: Awaited<ReturnType<typeof demoBundle>>;
  let b: Bundle;
  let orgIds: Set<string>;
  let tenantB: string;
  const accountsOf = new Map<string, Map<string, Row>>();
  before(async () => {
    written = await demoBundle(1, 42);
    b = readBundle(written.dir);
    orgIds = new Set(b.orgs.map((o) => o.publicId));
    for (const a of b.accounts) {
      if (!accountsOf.has(a.org)) accountsOf.set(a.org, new Map());
      accountsOf.get(a.org)!.set(a.crmAccountId, a);
    }
    const tenants = [...new Set(b.opportunities.map((o) => o.org))];
    tenantB = tenants.find((t) => t !== DEMO_ORG_PUBLIC_ID)!;
  });
  after(() => written.dispose());

  test('the summary counts the lines of every file', () => {
    for (const [name, rows] of Object.entries(b)) assert.equal(written.summary.files[`${name}.ndjson`], rows.length, name);
    assert.equal(written.summary.rows, Object.values(b).reduce((n, rows) => n + rows.length, 0));
    assert.ok(written.summary.rows < 20_000, `scale 1 stays small (${written.summary.rows} rows)`);
  });

  test('orgs: the demo organization, a second tenant and partner organizations with addresses', () => {
    checkShape('orgs', b.orgs, { publicId: 'string', name: 'string' }, {
      website: 'string', street: 'string', city: 'string', state: 'string', zipCode: 'string', country: 'string', attributionWindowDays: 'integer',
    });
    unique('orgs', b.orgs, (o) => o.publicId);
    for (const o of b.orgs) assert.match(o.publicId, UUID);
    assert.ok(b.orgs.length >= 6);
    const demo = b.orgs.find((o) => o.publicId === DEMO_ORG_PUBLIC_ID);
    assert.equal(demo?.name, 'Northwind Analytics');
    assert.equal(demo?.attributionWindowDays, 90);
    assert.ok(tenantB, 'a second organization has CRM data');
    for (const o of b.orgs) for (const k of ['website', 'street', 'city', 'zipCode', 'country']) assert.ok(o[k], `${o.name}: ${k}`);
  });

  test('users: every organization has an admin; the demo admin and members exist', () => {
    checkShape('users', b.users, { org: 'string', email: 'string', name: 'string' }, { title: 'string', phone: 'string', division: 'string', role: 'string' });
    unique('users', b.users, (u) => key2(u.org, u.email));
    for (const u of b.users) {
      assert.ok(orgIds.has(u.org), `user ${u.email}: unknown org`);
      assert.ok(['ADMIN', 'MEMBER'].includes(u.role), `user ${u.email}: role ${u.role}`);
      assert.match(u.email, /^[a-z0-9.]+@[a-z0-9.-]+$/);
    }
    for (const id of orgIds) assert.ok(b.users.some((u) => u.org === id && u.role === 'ADMIN'), `org ${id} has an ADMIN`);
    assert.ok(b.users.some((u) => u.org === DEMO_ORG_PUBLIC_ID && u.email === DEMO_ADMIN_EMAIL && u.role === 'ADMIN'));
    assert.ok(b.users.filter((u) => u.org === DEMO_ORG_PUBLIC_ID && u.role === 'MEMBER').length >= 2);
  });

  test('custom_fields: every type and both classifications for the demo organization; partners have account fields', () => {
    checkShape('custom_fields', b.custom_fields, { org: 'string', entity: 'string', key: 'string', title: 'string', type: 'string', classification: 'string' });
    unique('custom_fields', b.custom_fields, (c) => `${c.org}/${c.entity}/${c.key}`);
    for (const c of b.custom_fields) {
      assert.ok(orgIds.has(c.org));
      assert.ok(['account', 'opportunity', 'event'].includes(c.entity), c.entity);
      assert.ok(['string', 'number', 'currency', 'date', 'boolean'].includes(c.type), c.type);
      assert.ok(['CUSTOM_CRM_FIELD', 'CUSTOM_CRM_OBJECT'].includes(c.classification), c.classification);
    }
    const demo = b.custom_fields.filter((c) => c.org === DEMO_ORG_PUBLIC_ID);
    const account = demo.filter((c) => c.entity === 'account');
    assert.deepEqual([...new Set(account.map((c) => c.type))].sort(), ['boolean', 'currency', 'date', 'number', 'string']);
    assert.ok(account.some((c) => c.key === 'ispartnerpaid' && c.type === 'boolean'));
    assert.ok(demo.filter((c) => c.entity === 'opportunity').length >= 2);
    assert.ok(demo.some((c) => c.entity === 'event'));
    assert.deepEqual([...new Set(demo.map((c) => c.classification))].sort(), ['CUSTOM_CRM_FIELD', 'CUSTOM_CRM_OBJECT']);
    for (const p of b.partnerships.filter((p) => p.org === DEMO_ORG_PUBLIC_ID)) {
      assert.ok(b.custom_fields.some((c) => c.org === p.partner && c.entity === 'account'), `partner ${p.partner} has account custom fields`);
    }
  });

  test('partnerships: statuses, mutual flags and share settings the reports need', () => {
    checkShape('partnerships', b.partnerships, { org: 'string', partner: 'string', status: 'string' }, {
      mutual: 'boolean', partnerType: 'string', recommended: 'boolean', firstConnectedDate: 'integer', mostRecentConnectedDate: 'integer',
      lastPartnerSheetUploadDate: 'integer', activeConnections: 'integer', spreadsheetsShared: 'integer', owner: 'object', crmRecordId: 'string',
      prmRecordId: 'string', averageReferralDealSize: 'number', sharedFields: 'array',
    });
    unique('partnerships', b.partnerships, (p) => key2(p.org, p.partner));
    const customKeys = (org: string) => b.custom_fields.filter((c) => c.org === org && c.entity === 'account').map((c) => `custom.${c.key}`);
    for (const [i, p] of b.partnerships.entries()) {
      assert.ok(orgIds.has(p.org) && orgIds.has(p.partner) && p.org !== p.partner, `partnerships:${i + 1}: org/partner`);
      assert.ok(['CONNECTED', 'PENDING', 'DISCONNECTED'].includes(p.status));
      if (p.owner) checkPerson(`partnerships:${i + 1}.owner`, p.owner, ['name', 'email', 'phone'], ['name', 'email']);
      for (const f of p.sharedFields ?? []) {
        assert.equal(typeof f, 'string');
        if (f.startsWith('custom.')) assert.ok(customKeys(p.partner).includes(f), `partnerships:${i + 1}: ${f} is not a custom field of the partner`);
        else assert.ok(ACCOUNT_FIELDS.includes(f.split('.')[0]!), `partnerships:${i + 1}: ${f} is not an account field`);
      }
      if (p.firstConnectedDate && p.mostRecentConnectedDate) assert.ok(p.firstConnectedDate <= p.mostRecentConnectedDate);
    }
    const demo = b.partnerships.filter((p) => p.org === DEMO_ORG_PUBLIC_ID);
    const connected = demo.filter((p) => p.status === 'CONNECTED');
    assert.ok(connected.length >= 4);
    assert.equal(demo.filter((p) => p.status === 'PENDING').length, 1);
    assert.equal(demo.filter((p) => p.status === 'DISCONNECTED').length, 1);
    assert.ok(connected.some((p) => p.mutual === true) && connected.some((p) => p.mutual === false));
    const reverse = (p: Row) => b.partnerships.find((q) => q.org === p.partner && q.partner === p.org);
    for (const p of connected) {
      assert.equal(reverse(p)?.status === 'CONNECTED', p.mutual === true, `mutual flag of ${p.partner} matches the other direction`);
      for (const k of ['partnerType', 'firstConnectedDate', 'mostRecentConnectedDate', 'owner', 'crmRecordId', 'averageReferralDealSize']) assert.ok(k in p, `${p.partner}: ${k}`);
    }
    const everything = connected.find((p) => ACCOUNT_FIELDS.every((f) => p.sharedFields.includes(f)) && customKeys(p.partner).every((k) => p.sharedFields.includes(k)));
    assert.ok(everything, 'a partner shares every account field, owner and custom fields included');
    assert.ok(connected.some((p) => p.sharedFields.length > 0 && p.sharedFields.length <= 3), 'a partner shares little');
    assert.ok(connected.some((p) => p.sharedFields.length === 0), 'a partner shares nothing');
    assert.ok(b.partnerships.some((p) => p.org === tenantB && p.status === 'CONNECTED'), 'the second tenant has connected partners');
  });

  test('accounts: fields, references, hierarchies without cycles, unique names, tricky names', () => {
    checkShape('accounts', b.accounts, { org: 'string', crmAccountId: 'string', name: 'string' }, {
      accountType: 'string', parentCrmAccountId: 'string', street: 'string', city: 'string', state: 'string', zipCode: 'string', country: 'string',
      website: 'string', industry: 'string', territory: 'string', divisions: 'string', numberOfEmployees: 'integer', annualRevenue: 'number',
      accountAcv: 'number', openPipelineAmount: 'number', openOppCount: 'integer', closedOppCount: 'integer', closedWonOppCount: 'integer',
      isCustomer: 'boolean', sicCode: 'string', naicsCode: 'string', ncesId: 'string', dunsNumber: 'string', taxId: 'string', phoneNumber: 'string',
      owner: 'object', customOwner: 'object', recentOpenOppDate: 'integer', recentClosedOppDate: 'integer', custom: 'object',
    });
    unique('accounts', b.accounts, (a) => key2(a.org, a.crmAccountId));
    unique('account names', b.accounts, (a) => key2(a.org, a.name));
    const defs = new Map(b.custom_fields.filter((c) => c.entity === 'account').map((c) => [key2(c.org, c.key), c.type]));
    for (const [i, a] of b.accounts.entries()) {
      const where = `accounts:${i + 1}`;
      assert.ok(orgIds.has(a.org), `${where}: org`);
      if (a.owner) checkPerson(`${where}.owner`, a.owner, ['name', 'email', 'title', 'phone', 'division'], ['name', 'email']);
      if (a.customOwner) checkPerson(`${where}.customOwner`, a.customOwner, ['name', 'email', 'title'], ['name', 'email']);
      if (a.closedWonOppCount !== undefined) assert.ok(a.closedWonOppCount <= a.closedOppCount, `${where}: won <= closed`);
      for (const [k, v] of Object.entries(a.custom ?? {})) {
        const type = defs.get(key2(a.org, k));
        assert.ok(type, `${where}: custom.${k} is not an account custom field of its org`);
        const expected = type === 'string' ? 'string' : type === 'boolean' ? 'boolean' : 'number';
        assert.equal(typeof v, expected, `${where}: custom.${k}`);
        if (type === 'date') assert.ok(Number.isSafeInteger(v), `${where}: custom.${k} is epoch seconds`);
      }
      // Parents exist in the same organization; following them ends at a top parent within 3 levels.
      let node = a;
      const seen = new Set<string>([a.crmAccountId]);
      for (let depth = 1; node.parentCrmAccountId !== undefined; depth++) {
        const parent = accountsOf.get(a.org)!.get(node.parentCrmAccountId);
        assert.ok(parent, `${where}: parent ${node.parentCrmAccountId} is not an account of the same org`);
        assert.ok(!seen.has(parent.crmAccountId), `${where}: parent cycle`);
        assert.ok(depth < 3, `${where}: hierarchy deeper than 3 levels`);
        seen.add(parent.crmAccountId);
        node = parent;
      }
    }
    const demo = b.accounts.filter((a) => a.org === DEMO_ORG_PUBLIC_ID);
    const names = demo.map((a) => a.name);
    for (const ch of ['%', '_', '\\', "'", 'é', 'ü']) assert.ok(names.some((n) => n.includes(ch)), `a demo account name contains ${ch}`);
    assert.ok(names.includes('ACME Widgets') && names.includes('acme widgets'), 'names that differ only in case');
    assert.ok(demo.some((a) => a.parentCrmAccountId) && demo.some((a) => !a.parentCrmAccountId));
    const depth3 = demo.some((a) => a.parentCrmAccountId && accountsOf.get(a.org)!.get(a.parentCrmAccountId)?.parentCrmAccountId);
    assert.ok(depth3, 'some hierarchies are three levels deep');
    for (const k of ['website', 'customOwner', 'street', 'dunsNumber', 'recentOpenOppDate', 'custom']) {
      assert.ok(demo.some((a) => a[k] === undefined) && demo.some((a) => a[k] !== undefined), `${k} is present on some demo accounts and absent on others`);
    }
    for (const org of new Set(b.partnerships.map((p) => p.partner))) assert.ok(accountsOf.get(org)?.size, `partner org ${org} has accounts`);
    // What a partner shares, its accounts have.
    for (const p of b.partnerships.filter((p) => p.status === 'CONNECTED')) {
      const accounts = [...accountsOf.get(p.partner)!.values()];
      for (const f of p.sharedFields) {
        const [head, sub] = f.split('.');
        const present = accounts.some((a) => (head === 'custom' ? a.custom?.[sub!] !== undefined : sub ? a[head!]?.[sub] !== undefined : a[head!] !== undefined));
        assert.ok(present, `partner ${p.partner} shares ${f} but none of its accounts has it`);
      }
    }
  });

  test('opportunities: open, won and lost, consistent amounts and dates, accounts of the same org', () => {
    checkShape('opportunities', b.opportunities, { org: 'string', crmOpportunityId: 'string', crmAccountId: 'string', name: 'string', createdDate: 'integer' }, {
      amount: 'number', stageName: 'string', closeDate: 'integer', isWon: 'boolean', isClosed: 'boolean', opportunityType: 'string', owner: 'object',
      lastModifiedDate: 'integer', probability: 'number', expectedRevenue: 'number', custom: 'object',
    });
    unique('opportunities', b.opportunities, (o) => key2(o.org, o.crmOpportunityId));
    const defs = new Set(b.custom_fields.filter((c) => c.entity === 'opportunity').map((c) => key2(c.org, c.key)));
    const stages = new Set(['Prospecting', 'Qualification', 'Proposal', 'Negotiation', 'Closed Won', 'Closed Lost']);
    for (const [i, o] of b.opportunities.entries()) {
      const where = `opportunities:${i + 1}`;
      assert.ok(accountsOf.get(o.org)?.has(o.crmAccountId), `${where}: account ${o.crmAccountId} not in its org`);
      assert.ok(stages.has(o.stageName), `${where}: stage ${o.stageName}`);
      assert.ok(['New Business', 'Expansion', 'Renewal'].includes(o.opportunityType));
      assert.ok(!o.isWon || o.isClosed, `${where}: won but not closed`);
      assert.equal(o.stageName.startsWith('Closed'), o.isClosed, `${where}: stage and isClosed`);
      if (o.amount !== undefined) assert.equal(o.expectedRevenue, (o.amount * o.probability) / 100, `${where}: expectedRevenue`);
      if (o.isClosed) assert.ok(o.closeDate >= o.createdDate && o.closeDate <= NOW, `${where}: closeDate`);
      assert.ok(o.lastModifiedDate >= o.createdDate, `${where}: lastModifiedDate`);
      if (o.owner) checkPerson(`${where}.owner`, o.owner, ['name', 'email', 'title', 'phone'], ['name', 'email']);
      for (const k of Object.keys(o.custom ?? {})) assert.ok(defs.has(key2(o.org, k)), `${where}: custom.${k} is not defined`);
      const account = accountsOf.get(o.org)!.get(o.crmAccountId)!;
      assert.ok(o.name.startsWith(`${account.name} - `), `${where}: the name starts with the account's name`);
    }
    const demo = b.opportunities.filter((o) => o.org === DEMO_ORG_PUBLIC_ID);
    assert.ok(demo.some((o) => !o.isClosed) && demo.some((o) => o.isWon) && demo.some((o) => o.isClosed && !o.isWon));
    const recent = demo.filter((o) => o.createdDate >= NOW - 90 * DAY && o.createdDate <= NOW).length;
    assert.ok(recent >= demo.length * 0.3, `a good share of opportunities was created in the last 90 days (${recent} of ${demo.length})`);
  });

  test('account_matches: partner accounts exist in the partner org; exact connected counts', () => {
    checkShape('account_matches', b.account_matches, { org: 'string', crmAccountId: 'string', partner: 'string', partnerCrmAccountId: 'string', firstMatchDate: 'integer' });
    unique('account_matches', b.account_matches, (m) => [m.org, m.crmAccountId, m.partner, m.partnerCrmAccountId].join('\u0000'));
    for (const [i, m] of b.account_matches.entries()) {
      assert.ok(accountsOf.get(m.org)?.has(m.crmAccountId), `account_matches:${i + 1}: account`);
      assert.ok(orgIds.has(m.partner), `account_matches:${i + 1}: partner org`);
      assert.ok(accountsOf.get(m.partner)?.has(m.partnerCrmAccountId), `account_matches:${i + 1}: ${m.partnerCrmAccountId} is not an account of the partner`);
    }
    const counts = connectedMatches(b);
    assert.equal(counts.get(DEMO_ORG_PUBLIC_ID), 2000);
    assert.equal(counts.get(tenantB), 100);
    const status = new Map(b.partnerships.map((p) => [key2(p.org, p.partner), p.status]));
    const demo = b.account_matches.filter((m) => m.org === DEMO_ORG_PUBLIC_ID);
    for (const s of ['PENDING', 'DISCONNECTED']) assert.ok(demo.some((m) => status.get(key2(m.org, m.partner)) === s), `matches with a ${s} partner`);
    const perAccount = new Map<string, number>();
    for (const m of demo) perAccount.set(m.crmAccountId, (perAccount.get(m.crmAccountId) ?? 0) + 1);
    assert.ok([...perAccount.values()].some((n) => n >= 3), 'some accounts match several partners');
    assert.ok(accountsOf.get(DEMO_ORG_PUBLIC_ID)!.size > perAccount.size, 'some accounts match no partner');
    const lower = (s: unknown) => String(s ?? '').toLowerCase();
    // Partners know the matched company by the same name, sometimes in other letter case.
    for (const m of b.account_matches) {
      const name = accountsOf.get(m.partner)!.get(m.partnerCrmAccountId)!.name;
      assert.equal(lower(name), lower(accountsOf.get(m.org)!.get(m.crmAccountId)!.name), `partner account ${m.partnerCrmAccountId}`);
    }
    const sameLocation = demo.filter((m) => {
      const a = accountsOf.get(m.org)!.get(m.crmAccountId)!;
      const p = accountsOf.get(m.partner)!.get(m.partnerCrmAccountId)!;
      return lower(a.city) === lower(p.city) && lower(a.state) === lower(p.state) && lower(a.country) === lower(p.country);
    });
    assert.ok(sameLocation.length >= 50, `matches with the same location (${sameLocation.length})`);
    assert.ok(sameLocation.some((m) => accountsOf.get(m.partner)!.get(m.partnerCrmAccountId)!.city !== accountsOf.get(m.org)!.get(m.crmAccountId)!.city), 'some written in another case');
  });

  test('event_types and events: valid codes, references and custom keys; events inside and outside attribution windows', () => {
    checkShape('event_types', b.event_types, { code: 'string', displayName: 'string', group: 'string', subtypes: 'array' });
    unique('event_types', b.event_types, (t) => t.code);
    const subtypes = new Map(b.event_types.map((t) => [t.code, new Set(t.subtypes.map((s: Row) => s.code))]));
    for (const t of b.event_types) for (const s of t.subtypes) checkShape(`event_types ${t.code}`, [s], { code: 'string', displayName: 'string' });
    assert.deepEqual([...subtypes.get('ACTION_LIST')!].sort(), ['CREATED', 'DOWNLOADED']);
    assert.deepEqual([...subtypes.get('WORKFLOW')!].sort(), ['INITIATED', 'INTRO_COMPLETED']);
    assert.equal(b.event_types.find((t) => t.code === 'ACTION_LIST')!.group, 'Action List');
    assert.equal(b.event_types.find((t) => t.code === 'WORKFLOW')!.group, 'Workflow');
    assert.ok(b.event_types.length >= 3);

    checkShape('events', b.events, { org: 'string', eventId: 'string', eventDate: 'integer', eventTypeCode: 'string', crmAccountId: 'string', partner: 'string' }, {
      eventSubtypeCode: 'string', eventSource: 'string', eventName: 'string', eventDescription: 'string', user: 'object', sourceLink: 'string', custom: 'object',
    });
    unique('events', b.events, (e) => key2(e.org, e.eventId));
    const customKeys = ['campaignId', 'leadId', 'contactId', 'opportunityId', 'detail1', 'detail2', 'note'];
    for (const [i, e] of b.events.entries()) {
      const where = `events:${i + 1}`;
      assert.ok(accountsOf.get(e.org)?.has(e.crmAccountId), `${where}: account`);
      assert.ok(orgIds.has(e.partner) && e.partner !== e.org, `${where}: partner`);
      assert.ok(subtypes.get(e.eventTypeCode), `${where}: type ${e.eventTypeCode}`);
      if (e.eventSubtypeCode !== undefined) assert.ok(subtypes.get(e.eventTypeCode)!.has(e.eventSubtypeCode), `${where}: subtype ${e.eventSubtypeCode}`);
      assert.ok(['Partner Reports', 'Salesforce', 'HubSpot'].includes(e.eventSource), `${where}: source`);
      assert.ok(e.eventDate <= NOW, `${where}: in the future`);
      if (e.user) checkPerson(`${where}.user`, e.user, ['name', 'email', 'title'], ['name', 'email']);
      for (const [k, v] of Object.entries(e.custom ?? {})) {
        assert.ok(customKeys.includes(k), `${where}: custom.${k}`);
        assert.equal(typeof v, 'string');
      }
    }
    assert.ok(b.events.some((e) => e.eventName.includes('"')), 'event names with quotes');
    assert.ok(b.events.some((e) => e.eventDescription?.includes('"') && e.eventDescription.includes('\n')), 'descriptions with quotes and a line break');
    assert.ok(b.events.some((e) => e.eventDescription?.includes('Back\\Slash Ventures')), 'descriptions naming an account with a backslash');
    assert.ok(b.events.some((e) => e.custom?.note?.startsWith('=')), 'a note that looks like a formula');
    const demoPartners = new Map(b.partnerships.filter((p) => p.org === DEMO_ORG_PUBLIC_ID).map((p) => [p.partner, p.status]));
    const demoEvents = b.events.filter((e) => e.org === DEMO_ORG_PUBLIC_ID);
    for (const e of demoEvents) assert.ok(demoPartners.has(e.partner), 'demo events credit partners of the demo org');
    const connectedShare = demoEvents.filter((e) => demoPartners.get(e.partner) === 'CONNECTED').length / demoEvents.length;
    assert.ok(connectedShare > 0.9, `mostly connected partners (${connectedShare})`);

    // Pipeline attribution (contract section 6): same top parent, d <= created <= d + 90 days.
    const top = (org: string, id: string): string => {
      let a = accountsOf.get(org)!.get(id)!;
      while (a.parentCrmAccountId) a = accountsOf.get(org)!.get(a.parentCrmAccountId)!;
      return a.crmAccountId;
    };
    const oppsByTop = new Map<string, number[]>();
    for (const o of b.opportunities.filter((o) => o.org === DEMO_ORG_PUBLIC_ID)) {
      const t = top(o.org, o.crmAccountId);
      oppsByTop.set(t, [...(oppsByTop.get(t) ?? []), o.createdDate]);
    }
    const linked = demoEvents.filter((e) => (oppsByTop.get(top(e.org, e.crmAccountId)) ?? []).some((c) => e.eventDate <= c && c <= e.eventDate + 90 * DAY));
    assert.ok(linked.length > demoEvents.length * 0.4, `many events precede an opportunity within the window (${linked.length} of ${demoEvents.length})`);
    assert.ok(linked.length < demoEvents.length * 0.95, 'some events do not');
    const recent = demoEvents.filter((e) => e.eventDate >= NOW - 90 * DAY).length;
    assert.ok(recent >= demoEvents.length * 0.25, `a good share of events in the last 90 days (${recent})`);
  });
});

describe('demo bundle scale model', () => {
  test('connected matches are exactly 2000 * S (demo organization) and 100 * S (second tenant) at S = 3', async () => {
    const written = await demoBundle(3, 5);
    try {
      const b = readBundle(written.dir);
      const counts = connectedMatches(b);
      const tenantB = [...counts.keys()].find((k) => k !== DEMO_ORG_PUBLIC_ID)!;
      assert.equal(counts.get(DEMO_ORG_PUBLIC_ID), 6000);
      assert.equal(counts.get(tenantB), 300);
      assert.equal(counts.size, 2);
      // Everything else grows linearly too.
      const one = await demoBundle(1, 5);
      try {
        for (const file of ['opportunities', 'events']) assert.equal(written.summary.files[`${file}.ndjson`], 3 * one.summary.files[`${file}.ndjson`]!, file);
        const accounts3 = written.summary.files['accounts.ndjson']!;
        const accounts1 = one.summary.files['accounts.ndjson']!;
        assert.ok(Math.abs(accounts3 / accounts1 - 3) < 0.1, `accounts grow about linearly (${accounts1} -> ${accounts3})`);
      } finally {
        one.dispose();
      }
    } finally {
      written.dispose();
    }
  });
});

/**
 * Channel-ecosystem reports through HTTP: connected partners, matched accounts, columns,
 * filter values, report names, share settings, errors, and the recommended flow of
 * spec 4.5 end to end.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG } from '../fixtures/small-bundle.js';

const C = '/v1/channelecosystem';
const CONNECTED = 'PARTNER_ORG_CONNECTED_PARTNER_ORGS';
const MATCHED = 'PARTNER_ORG_MATCHED_ACCOUNTS';
const matched = (partner: string, extra: object = {}) => ({ channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: partner, ...extra });

for (const engine of engines) {
  describe(`channel ecosystem on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('connected partners: every CONNECTED partnership with the standard keys and partnerOrgName', async () => {
      const page = await f.ok(`${C}/records`, { channelReportType: CONNECTED });
      assert.deepEqual(page.content.map((r: any) => r.companyPartnerPublicId), [ORG.ALPHA, ORG.BETA, ORG.GAMMA]);
      assert.deepEqual(page.content[0], {
        partnerName: 'Alpha Partners', partnerWebsite: 'alpha.test', companyPartnerPublicId: ORG.ALPHA, partnerType: 'Reseller', recommended: true,
        firstConnectedDate: 1_700_000_000 - 400 * 86400, mostRecentConnectedDate: 1_700_000_000 - 10 * 86400, lastPartnerSheetUploadDate: 1_700_000_000 - 5 * 86400,
        activeConnections: 3, spreadsheetsShared: 2, partnerOwner: 'Paula Owner', partnerOwnerEmail: 'paula@acme.test', partnerOwnerPhone: '+1 555 0100', partnerOrgName: 'Alpha Partners',
      });
      assert.equal(page.totalElements, 3);
      const all = await f.ok(`${C}/records`, { channelReportType: CONNECTED, matchingType: 'ALL_PARTNER_ORGS' });
      assert.equal(all.totalElements, 3);
    });

    test('MUTUAL: connected in both directions only', async () => {
      const page = await f.ok(`${C}/records`, { channelReportType: CONNECTED, matchingType: 'MUTUAL' });
      assert.deepEqual(page.content.map((r: any) => r.partnerName), ['Alpha Partners']);
    });

    test('connected partners: filters, sort and search on the standard keys', async () => {
      const isv = await f.ok(`${C}/records?sort=partnerName,desc`, { channelReportType: CONNECTED, filters: { partnerType: 'ISV-,-SI' } });
      assert.deepEqual(isv.content.map((r: any) => r.partnerName), ['gamma systems', 'Beta Resellers']);
      const recommended = await f.ok(`${C}/records`, { channelReportType: CONNECTED, filters: { recommended: 'false' } });
      assert.deepEqual(recommended.content.map((r: any) => r.partnerName), ['Beta Resellers']);
      const search = await f.ok(`${C}/records`, { channelReportType: CONNECTED, search: 'paula' });
      assert.deepEqual(search.content.map((r: any) => r.partnerName), ['Alpha Partners']);
      const dated = await f.ok(`${C}/records`, { channelReportType: CONNECTED, filters: { firstConnectedDate: `${1_700_000_000 - 200 * 86400}<->` } });
      assert.deepEqual(dated.content.map((r: any) => r.partnerName), ['Beta Resellers']);
    });

    test('matched accounts: caller keys at the top level, partnerFields exactly the shared fields', async () => {
      const alpha = await f.ok(`${C}/records`, matched(ORG.ALPHA));
      assert.deepEqual(alpha.content.map((r: any) => r.crmAccountId), ['A1', 'A2']);
      const a1 = alpha.content[0];
      assert.equal(a1.name, 'Acme Holdings');
      assert.equal(a1.accountName, 'Acme Holdings');
      assert.equal(a1.companyPartnerPublicId, ORG.ALPHA);
      assert.equal(a1.companyPartnerName, 'Alpha Partners');
      assert.equal(a1.prmRecordId, 'PRM-ALPHA');
      assert.equal(a1.avgDealSize, 25000);
      assert.equal(a1.isCustomer, true);
      assert.equal(a1.custom_tier, 'Gold');
      assert.deepEqual(a1.partnerFields, {
        partneraccountname: 'Alpha Acct One', partnercrmaccountid: 'PA1', partneraccounttype: 'Prospect', partnerstreet: null, partnercity: 'san francisco',
        partnerstate: 'ca', partnerzipcode: null, partnercountry: 'us', partnerwebsite: null, partnerindustry: null, partnernumberofemployees: null,
        partnerannualrevenue: null, partneraccountacv: 700, partneropenpipelineamount: 900, partneropenoppcount: 4, partnerclosedoppcount: 2,
        partnerclosedwonoppcount: 1, partneriscustomer: false, partnerowneridname: 'Pat Partner', partnerowneridemail: 'pat@alpha.test', partnerowneridtitle: null,
        partnerowneridphone: null, partnerowneriddivision: null, partnersegment: 'Enterprise',
      });
      const beta = await f.ok(`${C}/records`, matched(ORG.BETA));
      assert.deepEqual(beta.content.map((r: any) => r.partnerFields), [{ partneraccountname: 'Beta Acct', partnercountry: 'DE' }]);
      const gamma = await f.ok(`${C}/records`, matched(ORG.GAMMA));
      assert.deepEqual(gamma.content.map((r: any) => r.partnerFields), [{}]);
    });

    test('matched accounts: partner keys filter and sort; unshared keys are unknown', async () => {
      const prospects = await f.ok(`${C}/records`, matched(ORG.ALPHA, { filters: { partneraccounttype: 'prosp-?-' } }));
      assert.deepEqual(prospects.content.map((r: any) => r.crmAccountId), ['A1']);
      const sorted = await f.ok(`${C}/records?sort=partneraccountname,desc`, matched(ORG.ALPHA));
      assert.deepEqual(sorted.content.map((r: any) => r.partnerFields.partneraccountname), ['Alpha Acct Two', 'Alpha Acct One']);
      const acv = await f.ok(`${C}/records`, matched(ORG.ALPHA, { filters: { partneraccountacv: '600<->' } }));
      assert.deepEqual(acv.content.map((r: any) => r.crmAccountId), ['A1']);
      const unshared = await f.problem(`${C}/records`, matched(ORG.BETA, { filters: { partneraccounttype: 'Secret Type' } }));
      assert.equal(unshared.errors![0]!.field, 'filters.partneraccounttype');
      const nothing = await f.problem(`${C}/records`, matched(ORG.GAMMA, { filters: { partneraccountname: 'Gamma-?-' } }));
      assert.equal(nothing.errors![0]!.field, 'filters.partneraccountname');
      const searched = await f.ok(`${C}/records`, matched(ORG.GAMMA, { search: 'hidden' }));
      assert.equal(searched.totalElements, 0);
      // A shared partner value is searched, in any case, as a fragment: only in partnerFields.
      const shared = await f.ok(`${C}/records`, matched(ORG.ALPHA, { search: 'CCT tWO' }));
      assert.deepEqual(shared.content.map((r: any) => r.partnerFields.partneraccountname), ['Alpha Acct Two']);
    });

    test('mapByLocations keeps matches in the same country, state and city (shared values only)', async () => {
      const alpha = await f.ok(`${C}/records`, matched(ORG.ALPHA, { mapByLocations: true, byOrg: false }));
      assert.deepEqual(alpha.content.map((r: any) => r.crmAccountId), ['A1'], 'PA1 is san francisco/ca/us (case-insensitive); PA2 has no state');
      const gamma = await f.ok(`${C}/records`, matched(ORG.GAMMA, { mapByLocations: true }));
      assert.equal(gamma.totalElements, 0, "Gamma's account is in Austin/TX/US like A3, but Gamma shares no location");
    });

    test('columns: standard, custom and partner classification rules', async () => {
      const alpha = await f.ok(`${C}/columns`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA });
      const partner = alpha.filter((c: any) => c.isPartnerData);
      assert.deepEqual(partner.map((c: any) => c.key), ['partneraccountname', 'partnercrmaccountid', 'partneraccounttype', 'partnerstreet', 'partnercity', 'partnerstate', 'partnerzipcode', 'partnercountry', 'partnerwebsite', 'partnerindustry', 'partnernumberofemployees', 'partnerannualrevenue', 'partneraccountacv', 'partneropenpipelineamount', 'partneropenoppcount', 'partnerclosedoppcount', 'partnerclosedwonoppcount', 'partneriscustomer', 'partnerowneridname', 'partnerowneridemail', 'partnerowneridtitle', 'partnerowneridphone', 'partnerowneriddivision', 'partnersegment']);
      for (const c of partner) assert.deepEqual([c.source, c.columnClassification], [null, null]);
      const standard = alpha.find((c: any) => c.key === 'accountName');
      assert.deepEqual([standard.source, standard.columnClassification, standard.isPartnerData], ['standard', 'STANDARD', false]);
      const custom = alpha.find((c: any) => c.key === 'custom_arr');
      assert.deepEqual([custom.source, custom.columnClassification, custom.isPartnerData], ['custom', 'CUSTOM_CRM_OBJECT', false]);
      const beta = await f.ok(`${C}/columns`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: ORG.BETA });
      assert.deepEqual(beta.filter((c: any) => c.isPartnerData).map((c: any) => c.key), ['partneraccountname', 'partnercountry']);
      // Spec 4.5: matchingType is optional on /columns (and not required on /filterdata); a given one must be MUTUAL.
      assert.deepEqual(await f.ok(`${C}/columns`, { channelReportType: MATCHED, companyPartnerPublicId: ORG.BETA }), beta);
      const values = await f.ok(`${C}/filterdata?filterField=accountName`, { channelReportType: MATCHED, companyPartnerPublicId: ORG.ALPHA });
      assert.deepEqual(values, await f.ok(`${C}/filterdata?filterField=accountName`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA }));
      assert.ok(values.content.length > 0);
      assert.equal((await f.problem(`${C}/columns`, { channelReportType: MATCHED, matchingType: 'ALL_PARTNER_ORGS', companyPartnerPublicId: ORG.BETA })).errors![0]!.field, 'matchingType');
      const gamma = await f.ok(`${C}/columns`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: ORG.GAMMA });
      assert.equal(gamma.filter((c: any) => c.isPartnerData).length, 0);
      const connected = await f.ok(`${C}/columns`, { channelReportType: CONNECTED });
      assert.deepEqual(connected.map((c: any) => c.key), ['partnerName', 'partnerWebsite', 'companyPartnerPublicId', 'partnerType', 'recommended', 'firstConnectedDate', 'mostRecentConnectedDate', 'lastPartnerSheetUploadDate', 'activeConnections', 'spreadsheetsShared', 'partnerOwner', 'partnerOwnerEmail', 'partnerOwnerPhone']);
      assert.deepEqual(connected.map((c: any) => c.type).slice(0, 5), ['name', 'string', 'string', 'string', 'boolean']);
    });

    test('filterdata: string values and ranges, byOrg accepted', async () => {
      const types = await f.ok(`${C}/filterdata?filterField=partnerType&page=0&size=10`, { channelReportType: CONNECTED, matchingType: 'ALL_PARTNER_ORGS', mapByLocations: false, byOrg: false });
      assert.deepEqual(types.content.map((c: any) => c.filterData), ['ISV', 'Reseller', 'SI']);
      const connections = await f.ok(`${C}/filterdata?filterField=activeConnections`, { channelReportType: CONNECTED });
      assert.deepEqual(connections.content, [{ filterData: null, filterRangeMin: 1, filterRangeMax: 3, filterType: 'NUMBER' }]);
      const partnerCities = await f.ok(`${C}/filterdata?filterField=partnercity`, matched(ORG.ALPHA));
      assert.deepEqual(partnerCities.content.map((c: any) => c.filterData), ['Oakland', 'san francisco']);
      const unshared = await f.problem(`${C}/filterdata?filterField=partneraccounttype`, matched(ORG.BETA));
      assert.equal(unshared.errors![0]!.field, 'filterField');
    });

    test('report names: the two report types with their standard columns', async () => {
      const res = await f.call('GET', `${C}/report-names`);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(body.map((r: any) => r.channelReportType), [CONNECTED, MATCHED]);
      assert.equal(typeof body[0].displayName, 'string');
      assert.ok(body[1].columns.some((c: any) => c.key === 'accountName'));
      assert.equal(body[1].columns.some((c: any) => c.isPartnerData), false);
    });

    test('a channelReportType that names no report is 404 on every operation, naming the field and the two reports, whatever else the request gets wrong', async () => {
      for (const op of ['records', 'columns', 'filterdata?filterField=accountName']) {
        for (const body of [
          { channelReportType: 'NOPE' },
          { channelReportType: MATCHED.toLowerCase(), matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA },
          { channelReportType: '' },
          { channelReportType: 'NOPE', matchingType: 'SOME', search: 5, filters: { nope: 'x' }, unknownField: 1 },
        ]) {
          const what = `${op} ${JSON.stringify(body)}`;
          const res = await f.call('POST', `${C}/${op}${op.includes('?') ? '&' : '?'}page=-1&sort=bogus`, body);
          assert.equal(res.statusCode, 404, `${what}: ${res.body}`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
          const problem = res.json();
          assert.equal(problem.status, 404, what);
          assert.match(problem.detail, /^unknown channelReportType ".*"; valid channel report types: PARTNER_ORG_CONNECTED_PARTNER_ORGS, PARTNER_ORG_MATCHED_ACCOUNTS$/, what);
          assert.deepEqual(problem.errors, [{ field: 'channelReportType', message: `must be one of ${CONNECTED}, ${MATCHED}, got ${JSON.stringify(body.channelReportType)}` }], what);
        }
      }
      // The key is checked first: the type is read from the body, which only a caller gets to send.
      assert.equal((await f.call('POST', `${C}/records`, { channelReportType: 'NOPE' }, '')).statusCode, 401);
    });

    test('errors: every problem listed, the same message for unknown and foreign partners', async () => {
      const missing = await f.problem(`${C}/records`, {});
      assert.equal(missing.errors![0]!.field, 'channelReportType');
      const missingAndBadMatching = await f.problem(`${C}/records`, { matchingType: 'SOME' });
      assert.deepEqual(missingAndBadMatching.errors!.map((e) => e.field), ['channelReportType', 'matchingType']);
      const notText = await f.problem(`${C}/records`, { channelReportType: 5, matchingType: 'SOME' });
      assert.deepEqual(notText.errors!.map((e) => e.field), ['channelReportType', 'matchingType']);
      const all = await f.problem(`${C}/records`, { channelReportType: MATCHED, filters: { nope: 'x' } });
      assert.deepEqual(all.errors!.map((e) => e.field), ['matchingType', 'companyPartnerPublicId', 'filters.nope']);
      const badType = await f.problem(`${C}/records`, { channelReportType: CONNECTED, matchingType: 'SOME' });
      assert.equal(badType.errors![0]!.field, 'matchingType');
      const other = await f.problem(`${C}/records`, matched(ORG.OTHER));
      const pending = await f.problem(`${C}/records`, matched(ORG.DELTA));
      const nowhere = await f.problem(`${C}/records`, matched('99999999-0000-4000-8000-000000000000'));
      const strip = (p: { errors?: Array<{ message: string }> }) => p.errors![0]!.message.replace(/"[^"]+"/, '"ID"');
      assert.equal(strip(other), strip(nowhere));
      assert.equal(strip(pending), strip(nowhere));
      const sort = await f.problem(`${C}/records?sort=bogus`, { channelReportType: CONNECTED });
      assert.equal(sort.errors![0]!.field, 'sort');
      const field = await f.problem(`${C}/records`, { channelReportType: CONNECTED, unknownField: 1 });
      assert.equal(field.errors![0]!.field, 'unknownField');
    });

    test('tenant isolation: another organization sees its own partners only', async () => {
      const page = await f.ok(`${C}/records`, { channelReportType: CONNECTED }, f.keys.other);
      assert.deepEqual(page.content.map((r: any) => r.companyPartnerPublicId), [ORG.ALPHA]);
      const accounts = await f.ok(`${C}/records`, matched(ORG.ALPHA), f.keys.other);
      assert.deepEqual(accounts.content.map((r: any) => r.accountName), ['Other Secret Account']);
      const beta = await f.problem(`${C}/records`, matched(ORG.BETA), 400, f.keys.other);
      assert.equal(beta.errors![0]!.field, 'companyPartnerPublicId');
    });

    test('the recommended flow of spec 4.5, end to end', async () => {
      // (1) list connected partners and read companyPartnerPublicId
      const partners = await f.ok(`${C}/records`, { channelReportType: CONNECTED });
      const id = partners.content.find((p: any) => p.partnerName === 'Alpha Partners').companyPartnerPublicId;
      // (2) list columns
      const columns = await f.ok(`${C}/columns`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: id });
      const cityKey = columns.find((c: any) => c.key === 'city').key;
      // (3) list filter values of a column
      const cities = await f.ok(`${C}/filterdata?filterField=${cityKey}&page=0&size=20`, { channelReportType: MATCHED, matchingType: 'MUTUAL', companyPartnerPublicId: id, mapByLocations: false, byOrg: false });
      const city = cities.content[0].filterData;
      // (4) + (5) fetch matched accounts with that id, page until last
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const res = await f.ok(`${C}/records?page=${page}&size=1`, matched(id, { filters: { [cityKey]: city } }));
        seen.push(...res.content.map((r: any) => r.crmAccountId));
        if (res.last) break;
        assert.ok(page < 10);
      }
      assert.deepEqual(seen, ['A2']);
      const everything: string[] = [];
      for (let page = 0; ; page++) {
        const res = await f.ok(`${C}/records?page=${page}&size=1`, matched(id));
        everything.push(...res.content.map((r: any) => r.crmAccountId));
        if (res.last) break;
      }
      assert.deepEqual(everything, ['A1', 'A2']);
      // The same ids work as context.partnerPublicIds of the attribution reports.
      const events = await f.ok('/v1/report-analytics/report/ATTRIBUTION_EVENTS/records', { context: { partnerPublicIds: partners.content.map((p: any) => p.companyPartnerPublicId), eventTypeCodes: ['ACTION_LIST'] } });
      assert.equal(events.totalElements, 2);
    });
  });
}

for (const engine of engines) {
  describe(`mapByLocations with missing values on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      // A2 (Oakland, US) loses its state, like its match PA2; PA1 loses its city.
      const accounts = BUNDLE.accounts!.map((a: any) => (a.crmAccountId === 'A2' ? { ...a, state: undefined } : a.crmAccountId === 'PA1' ? { ...a, city: undefined } : a));
      f = await fixtureApp(engine, { bundle: { accounts } });
    });
    after(() => f.close());

    test('two missing values are the same; a missing value and a present one are not', async () => {
      const alpha = await f.ok(`${C}/records`, matched(ORG.ALPHA, { mapByLocations: true }));
      assert.deepEqual(alpha.content.map((r: any) => r.crmAccountId), ['A2'], 'A2 and PA2: Oakland, no state, US; A1 has a city that PA1 lacks');
      const gamma = await f.ok(`${C}/records`, matched(ORG.GAMMA, { mapByLocations: true }));
      assert.equal(gamma.totalElements, 0, 'an unshared location still never matches');
    });
  });
}

for (const engine of engines) {
  describe(`partnerFields keys as the specification writes them, on ${engine.name}`, () => {
    // Alpha's account PA1 gains custom fields with underscores: one defined (a date), one
    // whose key is a standard field's once the underscore goes (account_type), one whose
    // key is that of a standard field not shared (crm_account_id), and one shared but
    // defined by no custom field (undef): neither of the last two is a key.
    const ALPHA_SHARES = ['name', 'accountType', 'country', 'custom.partnered_date', 'custom.account_type', 'custom.crm_account_id', 'custom.undef', 'custom.segment'];
    const bundle = {
      partnerships: BUNDLE.partnerships!.map((p: any) => (p.org === ORG.ACME && p.partner === ORG.ALPHA ? { ...p, sharedFields: ALPHA_SHARES } : p)),
      custom_fields: [
        ...BUNDLE.custom_fields!,
        { org: ORG.ALPHA, entity: 'account', key: 'partnered_date', title: 'Partnered Date', type: 'date', classification: 'CUSTOM_CRM_FIELD' },
        { org: ORG.ALPHA, entity: 'account', key: 'crm_account_id', title: 'Their CRM id', type: 'string', classification: 'CUSTOM_CRM_FIELD' },
      ],
      accounts: BUNDLE.accounts!.map((a: any) =>
        a.org === ORG.ALPHA && a.crmAccountId === 'PA1' ? { ...a, custom: { ...a.custom, partnered_date: 1_700_000_000, account_type: 'custom value', crm_account_id: 'qqcrmvalue', undef: 'qqundefvalue' } } : a,
      ),
    };
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { bundle });
    });
    after(() => f.close());

    test('custom keys lose their underscores, a standard key wins, and keys come in /columns order', async () => {
      const columns = (await f.ok(`${C}/columns`, matched(ORG.ALPHA))).filter((c: any) => c.isPartnerData).map((c: any) => c.key);
      assert.deepEqual(columns, ['partneraccountname', 'partneraccounttype', 'partnercountry', 'partnerpartnereddate', 'partnersegment']);
      const rows = (await f.ok(`${C}/records`, matched(ORG.ALPHA))).content;
      const pa1 = rows.find((r: any) => r.partnerFields.partnercrmaccountid === undefined && r.partnerFields.partneraccountname === 'Alpha Acct One');
      assert.deepEqual(Object.entries(pa1.partnerFields), [
        ['partneraccountname', 'Alpha Acct One'],
        ['partneraccounttype', 'Prospect'],
        ['partnercountry', 'us'],
        ['partnerpartnereddate', 1_700_000_000],
        ['partnersegment', 'Enterprise'],
      ]);
      for (const row of rows) assert.deepEqual(Object.keys(row.partnerFields), columns.filter((k: string) => k in row.partnerFields), 'every row in /columns order');
      // Neither value is found by a search or a filter either.
      for (const term of ['qqcrmvalue', 'qqundefvalue']) assert.equal((await f.ok(`${C}/records`, matched(ORG.ALPHA, { search: term }))).totalElements, 0, term);
      assert.equal((await f.problem(`${C}/records`, matched(ORG.ALPHA, { filters: { partnerundef: 'qqundefvalue' } }))).status, 400);
      // The key filters and sorts as its column says (a date).
      const dated = await f.ok(`${C}/records?sort=partnerpartnereddate,desc`, matched(ORG.ALPHA, { filters: { partnerpartnereddate: '1699999999<->1700000001' } }));
      assert.deepEqual(dated.content.map((r: any) => r.partnerFields.partneraccountname), ['Alpha Acct One']);
    });

    test('migration 0018 renames the keys of rows written by earlier imports', async () => {
      const db = f.database.db;
      const { sql } = await import('kysely');
      await sql`update rpt_matched_accounts set partner_fields = partner_fields - 'partnerpartnereddate' || jsonb_build_object('partnerpartnered_date', 42, 'partneraccount_type', 'custom value') where partner_fields ? 'partnerpartnereddate'`.execute(db);
      const { up } = await import('../../src/db/migrations/0018-partner-custom-keys.js');
      await up(db as never);
      const { rows } = await sql<{ f: Record<string, unknown> }>`select partner_fields as f from rpt_matched_accounts where partner_fields ? 'partnerpartnereddate'`.execute(db);
      assert.ok(rows.length > 0);
      for (const { f: fields } of rows) {
        assert.equal(fields.partnerpartnereddate, 42);
        assert.ok('partneraccounttype' in fields && fields.partneraccounttype !== 'custom value', 'the standard value stays');
      }
      const left = await sql<{ n: number }>`select count(*)::int as n from rpt_matched_accounts where exists (select 1 from jsonb_object_keys(partner_fields) k where strpos(k, '_') > 0)`.execute(db);
      assert.equal(left.rows[0]!.n, 0);
    });
  });
}

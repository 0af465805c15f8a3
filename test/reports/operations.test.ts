/**
 * filterdata, columns, download (CSV), dashboard and event types through HTTP, plus the
 * attempts to learn an unshared partner value or another tenant's data through each of
 * them and through filter, sort and search.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG, T0 } from '../fixtures/small-bundle.js';

const R = '/v1/report-analytics/report';
const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };

for (const engine of engines) {
  describe(`report operations on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    const values = async (url: string, body: object = {}) => (await f.ok(url, body)).content.map((c: any) => c.filterData);

    test('filterdata: distinct string values in text order, paged, filterSearch', async () => {
      const page = await f.ok(`${GVA}/filterdata?filterField=partner_org_name`, {});
      // The whole envelope of spec 2.1, as on /records (contract section 2), in its order.
      const unsorted = { unsorted: true, sorted: false, empty: true };
      assert.deepEqual(JSON.stringify(page), JSON.stringify({
        totalElements: 3,
        totalPages: 1,
        sort: unsorted,
        first: true,
        last: true,
        number: 0,
        pageable: { pageNumber: 0, pageSize: 20, sort: unsorted, offset: 0, unpaged: false, paged: true },
        numberOfElements: 3,
        size: 20,
        empty: false,
        content: ['Alpha Partners', 'Beta Resellers', 'gamma systems'].map((v) => ({ filterData: v, filterRangeMin: null, filterRangeMax: null, filterType: 'STRING' })),
        noDataFoundMessage: null,
      }));
      const second = await f.ok(`${GVA}/filterdata?filterField=partner_org_name&page=1&size=2`, {});
      assert.deepEqual([second.totalElements, second.totalPages, second.number, second.content.map((c: any) => c.filterData)], [3, 2, 1, ['gamma systems']]);
      assert.deepEqual([second.first, second.last, second.numberOfElements, second.empty, second.pageable.offset], [false, true, 1, false, 2]);
      // Paging by `last` (spec 4.1) reads every value once.
      const read: string[] = [];
      for (let n = 0, last = false; !last; n++) {
        const p = await f.ok(`${GVA}/filterdata?filterField=partner_org_name&page=${n}&size=2`, {});
        read.push(...p.content.map((c: any) => c.filterData));
        last = p.last;
      }
      assert.deepEqual(read, ['Alpha Partners', 'Beta Resellers', 'gamma systems']);
      const past = await f.ok(`${GVA}/filterdata?filterField=partner_org_name&page=5&size=2`, {});
      assert.deepEqual([past.content, past.last, past.empty, past.numberOfElements, past.noDataFoundMessage], [[], true, true, 0, null]);
      const none = await f.ok(`${GVA}/filterdata?filterField=partner_org_name&filterSearch=zzz`, {});
      assert.deepEqual([none.totalElements, none.totalPages, none.last, none.empty, none.noDataFoundMessage], [0, 0, true, true, 'No data found for the selected criteria']);
      assert.deepEqual((await f.ok(`${GVA}/filterdata?filterField=partner_org_name&sort=city`, {})).sort, { unsorted: false, sorted: true, empty: false });
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=account_name&filterSearch=ACME`), ['Acme Holdings', 'acme west']);
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=custom_ispartnerpaid`), ['false', 'true']);
    });

    test('filterdata: other filters, search and context narrow the values; a value works as an exact filter', async () => {
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=account_name`, { filters: { partner_org_name: 'gamma systems', account_name: 'x' } }), ['Beta_Corp 100%']);
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=partner_org_name`, { search: 'west' }), ['Alpha Partners']);
      const evTypes = await values(`${R}/ATTRIBUTION_EVENTS/filterdata?filterField=event_type_display_name`, { context: { ...CONTEXT, partnerPublicIds: [ORG.GAMMA] } });
      assert.deepEqual(evTypes, ['CRM Update', 'Workflow']);
      const [value] = await values(`${GVA}/filterdata?filterField=account_name&filterSearch=100%25`);
      const rows = await f.ok(`${GVA}/records`, { filters: { account_name: value } });
      assert.equal(rows.totalElements, 1);
    });

    test('filterdata: ranges for number, currency and date columns (null bounds without rows)', async () => {
      const amount = await f.ok(`${GVA}/filterdata?filterField=open_pipeline_amount`, {});
      assert.deepEqual(amount, {
        totalElements: 1, totalPages: 1, sort: { unsorted: true, sorted: false, empty: true }, first: true, last: true, number: 0,
        pageable: { pageNumber: 0, pageSize: 20, sort: { unsorted: true, sorted: false, empty: true }, offset: 0, unpaged: false, paged: true },
        numberOfElements: 1, size: 20, empty: false,
        content: [{ filterData: null, filterRangeMin: 200, filterRangeMax: 1000, filterType: 'CURRENCY' }], noDataFoundMessage: null,
      });
      const later = await f.ok(`${GVA}/filterdata?filterField=open_pipeline_amount&page=1`, {});
      assert.deepEqual([later.totalElements, later.content, later.first, later.last, later.empty], [1, [], false, true, true]);
      const employees = await f.ok(`${GVA}/filterdata?filterField=number_of_employees`, {});
      assert.equal(employees.content[0].filterType, 'NUMBER');
      const date = await f.ok(`${R}/ATTRIBUTION_EVENTS/filterdata?filterField=event_date`, { context: CONTEXT });
      assert.equal(date.content[0].filterType, 'DATE');
      assert.equal(date.content[0].filterRangeMin, T0 - 31 * 86400);
      const empty = await f.ok(`${GVA}/filterdata?filterField=open_pipeline_amount`, { filters: { account_name: 'none' } });
      assert.deepEqual(empty.content[0], { filterData: null, filterRangeMin: null, filterRangeMax: null, filterType: 'CURRENCY' });
      const unknown = await f.problem(`${GVA}/filterdata?filterField=bogus`, {});
      assert.equal(unknown.errors![0]!.field, 'filterField');
      const missing = await f.problem(`${GVA}/filterdata`, {});
      assert.equal(missing.errors![0]!.field, 'filterField', 'named as in the query, like the planner names it');
    });

    test('columns: metadata objects with the three classification rules', async () => {
      const columns = await f.ok(`${GVA}/columns`, {});
      const byKey = new Map(columns.map((c: any) => [c.key, c]));
      assert.deepEqual(Object.keys(columns[0]).sort(), ['active', 'color', 'columnClassification', 'columnIndex', 'crmAccountBaseUri', 'crmOpportunityBaseUri', 'isFromOtherFields', 'isHidden', 'isJson', 'isPartnerData', 'key', 'otherFieldsJsonPrefix', 'otherFieldsPrefix', 'prefix', 'source', 'title', 'type', 'values']);
      assert.deepEqual(columns.map((c: any) => c.columnIndex), columns.map((_: unknown, i: number) => i));
      const name: any = byKey.get('account_name');
      assert.deepEqual([name.source, name.columnClassification, name.isPartnerData, name.type, name.title], ['standard', 'STANDARD', false, 'string', 'Account Name']);
      const arr: any = byKey.get('custom_arr');
      assert.deepEqual([arr.source, arr.columnClassification, arr.isPartnerData, arr.type, arr.title], ['custom', 'CUSTOM_CRM_OBJECT', false, 'currency', 'ARR']);
      const partner: any = byKey.get('partner_account_name');
      assert.deepEqual([partner.source, partner.columnClassification, partner.isPartnerData], [null, null, true]);
      // Only the specification's value types (spec 2.3): a public id is a string there.
      assert.equal((byKey.get('partnerOrgPublicId') as any)?.type, 'string');
      for (const c of columns as any[]) assert.ok(['string', 'number', 'currency', 'date', 'boolean', 'name', 'email', 'title', 'phone'].includes(c.type), `${c.key}: ${c.type}`);
      for (const c of columns as any[]) {
        if (c.isPartnerData) assert.deepEqual([c.source, c.columnClassification], [null, null], c.key);
        else assert.ok(['standard', 'custom'].includes(c.source), c.key);
      }
      assert.ok(columns.findIndex((c: any) => c.key === 'custom_tier') > columns.findIndex((c: any) => c.key === 'partnerOrgPublicId'), 'custom columns come after the standard ones');
    });

    test('columns of the attribution reports: every partner_ key is partner data, every custom_ key (Group C too) a custom column', async () => {
      for (const report of ['PIPELINE_ATTRIBUTION_DETAIL', 'ATTRIBUTION_EVENTS']) {
        const columns: any[] = await f.ok(`${R}/${report}/columns`, {});
        const byKey = new Map(columns.map((c) => [c.key, c]));
        for (const c of columns) {
          if (c.key.startsWith('partner_')) assert.deepEqual([c.isPartnerData, c.source, c.columnClassification, c.prefix], [true, null, null, 'partner'], `${report} ${c.key}`);
          if (c.key.startsWith('custom_')) assert.deepEqual([c.isPartnerData, c.source, ['CUSTOM_CRM_FIELD', 'CUSTOM_CRM_OBJECT'].includes(c.columnClassification)], [false, 'custom', true], `${report} ${c.key}`);
        }
        assert.deepEqual([byKey.get('custom_event_note')?.columnClassification, byKey.get('custom_event_note')?.type], ['CUSTOM_CRM_FIELD', 'string'], report);
        assert.equal(byKey.get('partner_org_name')?.isPartnerData, true, report);
        assert.equal(byKey.get('company_partner_public_id')?.source, 'standard', report);
      }
    });

    test('download: CSV with header, quoting, CRLF, formula prefix, sort, every row', async () => {
      const res = await f.call('POST', `${R}/ATTRIBUTION_EVENTS/download?sort=event_name,asc&size=1`, { context: CONTEXT, columns: ['event_name', 'custom_event_note', 'event_date', 'is_customer', 'account_name'] });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(res.headers['content-disposition'], `attachment; filename="ATTRIBUTION_EVENTS-${new Date((T0 + 100 * 86400) * 1000).toISOString().slice(0, 10)}.csv"`);
      const lines = res.body.split('\r\n');
      assert.equal(lines[0], 'event_name,custom_event_note,event_date,is_customer,account_name');
      assert.equal(lines.length, 8, 'header, six rows (page and size do not apply), trailing CRLF');
      assert.equal(lines[7], '');
      assert.equal(lines[1], `After creation,,${T0 + 1},,Zeta`);
      assert.equal(lines[4], `List one,'+danger,${T0 - 10 * 86400},true,Acme Holdings`);
      const described = await f.call('POST', `${R}/ATTRIBUTION_EVENTS/download`, { context: CONTEXT, columns: ['event_name', 'event_description'], filters: { event_name: 'Intro flow' } });
      assert.equal(described.body, 'event_name,event_description\r\nIntro flow,"He said ""hi"", then\nleft"\r\n');
      const quoted = await f.call('POST', `${GVA}/download`, { columns: ['account_name', 'custom_tier'], filters: { account_name: 'Beta_Corp 100%' } });
      assert.equal(quoted.body, 'account_name,custom_tier\r\nBeta_Corp 100%,Bronze\r\n');
      const phone = await f.call('POST', `${R}/GLOBAL_VERTICAL_OPPORTUNITIES/download`, { columns: ['opportunity_owner_name', 'partner_owner_phone'], filters: { crm_opportunity_id: 'O1' } });
      assert.equal(phone.body, "opportunity_owner_name,partner_owner_phone\r\nOlive Owner,'+1 555 0100\r\n");
    });

    test('dashboard: totals and per-partner breakdown over the filtered rows', async () => {
      const all = await f.ok(`${GVA}/dashboard`, {});
      assert.deepEqual(all.totals, { overlappingAccounts: 3, overlaps: 4, partners: 3, customers: 2, openPipelineAmount: 1500, accountAcv: 550 });
      assert.deepEqual(all.byPartner[0], { partnerOrgPublicId: ORG.ALPHA, partnerOrgName: 'Alpha Partners', overlaps: 2, overlappingAccounts: 2, openPipelineAmount: 1200 });
      const filtered = await f.ok(`${GVA}/dashboard`, { filters: { partner_org_name: 'Beta Resellers' } });
      assert.deepEqual(filtered.totals, { overlappingAccounts: 1, overlaps: 1, partners: 1, customers: 1, openPipelineAmount: 1000, accountAcv: 500 });
      const events = await f.ok(`${R}/ATTRIBUTION_EVENTS/dashboard`, { context: CONTEXT });
      assert.deepEqual(events.totals, { events: 6, accounts: 4, partners: 3 });
      assert.deepEqual(events.byEventType.map((e: any) => [e.eventTypeCode, e.events]), [['WORKFLOW', 3], ['ACTION_LIST', 2], ['CRM_UPDATE', 1]]);
      const summary = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/dashboard`, { context: CONTEXT });
      assert.deepEqual(summary.totals, { newOpportunities: 3, pipeline: 3300, wonAmount: 2000, events: 4, averageDaysToNewOpp: 15, partners: 3 });
      const detail = await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/dashboard`, { context: CONTEXT, filters: { partner_org_name: 'Alpha Partners' } });
      assert.deepEqual(detail.totals, { newOpportunities: 2, events: 2, partners: 1, averageDaysToNewOpp: 15, pipeline: 3000, wonAmount: 2000 });
      const opps = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`, {});
      assert.deepEqual(opps.totals, { opportunities: 3, overlaps: 4, accounts: 3, partners: 3, amount: 3300, wonAmount: 2000, openAmount: 1000 });
    });

    test('opportunities dashboard: totals and breakdown equal the figures of the rows listed, filtered or not', async () => {
      const GVO = `${R}/GLOBAL_VERTICAL_OPPORTUNITIES`;
      let multi = 0;
      for (const filters of [{}, { is_won: 'true' }, { is_closed: 'false' }, { amount: '1<->' }, { partner_org_name: 'Alpha Partners' }, { stage_name: 'zz-!-' }, { crm_opportunity_id: 'none' }]) {
        const rows: Array<Record<string, any>> = (await f.ok(`${GVO}/records?size=2000`, { filters })).content;
        const dashboard = await f.ok(`${GVO}/dashboard`, { filters });
        // An opportunity's amount counts once however many partner rows it has; won / open if any row says so (won only when closed too).
        const opps = new Map<string, { amount: number | null; won: boolean; closed: boolean }>();
        for (const r of rows) {
          const o = opps.get(r.crm_opportunity_id) ?? { amount: null, won: false, closed: false };
          if (r.amount !== null && (o.amount === null || r.amount > o.amount)) o.amount = r.amount;
          o.won ||= r.is_won === true;
          o.closed ||= r.is_closed === true;
          opps.set(r.crm_opportunity_id, o);
        }
        const total = (keep: (o: { won: boolean; closed: boolean }) => boolean) => [...opps.values()].filter(keep).reduce((t, o) => t + (o.amount ?? 0), 0);
        assert.deepEqual(dashboard.totals, {
          opportunities: opps.size,
          overlaps: rows.length,
          accounts: new Set(rows.map((r) => r.crm_account_id)).size,
          partners: new Set(rows.map((r) => r.partnerOrgPublicId)).size,
          amount: total(() => true),
          wonAmount: total((o) => o.won && o.closed),
          openAmount: total((o) => !o.closed),
        }, JSON.stringify(filters));
        const partners = new Map<string, { opps: Map<string, number | null>; rows: number }>();
        for (const r of rows) {
          const p = partners.get(r.partnerOrgPublicId) ?? { opps: new Map(), rows: 0 };
          p.rows++;
          const had = p.opps.get(r.crm_opportunity_id);
          p.opps.set(r.crm_opportunity_id, had === undefined || had === null || (r.amount !== null && r.amount > had) ? r.amount : had);
          partners.set(r.partnerOrgPublicId, p);
        }
        assert.deepEqual(
          Object.fromEntries(dashboard.byPartner.map((p: any) => [p.partnerOrgPublicId, [p.opportunities, p.overlaps, p.amount]])),
          Object.fromEntries([...partners].map(([id, p]) => [id, [p.opps.size, p.rows, [...p.opps.values()].reduce((t: number, a) => t + (a ?? 0), 0)]])),
          JSON.stringify(filters),
        );
        if (rows.length > opps.size) multi++;
      }
      assert.ok(multi >= 1, 'some opportunity has more than one partner row');
    });

    test('event types: codes with display names and subtypes, in bundle order', async () => {
      const res = await f.call('GET', '/v1/attribution/event-types');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json()[0], { code: 'ACTION_LIST', displayName: 'Action List', group: 'Action List', subtypes: [{ code: 'CREATED', displayName: 'Created' }, { code: 'DOWNLOADED', displayName: 'Downloaded' }] });
      assert.deepEqual(res.json().map((t: any) => t.code), ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE']);
    });

    test('masking: unshared partner values are null and cannot be reached by any operation', async () => {
      // Beta shares name and country only; Gamma shares nothing. Their account type,
      // ACV and CRM id exist in the data ("Secret Type", 999, "PC1") but must never show.
      const rows = await f.ok(`${GVA}/records`, {});
      const beta = rows.content.find((r: any) => r.partner_org_name === 'Beta Resellers');
      assert.deepEqual([beta.partner_account_name, beta.partner_account_type, beta.partner_account_acv, beta.partner_crm_account_id], ['Beta Acct', null, null, null]);
      const gamma = rows.content.find((r: any) => r.partner_org_name === 'gamma systems');
      assert.deepEqual([gamma.partner_account_name, gamma.partner_account_acv, gamma.partner_crm_account_id], [null, null, null]);
      assert.equal(gamma.partner_org_partner_type, 'SI', 'the caller\'s own partnership record is always visible');

      const secrets = [{ partner_account_type: 'Secret Type' }, { partner_account_type: 'Secret-?-' }, { partner_account_name: 'Gamma-?-' }, { partner_crm_account_id: 'PC1' }, { partner_account_acv: '999<->999' }, { partner_account_acv: '100<->' }];
      for (const filters of secrets) {
        const page = await f.ok(`${GVA}/records`, { filters });
        assert.equal(page.content.some((r: any) => r.partner_org_name !== 'Alpha Partners'), false, JSON.stringify(filters));
      }
      const notEqual = await f.ok(`${GVA}/records`, { filters: { partner_account_type: 'Secret Type-!-' } });
      assert.equal(notEqual.totalElements, 4, 'a masked value is NULL for not-equal too');
      assert.equal((await f.ok(`${GVA}/records`, { search: 'Secret' })).totalElements, 0);
      assert.equal((await f.ok(`${GVA}/records`, { search: 'hidden' })).totalElements, 0);
      const sorted = await f.ok(`${GVA}/records?sort=partner_account_acv,desc`, {});
      assert.deepEqual(sorted.content.map((r: any) => r.partner_account_acv), [700, null, null, null]);
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=partner_account_type`), ['Prospect']);
      assert.deepEqual((await f.ok(`${GVA}/filterdata?filterField=partner_account_acv`, {})).content[0].filterRangeMax, 700);
      const csv = await f.call('POST', `${GVA}/download`, {});
      assert.equal(/Secret Type|Gamma Hidden Name|999|PC1/.test(csv.body), false);
    });

    test('tenant isolation: no row, value or total of another organization', async () => {
      const other = f.keys.other;
      const mine = await f.ok(`${GVA}/records`, {}, other);
      assert.deepEqual(mine.content.map((r: any) => r.account_name), ['Other Secret Account']);
      assert.equal(mine.content[0].custom_secret, 'classified');
      const acme = await f.ok(`${GVA}/records?size=100`, { search: 'secret' });
      assert.equal(acme.totalElements, 0);
      assert.deepEqual(await values(`${GVA}/filterdata?filterField=account_name&size=100`), ['Acme Holdings', 'acme west', 'Beta_Corp 100%']);
      const problem = await f.problem(`${GVA}/records`, { filters: { custom_secret: 'classified' } });
      assert.match(problem.errors![0]!.message, /unknown column/);
      const opps = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`, {});
      assert.equal(opps.totals.amount, 3300, "Other's 9999 opportunity is not counted");
      const events = await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'] } });
      assert.equal(events.content.some((r: any) => r.event_name === 'Other secret event'), false);
      const csv = await f.call('POST', `${R}/GLOBAL_VERTICAL_OPPORTUNITIES/download`, {});
      assert.equal(csv.body.includes('Other Secret'), false);
      const otherContext = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [ORG.BETA], eventTypeCodes: ['ACTION_LIST'] } }, 400, other);
      assert.match(otherContext.errors![0]!.message, /not a partner connected/);
    });
  });
}

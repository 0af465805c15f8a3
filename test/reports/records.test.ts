/**
 * /records of the five report-analytics reports through HTTP, on the small hand-made
 * bundle (test/fixtures/small-bundle.ts) whose rows are written down here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { DAY, ORG, T0 } from '../fixtures/small-bundle.js';

const R = '/v1/report-analytics/report';
const ALL = [ORG.ALPHA, ORG.BETA, ORG.GAMMA];
const CONTEXT = { partnerPublicIds: ALL, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };

const names = (page: { content: Array<Record<string, unknown>> }, ...keys: string[]) => page.content.map((r) => keys.map((k) => r[k]).join('|'));

for (const engine of engines) {
  describe(`records on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('GLOBAL_VERTICAL_ACCOUNTS: one row per (account, connected partner) in the default order', async () => {
      const page = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`);
      assert.deepEqual(names(page, 'crm_account_id', 'partner_org_name', 'partner_count'), ['A1|Alpha Partners|2', 'A1|Beta Resellers|2', 'A2|Alpha Partners|1', 'A3|gamma systems|1']);
      assert.equal(page.totalElements, 4);
      const row = page.content[0];
      assert.equal(row.partnerOrgPublicId, ORG.ALPHA);
      assert.equal(row.account_owner_email, 'olive@acme.test');
      assert.equal(row.customownername, 'Carl Custom');
      assert.equal(row.partner_first_match_date, T0 - 50 * DAY);
      assert.equal(row.prm_record_id, 'PRM-ALPHA');
      assert.equal(row.average_referral_deal_size, 25000);
      assert.equal(row.custom_tier, 'Gold');
      assert.equal(row.custom_score, 10);
      assert.equal(row.custom_arr, 100.5);
      assert.equal(row.custom_renewal, T0 + 30 * DAY);
      assert.equal(row.custom_ispartnerpaid, true);
      assert.equal(row.recent_open_opp_date, T0);
      assert.equal(row.recent_closed_opp_date, null);
      assert.equal(Object.keys(row).includes('custom_secret'), false, "another tenant's custom field never appears");
    });

    test('page envelope: first, second, last, past the end, clamp', async () => {
      const p0 = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=3`);
      assert.deepEqual(
        { ...p0, content: p0.content.length },
        {
          totalElements: 4, totalPages: 2, sort: { sorted: false, unsorted: true, empty: true }, first: true, last: false, number: 0,
          pageable: { pageNumber: 0, pageSize: 3, sort: { sorted: false, unsorted: true, empty: true }, offset: 0, unpaged: false, paged: true },
          numberOfElements: 3, size: 3, empty: false, content: 3, noDataFoundMessage: null,
        },
      );
      const p1 = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=3&page=1`);
      assert.deepEqual([p1.first, p1.last, p1.number, p1.numberOfElements, p1.pageable.offset], [false, true, 1, 1, 3]);
      assert.deepEqual(names(p1, 'crm_account_id'), ['A3']);
      const past = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=3&page=5`);
      assert.deepEqual([past.content.length, past.empty, past.last, past.totalElements, past.noDataFoundMessage], [0, true, true, 4, null]);
      // The sort state's keys in the specification's order (2.1), in both places.
      const sortedPage = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=city`);
      for (const state of [sortedPage.sort, sortedPage.pageable.sort]) assert.deepEqual(Object.entries(state), [['unsorted', false], ['sorted', true], ['empty', false]]);
      const clamped = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=5000`);
      assert.equal(clamped.size, 2000);
      assert.equal(clamped.pageable.pageSize, 2000);
      const none = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { filters: { account_name: 'nothing' } });
      assert.deepEqual([none.totalElements, none.totalPages, none.last, none.empty], [0, 0, true, true]);
      assert.equal(typeof none.noDataFoundMessage, 'string');
    });

    test('bad paging is 400 naming every bad parameter', async () => {
      const p = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?page=-1&size=0`, {});
      assert.deepEqual(p.errors!.map((e) => e.field), ['page', 'size']);
      const s = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=nope,asc`, {});
      assert.equal(s.errors![0]!.field, 'sort');
      // Names are taken as written: a padded property or direction is not guessed at.
      for (const sort of ['%20account_name', 'account_name%20', 'account_name,%20desc']) {
        const padded = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=${sort}`, {});
        assert.deepEqual(padded.errors!.map((e) => e.field), ['sort'], sort);
        assert.match(padded.errors![0]!.message, /unknown sort property " ?(account_name|desc) ?"/, sort);
      }
      // A direction that is neither asc nor desc reads as a property; the message says it is neither.
      const up = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=account_name,up`, {});
      assert.deepEqual(up.errors!.map((e) => e.field), ['sort']);
      assert.match(up.errors![0]!.message, /^unknown sort property "up" \(nor a direction: asc or desc\); sortable columns of /);
      const plain = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=up`, {});
      assert.match(plain.errors![0]!.message, /^unknown sort property "up"; sortable columns of /);
    });

    test('an unknown key is told every column of the report, once per answer', async () => {
      for (const report of ['GLOBAL_VERTICAL_ACCOUNTS', 'GLOBAL_VERTICAL_OPPORTUNITIES', 'ATTRIBUTION_EVENTS', 'PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL']) {
        const columns = ((await f.call('POST', `${R}/${report}/columns`, {})).json() as Array<{ key: string }>).map((c) => c.key);
        const p = await f.problem(`${R}/${report}/records?sort=nope`, { context: CONTEXT, filters: { zzz: 'x', yyy: 'y' } });
        assert.deepEqual(p.errors!.map((e) => e.field), ['filters.zzz', 'filters.yyy', 'sort'], report);
        const [first, second, sort] = p.errors!.map((e) => e.message) as [string, string, string];
        // Not cut off (the widest report's list is about 1,700 characters).
        assert.equal(first.includes('…'), false, `${report}: ${first}`);
        const listed = first.split(' (all of them: /columns): ')[1]!.split(', ');
        assert.deepEqual(columns.filter((k) => !listed.includes(k)), [], report);
        assert.match(second, new RegExp(`^unknown column "yyy"; filterable columns of ${report}: as listed for filters\\.zzz \\(all of them: /columns\\)$`));
        assert.match(sort, /^unknown sort property "nope"; sortable columns of \w+: as listed for filters\.zzz/);
      }
    });

    test('sort: text case-insensitively then by value, NULLs last both ways, multi-sort, tie-breaker', async () => {
      const asc = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=partner_account_type,asc&sort=crm_account_id,desc`);
      // partner_account_type: Alpha shares it (Prospect / null for PA2), Beta and Gamma do not (null).
      assert.deepEqual(names(asc, 'crm_account_id', 'partner_org_name'), ['A1|Alpha Partners', 'A3|gamma systems', 'A2|Alpha Partners', 'A1|Beta Resellers']);
      assert.equal(asc.sort.sorted, true);
      const desc = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=partner_account_type,desc&sort=crm_account_id`);
      assert.deepEqual(names(desc, 'crm_account_id', 'partner_org_name'), ['A1|Alpha Partners', 'A1|Beta Resellers', 'A2|Alpha Partners', 'A3|gamma systems']);
      const byName = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=partner_org_name,desc`);
      assert.deepEqual(names(byName, 'partner_org_name', 'crm_account_id'), ['gamma systems|A3', 'Beta Resellers|A1', 'Alpha Partners|A1', 'Alpha Partners|A2']);
      const amounts = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=account_acv,desc`);
      assert.deepEqual(names(amounts, 'crm_account_id', 'account_acv'), ['A1|500', 'A1|500', 'A2|50', 'A3|']);
      const booleans = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?sort=custom_ispartnerpaid`);
      assert.deepEqual(names(booleans, 'crm_account_id', 'custom_ispartnerpaid'), ['A3|false', 'A1|true', 'A1|true', 'A2|']);
    });

    test('GLOBAL_VERTICAL_OPPORTUNITIES: one row per opportunity and matched partner', async () => {
      const page = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/records`);
      assert.deepEqual(names(page, 'crm_opportunity_id', 'partner_org_name'), ['O2|Alpha Partners', 'O2|Beta Resellers', 'O1|Alpha Partners', 'O3|gamma systems']);
      const o1 = page.content[2];
      assert.equal(o1.org_name, 'Acme Corp');
      assert.equal(o1.amount, 1000);
      assert.equal(o1.crm_created_date, T0);
      assert.equal(o1.custom_source, 'Partner');
      assert.equal(o1.is_closed, false);
      assert.equal('account_owner_name' in o1, false, 'owner columns are not part of this report');
    });

    test('ATTRIBUTION_EVENTS: events of the chosen partners and types, newest first', async () => {
      const page = await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: CONTEXT });
      assert.deepEqual(names(page, 'event_name'), ['List download', 'After creation', 'Same day', 'List one', 'Intro flow', 'Too early']);
      const e1 = page.content[3];
      assert.deepEqual(
        [e1.account_name, e1.partner_org_name, e1.event_group_display_name, e1.event_type_display_name, e1.event_subtype_display_name, e1.company_partner_public_id, e1.custom_event_campaign_id, e1.custom_event_note, e1.top_parent_crm_account_name, e1.partner_status, e1.partner_owner_name],
        ['Acme Holdings', 'Alpha Partners', 'Action List', 'Action List', 'Created', ORG.ALPHA, 'CMP-1', '+danger', 'Acme Holdings', 'CONNECTED', 'Paula Owner'],
      );
      const alphaWorkflows = await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['WORKFLOW'] } });
      assert.deepEqual(names(alphaWorkflows, 'event_name'), ['After creation']);
    });

    test('PIPELINE_ATTRIBUTION_DETAIL: linked events per new opportunity, window edges inclusive', async () => {
      const page = await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/records`, { context: CONTEXT });
      assert.deepEqual(names(page, 'opp_crm_opportunity_id', 'event_name', 'number_days_to_new_opp', 'account_name'), [
        'O2|List download|20|Acme Holdings',
        'O1|List one|10|acme west',
        'O1|Intro flow|30|acme west',
        'O3|Same day|0|Beta_Corp 100%',
      ]);
      const o1 = page.content[1];
      assert.deepEqual([o1.opp_pt_status, o1.opp_account_name, o1.top_parent_crm_account_id, o1.opp_stage_name, o1.custom_source], ['OPEN', 'acme west', 'A1', 'Proposal', 'Partner']);
      assert.equal(page.content[0].opp_pt_status, 'WON');
      assert.equal(page.content[3].opp_pt_status, 'LOST');
    });

    test('PIPELINE_ATTRIBUTION_SUMMARY: counters over the events the context selects', async () => {
      const page = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: CONTEXT });
      assert.deepEqual(
        page.content.map((r: any) => [r.opp_crm_opportunity_id, r.action_lists_created_count, r.action_list_downloads_count, r.workflows_initiated_count, r.workflow_intros_completed_count, r.total_attribution_events, r.total_partners, r.top_parent_crm_account_name]),
        [
          ['O2', 0, 1, 0, 0, 1, 1, 'Acme Holdings'],
          ['O1', 1, 0, 1, 0, 2, 2, 'Acme Holdings'],
          ['O3', 0, 0, 0, 0, 1, 1, 'Beta_Corp 100%'],
        ],
      );
      // Only Alpha's action lists: O1 counts one event, O3 disappears (no counted event).
      const alpha = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'] } });
      assert.deepEqual(names(alpha, 'opp_crm_opportunity_id', 'total_attribution_events', 'total_partners'), ['O2|1|1', 'O1|1|1']);
    });

    test('context date windows: inclusive bounds, precedence over day counts, last N days from now', async () => {
      const events = async (context: object) => names(await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: { ...CONTEXT, ...context } }), 'event_name');
      assert.deepEqual(await events({ eventDateStart: String(T0 - 10 * DAY), eventDateEnd: String(T0) }), ['Same day', 'List one']);
      assert.deepEqual(await events({ eventDateStart: T0 - 10 * DAY + 1, eventDateEnd: T0 - 1 }), []);
      // Both bounds set: dateRangeDays is ignored.
      assert.deepEqual(await events({ eventDateStart: T0, eventDateEnd: T0 + 1, dateRangeDays: 1 }), ['After creation', 'Same day']);
      // Now = T0 + 100 days: the last 80 days start at T0 + 20 days (inclusive).
      assert.deepEqual(await events({ dateRangeDays: 80 }), ['List download']);
      assert.deepEqual(await events({ dateRangeDays: 79 }), []);
      // Fractional and out-of-range bounds select what the whole seconds select (never a 400 or 500).
      assert.deepEqual(await events({ eventDateStart: String(T0 - 10 * DAY - 0.5), eventDateEnd: T0 + 0.9 }), ['Same day', 'List one']);
      assert.deepEqual(await events({ eventDateStart: '-99999999999999999999', eventDateEnd: '99999999999999999999', dateRangeDays: 1e300 }), await events({}));
      assert.deepEqual(await events({ dateRangeDays: 9007199254740991 }), await events({}));
      const ranged = await f.ok(`${R}/ATTRIBUTION_EVENTS/records`, { context: CONTEXT, filters: { event_date: `${T0 - 0.5}<->99999999999999999999` } });
      assert.deepEqual(names(ranged, 'event_name'), ['List download', 'After creation', 'Same day']);

      const summary = async (context: object) => names(await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: { ...CONTEXT, ...context } }), 'opp_crm_opportunity_id');
      // The event window limits which events are rolled up: only E1 (T0-10d) -> O1 keeps one event.
      const windowed = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: { ...CONTEXT, eventDateStart: T0 - 10 * DAY, eventDateEnd: T0 - 10 * DAY } });
      assert.deepEqual(names(windowed, 'opp_crm_opportunity_id', 'total_attribution_events'), ['O1|1']);
      // The opportunity window limits which opportunities appear.
      assert.deepEqual(await summary({ oppCreatedDateStart: T0 + 40 * DAY, oppCreatedDateEnd: T0 + 40 * DAY }), ['O2']);
      assert.deepEqual(await summary({ oppCreatedDateDays: 60 }), ['O2']);
      assert.deepEqual(await summary({ oppCreatedDateDays: 59 }), []);
      const detail = await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/records`, { context: { ...CONTEXT, oppCreatedDateStart: T0, oppCreatedDateEnd: T0 } });
      assert.deepEqual(names(detail, 'event_name'), ['List one', 'Intro flow', 'Same day']);
    });

    test('context errors are 400 listing every problem', async () => {
      const missing = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { partnerPublicIds: [], eventTypeCodes: [] } });
      assert.deepEqual(missing.errors!.map((e) => e.field), ['context.partnerPublicIds', 'context.eventTypeCodes']);
      const none = await f.problem(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, {});
      assert.deepEqual(none.errors!.map((e) => [e.field, e.message]), [
        ['context.partnerPublicIds', 'is required for PIPELINE_ATTRIBUTION_SUMMARY (the body has no context)'],
        ['context.eventTypeCodes', 'is required for PIPELINE_ATTRIBUTION_SUMMARY (the body has no context)'],
      ]);
      const bad = await f.problem(`${R}/PIPELINE_ATTRIBUTION_DETAIL/records`, {
        context: { partnerPublicIds: [ORG.DELTA, ORG.OTHER, '99999999-0000-4000-8000-000000000000'], eventTypeCodes: ['NOPE'], eventDateStart: 'yesterday', eventDateEnd: '1', oppCreatedDateEnd: '5' },
      });
      assert.deepEqual(bad.errors!.map((e) => e.field), ['context.partnerPublicIds[0]', 'context.partnerPublicIds[1]', 'context.partnerPublicIds[2]', 'context.eventTypeCodes[0]', 'context.eventDateStart', 'context.oppCreatedDateStart']);
      // The same message whether the organization exists (OTHER) or not.
      assert.equal(bad.errors![1]!.message.replace(ORG.OTHER, 'X'), bad.errors![2]!.message.replace('99999999-0000-4000-8000-000000000000', 'X'));
      const order = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { ...CONTEXT, eventDateStart: '10', eventDateEnd: '5' } });
      assert.match(order.errors![0]!.message, /after/);
      const negative = await f.problem(`${R}/ATTRIBUTION_EVENTS/records`, { context: { ...CONTEXT, dateRangeDays: -1 } });
      assert.match(negative.errors![0]!.field, /dateRangeDays/);
      // A negative day count is listed together with every other context problem.
      const all = await f.problem(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: { partnerPublicIds: [], dateRangeDays: -1, oppCreatedDateDays: -2 } });
      assert.deepEqual(all.errors!.map((e) => e.field), ['context.partnerPublicIds', 'context.eventTypeCodes', 'context.dateRangeDays', 'context.oppCreatedDateDays']);
    });

    test('unknown report type is 404 naming the five', async () => {
      const p = await f.problem(`${R}/NOT_A_REPORT/records`, {}, 404);
      for (const id of ['PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL', 'ATTRIBUTION_EVENTS', 'GLOBAL_VERTICAL_ACCOUNTS', 'GLOBAL_VERTICAL_OPPORTUNITIES']) assert.match(p.detail, new RegExp(id));
    });

    test('unknown body fields are 400; column selection keeps order', async () => {
      const p = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { filter: {} });
      assert.equal(p.errors![0]!.field, 'filter');
      const res = await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=1`, { columns: ['partner_org_name', 'custom_tier', 'account_name'] });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /"content":\[\{"partner_org_name":"Alpha Partners","custom_tier":"Gold","account_name":"Acme Holdings"\}\]/);
      const bad = await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { columns: ['account_name', 'bogus'] });
      assert.equal(bad.errors![0]!.field, 'columns[1]');
    });

    test('optional body fields sent as null are absent (clients built from the DTOs send them); unknown and required ones are not', async () => {
      const plain = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=2000`, {});
      assert.ok(plain.content.length > 0);
      for (const operation of ['records?size=2000', 'filterdata?filterField=country', 'columns', 'dashboard']) {
        const asNulls = await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/${operation}`, { filters: null, search: null, columns: null, context: null });
        assert.equal(asNulls.statusCode, 200, `${operation}: ${asNulls.body}`);
        assert.equal(asNulls.body, (await f.call('POST', `${R}/GLOBAL_VERTICAL_ACCOUNTS/${operation}`, {})).body, operation);
      }
      // Inside the attribution context too: its unset bounds and day counts.
      const context = { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['WORKFLOW'] };
      const withNulls = await f.call('POST', `${R}/ATTRIBUTION_EVENTS/records`, { context: { ...context, dateRangeDays: null, eventDateStart: null, eventDateEnd: null, oppCreatedDateDays: null } });
      assert.equal(withNulls.statusCode, 200, withNulls.body);
      assert.equal(withNulls.body, (await f.call('POST', `${R}/ATTRIBUTION_EVENTS/records`, { context })).body);
      // A misspelt field is refused whatever its value, a null filter value keeps its type check.
      assert.equal((await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { filter: null })).errors![0]!.field, 'filter');
      assert.equal((await f.problem(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { filters: { country: null } })).errors![0]!.field, 'filters.country');
      // The channel body: its optional fields likewise; channelReportType is required.
      const channel = await f.call('POST', '/v1/channelecosystem/records', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS', companyPartnerPublicId: null, matchingType: null, search: null, byOrg: null });
      assert.equal(channel.statusCode, 200, channel.body);
      assert.equal(channel.body, (await f.call('POST', '/v1/channelecosystem/records', { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS' })).body);
      assert.equal((await f.call('POST', '/v1/channelecosystem/records', { channelReportType: null })).statusCode, 400);
    });

    test('search: every term in some textual column, custom ones included', async () => {
      const s = async (search: string) => names(await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, { search }), 'crm_account_id', 'partner_org_name');
      assert.deepEqual(await s('ACME alpha'), ['A1|Alpha Partners', 'A2|Alpha Partners']);
      assert.deepEqual(await s('bronze'), ['A3|gamma systems']);
      assert.deepEqual(await s('100%'), ['A3|gamma systems']);
      assert.deepEqual(await s('_corp'), ['A3|gamma systems']);
      assert.deepEqual(await s('zzz'), []);
    });

    test('many search or contains terms: a 400 naming the field, past the limit; the limit itself is answered', async () => {
      const GVA = `${R}/GLOBAL_VERTICAL_ACCOUNTS`;
      // 70,000 terms, each a condition with its own bound parameter, were past PostgreSQL's
      // 65,535 parameters a statement: a 503 ("retry") after seconds, on both engines.
      const terms = (n: number, term: string) => Array.from({ length: n }, () => term);
      for (const op of ['records', 'filterdata?filterField=city', 'dashboard', 'download']) {
        const search = await f.problem(`${GVA}/${op}`, { search: terms(70_000, 'a').join(' ') });
        assert.deepEqual(search.errors, [{ field: 'search', message: 'has 70000 terms: at most 100 (every term must occur in the row)' }], op);
        const contains = await f.problem(`${GVA}/${op}`, { filters: { account_name: `${terms(70_000, 'a').join('-,-')}-?-` } });
        assert.deepEqual(contains.errors, [{ field: 'filters.account_name', message: 'has 70000 terms: "contains" takes at most 100' }], op);
        const doesNot = await f.problem(`${GVA}/${op}`, { filters: { account_name: `${terms(85_000, 'zz').join('-,-')}-^-` } });
        assert.deepEqual(doesNot.errors, [{ field: 'filters.account_name', message: 'has 85000 terms: "does not contain" takes at most 100' }], op);
      }
      assert.equal((await f.problem(`${GVA}/records`, { search: terms(101, 'acme').join(' ') })).errors![0]!.field, 'search');
      assert.equal((await f.problem(`${GVA}/records`, { filters: { account_name: `${terms(101, 'a').join('-,-')}-?-` } })).errors![0]!.field, 'filters.account_name');
      // At the limit: the same rows as one term (every term is the same).
      const one = names(await f.ok(`${GVA}/records`, { search: 'acme' }), 'crm_account_id');
      assert.ok(one.length > 0);
      assert.deepEqual(names(await f.ok(`${GVA}/records`, { search: terms(100, 'acme').join(' ') }), 'crm_account_id'), one);
      const containsOne = names(await f.ok(`${GVA}/records`, { filters: { account_name: 'acme-?-' } }), 'crm_account_id');
      assert.ok(containsOne.length > 0);
      assert.deepEqual(names(await f.ok(`${GVA}/records`, { filters: { account_name: `${terms(100, 'acme').join('-,-')}-?-` } }), 'crm_account_id'), containsOne);
      assert.equal((await f.ok(`${GVA}/records`, { filters: { account_name: `${terms(100, 'zz').join('-,-')}-^-` } })).totalElements, (await f.ok(`${GVA}/records`, {})).totalElements);
      // Exact and not equal test one array by hash: many values are answered.
      assert.equal((await f.ok(`${GVA}/records`, { filters: { account_name: `${terms(70_000, 'zz').join('-,-')}-!-` } })).totalElements, (await f.ok(`${GVA}/records`, {})).totalElements);
      assert.equal((await f.ok(`${GVA}/records`, { filters: { account_name: terms(70_000, 'zz').join('-,-') } })).totalElements, 0);
    });
  });
}

/**
 * The filter language through HTTP: every operation on every column type it applies to,
 * each with a row that must match and one that must not, and each unsupported operation.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { DAY, ORG, T0 } from '../fixtures/small-bundle.js';

const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/records';
const EVENTS = '/v1/report-analytics/report/ATTRIBUTION_EVENTS/records';
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };

for (const engine of engines) {
  describe(`filters on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    /** Distinct crm_account_id of the matching GLOBAL_VERTICAL_ACCOUNTS rows. */
    const accounts = async (filters: Record<string, string>) => {
      const page = await f.ok(`${GVA}?size=100`, { filters });
      return [...new Set(page.content.map((r: any) => r.crm_account_id))].sort();
    };

    test('string exact: case-sensitive, any of several values, NULL never matches', async () => {
      assert.deepEqual(await accounts({ account_name: 'acme west' }), ['A2']);
      assert.deepEqual(await accounts({ account_name: 'ACME WEST' }), []);
      assert.deepEqual(await accounts({ account_name: 'acme west-,-Acme Holdings' }), ['A1', 'A2']);
      assert.deepEqual(await accounts({ state: 'CA-,-TX' }), ['A1', 'A2', 'A3']);
    });

    test('not equal excludes every listed value and keeps NULL rows', async () => {
      // industry: A1 Software, others NULL.
      assert.deepEqual(await accounts({ industry: 'Software-!-' }), ['A2', 'A3']);
      assert.deepEqual(await accounts({ state: 'CA-,-TX-!-' }), []);
      assert.deepEqual(await accounts({ custom_tier: 'Gold-,-Silver-!-' }), ['A3']);
    });

    test('contains: case-insensitive, every term must occur, LIKE metacharacters literal', async () => {
      assert.deepEqual(await accounts({ account_name: 'ACME-?-' }), ['A1', 'A2']);
      assert.deepEqual(await accounts({ account_name: 'acme-,-west-?-' }), ['A2']);
      assert.deepEqual(await accounts({ account_name: '100%-?-' }), ['A3']);
      assert.deepEqual(await accounts({ account_name: '%-?-' }), ['A3']);
      assert.deepEqual(await accounts({ account_name: 'e_t-?-' }), [], 'as a wildcard, _ would match "west"');
      assert.deepEqual(await accounts({ account_name: '_-?-' }), ['A3']);
      assert.deepEqual(await accounts({ industry: 'soft-?-' }), ['A1']);
    });

    test('does not contain: no term may occur; NULL rows stay', async () => {
      assert.deepEqual(await accounts({ account_name: 'acme-^-' }), ['A3']);
      assert.deepEqual(await accounts({ account_name: 'west-,-beta-^-' }), ['A1']);
      assert.deepEqual(await accounts({ industry: 'SOFT-^-' }), ['A2', 'A3']);
    });

    test('backslash is literal in contains and does not contain', async () => {
      // A2's divisions is North\East; as an escape character, \E would match any "e".
      assert.deepEqual(await accounts({ divisions: '\\E-?-' }), ['A2']);
      assert.deepEqual(await accounts({ account_name: '\\-?-' }), []);
      assert.deepEqual(await accounts({ divisions: 'h\\e-^-' }), ['A1', 'A3']);
      const matches = await f.ok('/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS/filterdata?filterField=account_name', { filters: { account_name: '\\-?-' } });
      assert.deepEqual(matches.content.map((c: any) => c.filterData), ['Acme Holdings', 'acme west', 'Beta_Corp 100%'], 'the filter on filterField itself is ignored');
    });

    test('range on number, currency, date and custom columns: inclusive, open sides', async () => {
      assert.deepEqual(await accounts({ open_pipeline_amount: '200<->300' }), ['A2', 'A3']);
      assert.deepEqual(await accounts({ open_pipeline_amount: '200.5<->' }), ['A1', 'A3']);
      assert.deepEqual(await accounts({ open_pipeline_amount: '<->199.99' }), []);
      assert.deepEqual(await accounts({ number_of_employees: '500<->500' }), ['A1']);
      assert.deepEqual(await accounts({ recent_open_opp_date: `${T0}<->${T0}` }), ['A1']);
      assert.deepEqual(await accounts({ recent_open_opp_date: `${T0 + 1}<->` }), []);
      assert.deepEqual(await accounts({ partner_first_match_date: `${T0 - 30 * DAY}<->${T0}` }), ['A2', 'A3']);
      assert.deepEqual(await accounts({ custom_score: '6<->10' }), ['A1']);
      assert.deepEqual(await accounts({ custom_arr: '100<->101' }), ['A1']);
      assert.deepEqual(await accounts({ custom_renewal: `${T0}<->` }), ['A1']);
    });

    test('boolean exact: true / false; several values ORed', async () => {
      assert.deepEqual(await accounts({ custom_ispartnerpaid: 'true' }), ['A1']);
      assert.deepEqual(await accounts({ custom_ispartnerpaid: 'false' }), ['A3']);
      assert.deepEqual(await accounts({ custom_ispartnerpaid: 'true-,-false' }), ['A1', 'A3']);
      const events = await f.ok(`${EVENTS}?size=100`, { context: CONTEXT, filters: { is_customer: 'true' } });
      assert.deepEqual([...new Set(events.content.map((r: any) => r.crm_account_id))].sort(), ['A1', 'A3']);
    });

    test('textual types (name, email, phone, uuid) take the string operations', async () => {
      assert.deepEqual(await accounts({ account_owner_name: 'olive-?-' }), ['A1']);
      assert.deepEqual(await accounts({ account_owner_email: 'olive@acme.test' }), ['A1']);
      assert.deepEqual(await accounts({ partnerOrgPublicId: ORG.GAMMA }), ['A3']);
      assert.deepEqual(await accounts({ partner_owner_phone: '555-?-' }), ['A1', 'A2']);
    });

    test('all entries are ANDed', async () => {
      assert.deepEqual(await accounts({ account_name: 'acme-?-', partner_org_name: 'Beta Resellers' }), ['A1']);
      assert.deepEqual(await accounts({ account_name: 'acme-?-', custom_tier: 'Bronze' }), []);
    });

    test('unsupported operations and bad values are 400 naming the column, its type and what it supports', async () => {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [{ account_name: '1<->2' }, /account_name.*string: it supports exact match, not equal \(-!-\), contains \(-\?-\), does not contain \(-\^-\), not range/],
        [{ open_pipeline_amount: '100' }, /currency: it supports range \(min<->max\), not exact/],
        [{ number_of_employees: '1-!-' }, /number: it supports range/],
        [{ recent_open_opp_date: 'x-?-' }, /date: it supports range/],
        [{ custom_ispartnerpaid: 'true-!-' }, /boolean: it supports exact match, not not equal/],
        [{ custom_ispartnerpaid: 'maybe' }, /"true" or "false"/],
        [{ custom_score: '5<->1' }, /greater than max/],
        [{ custom_score: 'a<->b' }, /must be numbers/],
        [{ account_name: '' }, /no value/],
        [{ account_name: 'a-,--,-b' }, /empty value/],
        [{ nope: 'x' }, /unknown column "nope"/],
      ];
      for (const [filters, message] of cases) {
        const p = await f.problem(GVA, { filters });
        assert.equal(p.errors!.length, 1, JSON.stringify(filters));
        assert.equal(p.errors![0]!.field, `filters.${Object.keys(filters)[0]}`);
        assert.match(p.errors![0]!.message, message, JSON.stringify(filters));
      }
      const all = await f.problem(GVA, { filters: { account_name: '1<->2', nope: 'x', open_pipeline_amount: 'x' } });
      assert.equal(all.errors!.length, 3, 'every bad filter is reported at once');
      const typed = await f.problem(GVA, { filters: { account_name: 5 } });
      assert.equal(typed.errors![0]!.field, 'filters.account_name');
    });
  });
}

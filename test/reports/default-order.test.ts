/**
 * The default order (docs/api.md, "Paging and sorting") is the documented keys under the
 * text rule of contract section 2: ids that differ only in case come lower-cased first
 * (`s-1`, `S-2`, `T-0`), the same order an explicit `sort` by those keys gives. And the
 * partner account that ends the global reports' and matched accounts' order is ordered by
 * what the caller can see of it: an id the partner does not share orders nothing
 * (contract section 3).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, DAY, ORG, T0 } from '../fixtures/small-bundle.js';

const R = '/v1/report-analytics/report';
const IDS = ['S-2', 'T-0', 's-1']; // raw code point order; the text order is s-1, S-2, T-0
const OPPS = ['Q-2', 'R-0', 'q-1'];
const EVENTS = ['V-2', 'W-0', 'v-1'];
const DAY_OF_EVENTS = T0 + 200 * DAY;
// Beta shares `name` but not `crmAccountId`: its hidden ids sort opposite to its names.
const BETA_ACCOUNTS = [
  { id: 'PB-A', name: 'Zephyr' },
  { id: 'PB-Z', name: 'Alder' },
];

const bundle = {
  accounts: [
    ...BUNDLE.accounts!,
    ...IDS.map((id) => ({ org: ORG.ACME, crmAccountId: id, name: 'Same' })),
    ...BETA_ACCOUNTS.map((a) => ({ org: ORG.BETA, crmAccountId: a.id, name: a.name })),
  ],
  account_matches: [
    ...BUNDLE.account_matches!,
    ...IDS.map((id) => ({ org: ORG.ACME, crmAccountId: id, partner: ORG.ALPHA, partnerCrmAccountId: 'PA1', firstMatchDate: T0 })),
    ...BETA_ACCOUNTS.map((a) => ({ org: ORG.ACME, crmAccountId: 's-1', partner: ORG.BETA, partnerCrmAccountId: a.id, firstMatchDate: T0 })),
  ],
  opportunities: [...BUNDLE.opportunities!, ...OPPS.map((id) => ({ org: ORG.ACME, crmOpportunityId: id, crmAccountId: 's-1', name: 'Deal', createdDate: DAY_OF_EVENTS + DAY }))],
  events: [
    ...BUNDLE.events!,
    ...EVENTS.map((id) => ({ org: ORG.ACME, eventId: id, eventDate: DAY_OF_EVENTS, eventTypeCode: 'ACTION_LIST', eventSubtypeCode: 'CREATED', crmAccountId: 's-1', partner: ORG.ALPHA, eventName: id })),
  ],
};
const textOrder = (ids: string[]) => [...ids].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : a < b ? -1 : 1));
const context = { partnerPublicIds: [ORG.ALPHA], eventTypeCodes: ['ACTION_LIST'], eventDateStart: String(DAY_OF_EVENTS), eventDateEnd: String(DAY_OF_EVENTS) };
const any = (values: string[]) => values.join('-,-');

for (const engine of engines) {
  describe(`default order on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine, { bundle });
    });
    after(() => f.close());

    /** The rows of a request without sort and with the documented keys as `sort`: the same. */
    const both = async (report: string, body: object, keys: string[], columns: string[]) => {
      const plain = (await f.ok(`${R}/${report}/records?size=2000`, { ...body, columns })).content;
      const sorted = (await f.ok(`${R}/${report}/records?size=2000&${keys.map((k) => `sort=${k}`).join('&')}`, { ...body, columns })).content;
      assert.deepEqual(plain, sorted, `${report}: no sort against sort=${keys}`);
      return plain as Array<Record<string, unknown>>;
    };

    test('GLOBAL_VERTICAL_ACCOUNTS: account ids in text order; hidden partner account ids order nothing', async () => {
      const rows = await both('GLOBAL_VERTICAL_ACCOUNTS', { filters: { crm_account_id: any(IDS) } }, ['account_name', 'crm_account_id', 'partner_org_name', 'partnerOrgPublicId'], ['crm_account_id', 'partner_org_name', 'partner_account_name', 'partner_crm_account_id']);
      assert.deepEqual(
        rows.map((r) => [r.crm_account_id, r.partner_org_name, r.partner_account_name, r.partner_crm_account_id]),
        [
          ['s-1', 'Alpha Partners', 'Alpha Acct One', 'PA1'],
          ['s-1', 'Beta Resellers', 'Alder', null],
          ['s-1', 'Beta Resellers', 'Zephyr', null],
          ['S-2', 'Alpha Partners', 'Alpha Acct One', 'PA1'],
          ['T-0', 'Alpha Partners', 'Alpha Acct One', 'PA1'],
        ],
      );
    });

    test('GLOBAL_VERTICAL_OPPORTUNITIES: opportunity ids in text order, each with its partner accounts by what is shared', async () => {
      const rows = await both('GLOBAL_VERTICAL_OPPORTUNITIES', { filters: { crm_opportunity_id: any(OPPS) } }, ['account_name', 'opportunity_name', 'crm_opportunity_id', 'partner_org_name', 'partnerOrgPublicId'], ['crm_opportunity_id', 'partner_account_name']);
      assert.deepEqual(
        rows.map((r) => [r.crm_opportunity_id, r.partner_account_name]),
        textOrder(OPPS).flatMap((id) => [[id, 'Alpha Acct One'], [id, 'Alder'], [id, 'Zephyr']]),
      );
    });

    test('attribution reports: event and opportunity ids in text order', async () => {
      const events = await both('ATTRIBUTION_EVENTS', { context }, ['event_date,desc'], ['event_name']);
      assert.deepEqual(events.map((r) => r.event_name), textOrder(EVENTS));
      const summary = await both('PIPELINE_ATTRIBUTION_SUMMARY', { context }, ['opp_created_date,desc', 'opp_crm_opportunity_id'], ['opp_crm_opportunity_id']);
      assert.deepEqual(summary.map((r) => r.opp_crm_opportunity_id), textOrder(OPPS));
      const detail = await both('PIPELINE_ATTRIBUTION_DETAIL', { context }, ['opp_created_date,desc', 'opp_crm_opportunity_id', 'event_date,desc'], ['opp_crm_opportunity_id', 'event_name']);
      assert.deepEqual(
        detail.map((r) => [r.opp_crm_opportunity_id, r.event_name]),
        textOrder(OPPS).flatMap((o) => textOrder(EVENTS).map((e) => [o, e])),
      );
    });

    test('PARTNER_ORG_MATCHED_ACCOUNTS: account ids in text order; a hidden partner account id orders nothing', async () => {
      const page = async (partner: string, sort = '') =>
        (await f.ok(`/v1/channelecosystem/records?size=2000${sort}`, { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: partner, filters: { crmAccountId: any(IDS) } })).content as Array<Record<string, any>>;
      const alpha = await page(ORG.ALPHA);
      assert.deepEqual(alpha.map((r) => r.crmAccountId), textOrder(IDS));
      assert.deepEqual(alpha, await page(ORG.ALPHA, '&sort=accountName&sort=crmAccountId'));
      const beta = await page(ORG.BETA);
      assert.deepEqual(beta.map((r) => [r.crmAccountId, r.partnerFields.partneraccountname, r.partnerFields.partnercrmaccountid]), [['s-1', 'Alder', undefined], ['s-1', 'Zephyr', undefined]]);
    });
  });
}

/**
 * Dashboard figures that are easy to get subtly wrong, on the stored (import-time), the
 * computed and the plain paths alike: an account matched to one partner through two of
 * the partner's accounts counts once in that partner's pipeline; decimal amounts add up
 * as decimals (0.1 + 0.2 is 0.3); an opportunity won but not closed is OPEN and adds no
 * won amount; every report's figures come in the documented key order
 * (docs/api.md "Dashboard"), whichever path computed them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { BUNDLE, ORG } from '../fixtures/small-bundle.js';
import { sql } from 'kysely';
import { up as recountStoredDashboards } from '../../src/db/migrations/0016-stored-dashboards-recount.js';
import { up as dashboardNameOrder } from '../../src/db/migrations/0021-dashboard-name-order.js';

const R = '/v1/report-analytics/report';
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };

const AMOUNTS: Record<string, number> = { A1: 0.1, A2: 0.2, A3: 0.4, O1: 0.1, O2: 0.2, O3: 0.4 };
const bundle = {
  accounts: BUNDLE.accounts!.map((a: any) => (a.crmAccountId in AMOUNTS ? { ...a, openPipelineAmount: AMOUNTS[a.crmAccountId], accountAcv: AMOUNTS[a.crmAccountId] } : a)),
  // O1 says won but not closed: it is OPEN (contract 6, opp_pt_status), so no won amount.
  opportunities: BUNDLE.opportunities!.map((o: any) => (o.crmOpportunityId in AMOUNTS ? { ...o, amount: AMOUNTS[o.crmOpportunityId], ...(o.crmOpportunityId === 'O1' ? { isWon: true } : {}) } : o)),
  // A1 is matched to Alpha twice (PA1 and PA2).
  account_matches: [...BUNDLE.account_matches!, { org: ORG.ACME, crmAccountId: 'A1', partner: ORG.ALPHA, partnerCrmAccountId: 'PA2', firstMatchDate: (BUNDLE.account_matches![0] as { firstMatchDate: number }).firstMatchDate }],
};

const ORDER: Record<string, { body: object; totals: string[]; byPartner: string[] }> = {
  GLOBAL_VERTICAL_ACCOUNTS: { body: {}, totals: ['overlappingAccounts', 'overlaps', 'partners', 'customers', 'openPipelineAmount', 'accountAcv'], byPartner: ['overlaps', 'overlappingAccounts', 'openPipelineAmount'] },
  GLOBAL_VERTICAL_OPPORTUNITIES: { body: {}, totals: ['opportunities', 'overlaps', 'accounts', 'partners', 'amount', 'wonAmount', 'openAmount'], byPartner: ['opportunities', 'overlaps', 'amount'] },
  ATTRIBUTION_EVENTS: { body: { context: CONTEXT }, totals: ['events', 'accounts', 'partners'], byPartner: ['events'] },
  PIPELINE_ATTRIBUTION_DETAIL: { body: { context: CONTEXT }, totals: ['newOpportunities', 'events', 'partners', 'averageDaysToNewOpp', 'pipeline', 'wonAmount'], byPartner: ['newOpportunities', 'events', 'pipeline'] },
  PIPELINE_ATTRIBUTION_SUMMARY: { body: { context: CONTEXT }, totals: ['newOpportunities', 'pipeline', 'wonAmount', 'events', 'averageDaysToNewOpp', 'partners'], byPartner: ['newOpportunities', 'events', 'pipeline'] },
};

for (const engine of engines) {
  describe(`dashboard figures on ${engine.name}`, () => {
    let stored: FixtureApp;
    let plain: FixtureApp;
    before(async () => {
      stored = await fixtureApp(engine, { bundle });
      plain = await fixtureApp(engine, { bundle, reports: { precomputed: false } });
    });
    after(async () => {
      await stored?.close();
      await plain?.close();
    });

    test('an account counts once in its partner pipeline; decimals add up exactly', async () => {
      for (const [name, f] of [['stored', stored], ['plain', plain]] as const) {
        for (const body of [{}, { filters: { country: 'US' } }]) {
          const d = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, body);
          const at = `${name} ${JSON.stringify(body)}`;
          assert.equal(d.totals.openPipelineAmount, 0.7, at);
          assert.equal(d.totals.accountAcv, 0.7, at);
          const alpha = d.byPartner.find((p: any) => p.partnerOrgPublicId === ORG.ALPHA);
          // Rows A1-PA1, A1-PA2, A2-PA2: A1's 0.1 once, A2's 0.2.
          assert.deepEqual([alpha.overlaps, alpha.overlappingAccounts, alpha.openPipelineAmount], [3, 2, 0.3], at);
        }
        const opps = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`, {});
        assert.deepEqual([opps.totals.amount, opps.totals.wonAmount], [0.7, 0.2], name);
        const summary = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/dashboard`, { context: CONTEXT });
        assert.deepEqual([summary.totals.pipeline, summary.totals.wonAmount], [0.7, 0.2], name);
        const detail = await f.ok(`${R}/PIPELINE_ATTRIBUTION_DETAIL/dashboard`, { context: CONTEXT });
        assert.deepEqual([detail.totals.pipeline, detail.totals.wonAmount], [0.7, 0.2], name);
        // The won amount is that of the rows whose status is WON.
        const o1 = (await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/records`, { context: CONTEXT, filters: { opp_crm_opportunity_id: 'O1' } })).content;
        assert.deepEqual(o1.map((r: any) => [r.opp_is_won, r.opp_pt_status]), [[true, 'OPEN']], name);
        const won = await f.ok(`${R}/PIPELINE_ATTRIBUTION_SUMMARY/dashboard`, { context: CONTEXT, filters: { opp_pt_status: 'OPEN' } });
        assert.equal(won.totals.wonAmount, 0, name);
      }
    });

    test('every report writes its figures in the documented key order, stored or computed', async () => {
      for (const f of [stored, plain]) {
        for (const [report, { body, totals, byPartner }] of Object.entries(ORDER)) {
          const d = await f.ok(`${R}/${report}/dashboard`, body);
          assert.deepEqual(Object.keys(d.totals), totals, report);
          assert.ok(d.byPartner.length > 0, report);
          for (const p of d.byPartner) assert.deepEqual(Object.keys(p), ['partnerOrgPublicId', 'partnerOrgName', ...byPartner], report);
        }
      }
    });

    test('migration 0016 drops the stored dashboards of earlier imports (the service computes them until the next import)', async () => {
      const count = async () => (await sql<{ n: number }>`select count(*)::int as n from rpt_dashboards`.execute(stored.database.db)).rows[0]!.n;
      assert.ok((await count()) > 0, 'the import stored dashboards');
      await recountStoredDashboards(stored.database.db as never);
      assert.equal(await count(), 0);
      const d = await stored.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, { filters: {} });
      assert.equal(d.byPartner.find((p: any) => p.partnerOrgPublicId === ORG.ALPHA).openPipelineAmount, 0.3);
    });
  });
}

/** Apps over `bundle` for the enclosing describe: the stored figures, and none (every figure computed by SQL). */
function storedAndPlain(engine: (typeof engines)[number], bundle: NonNullable<Parameters<typeof fixtureApp>[1]>['bundle']): Record<string, FixtureApp> {
  const apps: Record<string, FixtureApp> = {};
  before(async () => {
    apps.stored = await fixtureApp(engine, { bundle });
    apps.plain = await fixtureApp(engine, { bundle, reports: { precomputed: false, columnStore: false } });
  });
  after(async () => {
    for (const f of Object.values(apps)) await f.close();
  });
  return apps;
}

// Amounts of 16 and 17 significant digits: each adds as the value the rows show
// (12345678901234.56, not the 15-digit 12345678901234.6).
const WIDE: Record<string, number> = { A1: 12345678901234.56, A2: 0.01, A3: 1000000, O1: 1234567890123.456, O2: 0.01, O3: 0.02 };
const wide = {
  accounts: BUNDLE.accounts!.map((a: any) => (a.crmAccountId in WIDE ? { ...a, openPipelineAmount: WIDE[a.crmAccountId], accountAcv: WIDE[a.crmAccountId] } : a)),
  opportunities: BUNDLE.opportunities!.map((o: any) => (o.crmOpportunityId in WIDE ? { ...o, amount: WIDE[o.crmOpportunityId] } : o)),
};

for (const engine of engines) {
  describe(`dashboard sums of wide amounts on ${engine.name}`, () => {
    const apps = storedAndPlain(engine, wide);

    test('every digit the rows show counts, stored or computed', async () => {
      const rows = (await apps.plain!.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/records?size=100`, { filters: { crm_account_id: 'A1' } })).content;
      assert.equal(rows[0].open_pipeline_amount, 12345678901234.56, 'the row shows every digit');
      for (const [name, f] of Object.entries(apps)) {
        for (const body of [{}, { filters: { country: 'US' } }]) {
          const at = `${name} ${JSON.stringify(body)}`;
          const accounts = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, body);
          // A1, A2 and A3 (US accounts), each once: 12345678901234.56 + 0.01 + 1000000.
          assert.equal(accounts.totals.openPipelineAmount, 12345679901234.57, at);
          assert.equal(accounts.totals.accountAcv, 12345679901234.57, at);
          const alpha = accounts.byPartner.find((p: any) => p.partnerOrgPublicId === ORG.ALPHA);
          assert.equal(alpha.openPipelineAmount, 12345678901234.57, `${at}: Alpha's A1 and A2`);
          const opportunities = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`, body);
          // O1 on A2, O2 on A1, O3 on A3: 1234567890123.456 + 0.01 + 0.02.
          assert.equal(opportunities.totals.amount, 1234567890123.486, at);
        }
      }
    });
  });
}

// Two amounts each within the double range whose sum is not: the figure is null, and
// neither the import (which stores the dashboards) nor the request fails.
const HUGE = 1.7976931348623157e308;
// A1 and A2's ACV overflow together; the open pipeline HUGE + 200 + 300 rounds to HUGE, a
// double; the opportunities O1, O2 and O3 (each linked to an event) overflow together.
const huge = {
  accounts: BUNDLE.accounts!.map((a: any) => (a.crmAccountId === 'A1' ? { ...a, accountAcv: HUGE, openPipelineAmount: HUGE } : a.crmAccountId === 'A2' ? { ...a, accountAcv: HUGE } : a)),
  opportunities: BUNDLE.opportunities!.map((o: any) => (['O1', 'O2', 'O3'].includes(o.crmOpportunityId) ? { ...o, amount: HUGE } : o)),
};

for (const engine of engines) {
  describe(`dashboard sums past the double range on ${engine.name}`, () => {
    const apps = storedAndPlain(engine, huge);

    test('a sum beyond the double range is null; the other figures stand', async () => {
      for (const [name, f] of Object.entries(apps)) {
        for (const body of [{}, { filters: { country: 'US' } }]) {
          const at = `${name} ${JSON.stringify(body)}`;
          const d = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, body);
          assert.equal(d.totals.accountAcv, null, at);
          assert.equal(d.totals.overlappingAccounts, 3, at);
          assert.equal(d.totals.openPipelineAmount, HUGE, `${at}: just past the largest double still rounds to it`);
          const opportunities = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/dashboard`, body);
          assert.equal(opportunities.totals.amount, null, at);
          assert.equal(opportunities.totals.opportunities, 3, at);
        }
        for (const report of ['PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL']) {
          const d = await f.ok(`${R}/${report}/dashboard`, { context: CONTEXT });
          assert.equal(d.totals.pipeline, null, `${name} ${report}`);
          assert.ok(d.totals.newOpportunities >= 3, `${name} ${report}`);
          assert.ok(d.byPartner.some((p: any) => p.pipeline === null), `${name} ${report}: a partner credited with two of them`);
        }
        // One of them alone is a number.
        const one = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, { filters: { crm_account_id: 'A2' } });
        assert.equal(one.totals.accountAcv, HUGE, name);
      }
    });
  });
}

// BETA and GAMMA named alike but for case; each is matched to one of ACME's accounts.
const caseNames = {
  orgs: BUNDLE.orgs!.map((o: any) => (o.publicId === ORG.BETA ? { ...o, name: 'gamma co' } : o.publicId === ORG.GAMMA ? { ...o, name: 'Gamma Co' } : o)),
};

/** The contract's text order (section 2): lower-cased, then as written, both by code point. */
const byText = (a: string, b: string): number => {
  const key = (s: string) => [...s].map((c) => c.codePointAt(0)!);
  const cmp = (x: number[], y: number[]) => {
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  return cmp(key(a.toLowerCase()), key(b.toLowerCase())) || cmp(key(a), key(b));
};

for (const engine of engines) {
  describe(`dashboard partners that tie on their count, on ${engine.name}`, () => {
    const apps = storedAndPlain(engine, caseNames);

    test('are ordered by name as `sort=` orders text (lower-cased, then as written), then by id, stored or computed', async () => {
      for (const [name, f] of Object.entries(apps)) {
        for (const body of [{}, { filters: { country: 'US-,-FR-,-DE' } }]) {
          const d = await f.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, body);
          // One overlap each: "Gamma Co" (GAMMA) before "gamma co" (BETA), though BETA's id is the lower.
          assert.deepEqual(d.byPartner.map((p: any) => p.partnerOrgName), ['Alpha Partners', 'Gamma Co', 'gamma co'], `${name} ${JSON.stringify(body)}`);
        }
        for (const [report, { body, byPartner }] of Object.entries(ORDER)) {
          const rows = (await f.ok(`${R}/${report}/dashboard`, body)).byPartner as Array<Record<string, any>>;
          const first = byPartner[0]!;
          const sorted = [...rows].sort((a, b) => b[first] - a[first] || byText(a.partnerOrgName, b.partnerOrgName) || (a.partnerOrgPublicId < b.partnerOrgPublicId ? -1 : 1));
          assert.deepEqual(rows, sorted, `${name} ${report}`);
        }
      }
    });

    test('migration 0021 drops the stored dashboards of the old order and moves the data version on', async () => {
      const db = apps.stored!.database.db;
      const count = async () => (await sql<{ n: number }>`select count(*)::int as n from rpt_dashboards`.execute(db)).rows[0]!.n;
      const version = async () => Number((await sql<{ value: string }>`select value from service_state where key = 'data_version'`.execute(db)).rows[0]!.value);
      assert.ok((await count()) > 0, 'the import stored dashboards');
      const before = await version();
      await dashboardNameOrder(db as never);
      assert.equal(await count(), 0);
      assert.equal(await version(), before + 1);
      const d = await apps.stored!.ok(`${R}/GLOBAL_VERTICAL_ACCOUNTS/dashboard`, {});
      assert.deepEqual(d.byPartner.map((p: any) => p.partnerOrgName), ['Alpha Partners', 'Gamma Co', 'gamma co']);
    });
  });
}

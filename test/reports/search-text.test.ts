/**
 * Free-text search runs LIKE of the lower-cased term on the lower-cased `search_text`
 * (materialize.ts, query.ts searchCondition). It must find exactly the rows where every
 * term occurs, case-insensitively, in at least one textual value of the row as the
 * caller sees it (custom fields included, masked values never), with `%`, `_` and `\`
 * literal: checked here against that rule applied to every row of the unsearched report.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';

const R = '/v1/report-analytics/report';
const CONTEXT = { partnerPublicIds: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] };
const REPORTS: Array<[string, object]> = [
  ['GLOBAL_VERTICAL_ACCOUNTS', {}],
  ['GLOBAL_VERTICAL_OPPORTUNITIES', {}],
  ['ATTRIBUTION_EVENTS', { context: CONTEXT }],
  ['PIPELINE_ATTRIBUTION_DETAIL', { context: CONTEXT }],
];

type Row = Record<string, unknown>;
const matches = (row: Row, terms: string[]) =>
  terms.every((t) => Object.values(row).some((v) => typeof v === 'string' && v.toLowerCase().includes(t.toLowerCase())));

for (const engine of engines) {
  describe(`free-text search on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f.close());

    test('every term in some textual value, case-insensitively, wildcards literal', async () => {
      for (const [report, body] of REPORTS) {
        const all: Row[] = (await f.ok(`${R}/${report}/records?size=2000`, body)).content;
        assert.ok(all.length > 0, report);
        // Terms taken from the data in other cases, fragments, pairs, wildcards, absent text.
        const values = [...new Set(all.flatMap((r) => Object.values(r).filter((v): v is string => typeof v === 'string' && v.length >= 3)))].slice(0, 12);
        const searches: string[][] = [['%'], ['_'], ['\\'], ['a%'], ['zzz-absent'], ['ACME'], ['acme', 'Ada']];
        for (const v of values) {
          searches.push([v.toUpperCase()], [v.slice(1, -1).toLowerCase()], [v.slice(0, 3).toUpperCase(), values[0]!.slice(-3)]);
        }
        let hits = 0;
        for (const terms of searches) {
          const expected = all.filter((r) => matches(r, terms.join(' ').split(/\s+/).filter(Boolean)));
          const page = await f.ok(`${R}/${report}/records?size=2000`, { ...body, search: terms.join(' ') });
          assert.deepEqual(page.content, expected, `${report} ${JSON.stringify(terms)}`);
          assert.equal(page.totalElements, expected.length);
          if (expected.length && expected.length < all.length) hits++;
        }
        assert.ok(hits >= 3, `${report}: only ${hits} searches select some rows`);
      }
    });
  });
}

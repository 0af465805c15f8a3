/**
 * An event type the bundle replaces is checked against the subtypes of the events already
 * stored (check-stored-subtypes.ts): a subtype it leaves out that stored events have is a
 * problem of the type's line, naming them, and the database is unchanged; events the
 * bundle replaces are checked as bundle records instead.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines, type TestDatabase } from '../helpers/engines.js';
import { ndjsonBundles } from '../helpers/ndjson-bundle.js';
import { formatProblem, importBundle } from '../../src/ingest/import-bundle.js';
import { ORG, T0 } from '../fixtures/small-bundle.js';

const A = ORG.ACME;
const B = ORG.ALPHA;
const C = ORG.OTHER;
const bundle = ndjsonBundles('pr-stored-subtypes-');

const ORGS = [{ publicId: A, name: 'A' }, { publicId: B, name: 'B' }, { publicId: C, name: 'C' }];
const workflow = (...codes: string[]) => ({ code: 'WORKFLOW', displayName: 'Workflow', group: 'Workflow', subtypes: codes.map((code) => ({ code, displayName: code })) });
const event = (org: string, eventId: string, eventSubtypeCode?: string) => ({ org, eventId, eventDate: T0, eventTypeCode: 'WORKFLOW', ...(eventSubtypeCode ? { eventSubtypeCode } : {}), crmAccountId: 'X1', partner: B });

async function ok(db: TestDatabase, dir: string): Promise<void> {
  const result = await importBundle(db, dir);
  assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
}

const state = async (db: TestDatabase) =>
  JSON.stringify((await sql<any>`select (select jsonb_agg(t order by t.code) from event_types t) as types, (select value from service_state where key = 'data_version') as version`.execute(db.db)).rows);

for (const engine of engines) {
  describe(`stored events' subtypes on ${engine.name}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await engine.open();
      await ok(db, bundle({
        orgs: ORGS,
        partnerships: [{ org: A, partner: B, status: 'CONNECTED' }, { org: C, partner: B, status: 'CONNECTED' }],
        accounts: [{ org: A, crmAccountId: 'X1', name: 'A one' }, { org: C, crmAccountId: 'X1', name: 'C one' }],
        event_types: [workflow('INITIATED', 'DECLINED', 'PAUSED')],
        events: [
          event(A, 'E1', 'DECLINED'), event(A, 'E2', 'INITIATED'), event(A, 'E3'),
          ...Array.from({ length: 6 }, (_, i) => event(C, `P${i}`, 'PAUSED')),
        ],
      }));
    });
    after(() => db.dispose());

    test('a type that drops subtypes stored events have is refused on its line, the events named; nothing changes', async () => {
      const before = await state(db);
      const result = await importBundle(db, bundle({ orgs: ORGS, event_types: [{ code: 'ACTION_LIST', displayName: 'Action List', group: 'Action List', subtypes: [] }, workflow('INITIATED')] }));
      assert.equal(result.ok, false);
      assert.deepEqual(result.ok ? [] : result.problems.map(formatProblem), [
        `event_types.ndjson:2: subtypes: has no subtype "DECLINED", which stored event E1 of organization ${A} has`,
        ...[0, 1, 2, 3].map((i) => `event_types.ndjson:2: subtypes: has no subtype "PAUSED", which stored event P${i} of organization ${C} has`),
        'event_types.ndjson:2: subtypes: and 2 more stored events with a subtype it does not list',
      ]);
      assert.equal(await state(db), before, 'the database is as it was');
    });

    test('events the bundle replaces are checked as bundle records: moved off the subtype, the type may drop it', async () => {
      await ok(db, bundle({
        orgs: ORGS,
        event_types: [workflow('INITIATED', 'PAUSED')],
        events: [event(A, 'E1', 'INITIATED')],
      }));
      const subtypes = (await sql<{ s: string }>`select event_subtype_code as s from events where event_id = 'E1'`.execute(db.db)).rows.map((r) => r.s);
      assert.deepEqual(subtypes, ['INITIATED']);
      // A bundle event that keeps the dropped subtype is its own line's problem (check-references.ts), not the type's.
      const result = await importBundle(db, bundle({ orgs: ORGS, event_types: [workflow('INITIATED')], events: Array.from({ length: 6 }, (_, i) => event(C, `P${i}`, 'PAUSED')) }));
      assert.deepEqual(result.ok ? [] : result.problems.map(formatProblem), Array.from({ length: 6 }, (_, i) => `events.ndjson:${i + 1}: eventSubtypeCode: not a subtype of the event type`));
    });
  });
}

/**
 * Migration 0017 renames the partner account owner's `partnerFields` keys in rows written
 * by earlier imports (`partnerownername` -> `partnerowneridname`, ...), keeping values and
 * JSON nulls, so a database imported before answers with the specification's keys at once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG } from '../fixtures/small-bundle.js';
import { down, up } from '../../src/db/migrations/0017-partner-owner-keys.js';

for (const engine of engines) {
  describe(`migration 0017 on ${engine.name}`, () => {
    let f: FixtureApp;
    before(async () => {
      f = await fixtureApp(engine);
    });
    after(() => f?.close());

    test('rows with the old owner keys get the new ones, values and nulls kept', async () => {
      const fields = async () => (await sql<{ p: Record<string, unknown> }>`select partner_fields as p from rpt_matched_accounts order by org_id, rid`.execute(f.database.db)).rows.map((r) => r.p);
      const imported = await fields();
      const owned = imported.find((p) => 'partnerowneridname' in p);
      assert.ok(owned && owned.partnerowneridname === 'Pat Partner' && owned.partnerowneridtitle === null, JSON.stringify(owned));
      // As an earlier import wrote them.
      await down(f.database.db as never);
      const old = (await fields()).find((p) => 'partnerownername' in p);
      assert.deepEqual([old?.partnerownername, old?.partnerownertitle, 'partnerowneridname' in (old ?? {})], ['Pat Partner', null, false]);
      await up(f.database.db as never);
      assert.deepEqual(await fields(), imported);
      const rows = (await f.ok('/v1/channelecosystem/records', { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA, filters: { partnerowneridname: 'Pat Partner' } })).content;
      assert.ok(rows.length > 0);
    });
  });
}

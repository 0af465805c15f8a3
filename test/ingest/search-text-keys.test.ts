/**
 * search_text's custom and partner-field part is built from per-key lookups (keys found
 * in the data at import) rather than a `jsonb_each` subquery per row: it must remain the
 * string values of the stored object in jsonb key order (shorter keys first, then by
 * bytes), a merged object's later key winning, JSON null and non-strings left out.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engines } from '../helpers/engines.js';
import { importBundle } from '../../src/ingest/import-bundle.js';
import { BUNDLE, ORG, writeSmallBundle } from '../fixtures/small-bundle.js';
import { customStrings, MAX_CUSTOM_LOOKUPS, type JsonKeys } from '../../src/ingest/materialize.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Keys that collide between accounts and events, JSON null over a string, a number over a string, and 2-byte keys that sort by bytes, not characters. */
function trickyBundle(): string {
  const accounts = (BUNDLE.accounts as Array<Record<string, any>>).map((a) =>
    a.crmAccountId === 'A1' ? { ...a, custom: { ...a.custom, note: 'Account-Note', shared: 'Acct-Shared', 'é': 'E-Acute', ab: 'Ab-Value', zz: null } }
    : a.crmAccountId === 'PA1' ? { ...a, custom: { segment: 'Enterprise', Zèta: 'Zeta-Value', 'ß': 'Sharp-S' } }
    : a,
  );
  const events = (BUNDLE.events as Array<Record<string, any>>).map((e) =>
    e.eventId === 'E1' ? { ...e, custom: { campaignId: 'CMP-1', note: 'Event-Note', shared: null, tier: 7, 'Ä': 'A-Umlaut' } } : e,
  );
  const opportunities = (BUNDLE.opportunities as Array<Record<string, any>>).map((o) => (o.crmOpportunityId === 'O2' ? { ...o, custom: { note: 'Opp-Note', 'ü': 'U-Umlaut' } } : o));
  const dir = mkdtempSync(join(tmpdir(), 'pr-search-keys-'));
  dirs.push(dir);
  return writeSmallBundle(dir, { accounts, events, opportunities });
}

/** The reference: string values of a jsonb object in jsonb_each order. */
const strings = (expr: string) => `coalesce((select string_agg(j.value #>> '{}', chr(31)) from jsonb_each(${expr}) j where jsonb_typeof(j.value) = 'string'), '')`;

const TABLES = ['rpt_global_accounts', 'rpt_global_opportunities', 'rpt_attribution_events', 'rpt_attribution_links', 'rpt_new_opportunities', 'rpt_matched_accounts'];

for (const engine of engines) {
  describe(`search_text custom values (${engine.name})`, () => {
    test('every report row ends with the string values of its custom object (and partner fields) in jsonb order', async () => {
      const db = await engine.open();
      try {
        const result = await importBundle(db, trickyBundle());
        assert.equal(result.ok, true, JSON.stringify(result));
        for (const table of TABLES) {
          const suffix = table === 'rpt_matched_accounts' ? `chr(31) || lower(${strings('r.custom')}) || chr(31) || lower(${strings('r.partner_fields')})` : `chr(31) || lower(${strings('r.custom')})`;
          const rows = (await sql.raw<{ rid: number; search_text: string; expected: string }>(`select r.rid, r.search_text, ${suffix} as expected from ${table} r order by r.org_id, r.rid`).execute(db.db)).rows;
          assert.ok(rows.length > 0, `${table} has rows`);
          for (const r of rows) assert.ok(r.search_text.endsWith(r.expected), `${table} rid ${r.rid}: ${JSON.stringify(r.search_text)} should end with ${JSON.stringify(r.expected)}`);
        }
        // The data does reach the cases above: the event's key wins over the account's, null hides the account's value.
        const e1 = (await sql<{ search_text: string }>`select search_text from rpt_attribution_events r join orgs o on o.id = r.org_id where o.public_id = ${ORG.ACME}::uuid and r.custom->>'campaignId' = 'CMP-1'`.execute(db.db)).rows;
        assert.equal(e1.length, 1);
        assert.match(e1[0]!.search_text, /event-note/);
        assert.doesNotMatch(e1[0]!.search_text, /account-note|acct-shared/);
        assert.match(e1[0]!.search_text, /ab-value\x1fa-umlaut\x1fe-acute/, '2-byte keys in byte order');
        const matched = (await sql<{ search_text: string }>`select search_text from rpt_matched_accounts where partner_fields ? 'partnersegment'`.execute(db.db)).rows;
        assert.ok(matched.some((m) => m.search_text.endsWith('\x1fenterprise') || m.search_text.includes('\x1fenterprise\x1f')), 'a shared custom partner value is searchable');
      } finally {
        await db.dispose();
      }
    });
  });
}

describe('customStrings size guard', () => {
  test('per-key lookups up to MAX_CUSTOM_LOOKUPS, the jsonb_each form beyond (the caller falls back when it returns null)', () => {
    const keysFor = (orgs: number, perOrg: number): JsonKeys => ({
      custom: new Map([['accounts', new Map(Array.from({ length: orgs }, (_, o) => [o + 1, Array.from({ length: perOrg }, (_, k) => `k${k}`)] as [number, string[]]))]]),
    });
    const small = customStrings('a.custom', 'a.org_id', keysFor(3, 4));
    assert.ok(small?.startsWith('case a.org_id when 1 then concat_ws('), small ?? 'null');
    assert.equal((small!.match(/a\.custom -> /g) ?? []).length, 3 * 4 * 2, 'two reads of each key per organization');
    assert.notEqual(customStrings('a.custom', 'a.org_id', keysFor(MAX_CUSTOM_LOOKUPS / 10, 10)), null, 'exactly at the limit');
    assert.equal(customStrings('a.custom', 'a.org_id', keysFor(MAX_CUSTOM_LOOKUPS / 10 + 1, 10)), null, 'past the limit');
    assert.equal(customStrings('a.custom', 'a.org_id', keysFor(1, MAX_CUSTOM_LOOKUPS + 1)), null, 'one organization with too many keys');
  });
});

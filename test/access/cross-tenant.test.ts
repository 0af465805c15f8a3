/**
 * Cross-tenant access (the access issue): a key of organization A can never read, list,
 * count, offer as a filter value, stream or revoke anything of organization B, whether B's
 * ids are sent in the context, as companyPartnerPublicId, as a key id, in a bearer
 * token's claims or in If-None-Match. Both directions: ACME (A) and OTHER (B) of the
 * small bundle. Every report operation is taken from the app's OpenAPI document.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { engines } from '../helpers/engines.js';
import { NOW, fixtureApp, type FixtureApp } from '../helpers/fixture-app.js';
import { ORG, USERS } from '../fixtures/small-bundle.js';

const SECRET = 'cross-tenant-test-secret-0123456789abcdef';
const R = '/v1/report-analytics/report';
const C = '/v1/channelecosystem';

/** Strings that exist only in OTHER's data (accounts, opportunities, events, custom fields). */
const OTHER_ONLY = ['Other Secret', 'Other secret event', 'classified', 'custom_secret', '"OA1"', '"OO1"', '"OE1"', 'Other Inc', ORG.OTHER];
/** Strings that exist only in ACME's data (as OTHER must never see it). */
const ACME_ONLY = ['Acme Holdings', 'acme west', 'West Expansion', 'List one', 'Beta Resellers', 'gamma systems', 'custom_tier', 'olive@acme.test', ORG.ACME, ORG.BETA, ORG.GAMMA];

const ATTRIBUTION = /PIPELINE_ATTRIBUTION|ATTRIBUTION_EVENTS/;

function leaks(body: string, markers: readonly string[]): string[] {
  const lower = body.toLowerCase();
  return markers.filter((m) => lower.includes(m.toLowerCase()));
}

async function token(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(NOW - 10).setExpirationTime(NOW + 600).sign(new TextEncoder().encode(SECRET));
}

for (const engine of engines) {
  describe(`cross-tenant access on ${engine.name}`, () => {
    let f: FixtureApp;
    let reports: string[];
    let operations: string[];
    before(async () => {
      f = await fixtureApp(engine, { config: { jwtSecret: SECRET } });
      const doc = (await f.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const paths = Object.keys(doc.paths).map((p) => /^\/v1\/report-analytics\/report\/([A-Z_]+)\/(\w+)$/.exec(p)).filter((m): m is RegExpExecArray => m !== null);
      reports = [...new Set(paths.map((m) => m[1]!))];
      operations = [...new Set(paths.map((m) => m[2]!))];
    });
    after(() => f.close());

    /** The body each side may legitimately send: its own connected partners. */
    const body = (report: string, partners: string[]) => (ATTRIBUTION.test(report) ? { context: { partnerPublicIds: partners, eventTypeCodes: ['ACTION_LIST', 'WORKFLOW', 'CRM_UPDATE'] } } : {});
    const sides = () => [
      { name: 'ACME', key: f.keys.acme, partners: [ORG.ALPHA, ORG.BETA, ORG.GAMMA], foreign: OTHER_ONLY, otherOrg: ORG.OTHER, othersPartners: [] as string[] },
      // ALPHA is a partner of both; BETA and GAMMA are ACME's only.
      { name: 'OTHER', key: f.keys.other, partners: [ORG.ALPHA], foreign: ACME_ONLY, otherOrg: ORG.ACME, othersPartners: [ORG.BETA, ORG.GAMMA] },
    ];

    test('every operation of every report and every filter column shows only the caller’s data', async () => {
      assert.ok(reports.length >= 5 && operations.length >= 5, `${reports} ${operations}`);
      for (const side of sides()) {
        for (const report of reports) {
          for (const op of operations) {
            const res = await f.call('POST', `${R}/${report}/${op}${op === 'records' ? '?size=2000' : ''}`, body(report, side.partners), side.key);
            if (op === 'filterdata') {
              assert.equal(res.statusCode, 400, `${side.name} ${report}/filterdata without filterField`);
              continue;
            }
            assert.equal(res.statusCode, 200, `${side.name} ${report}/${op}: ${res.body.slice(0, 200)}`);
            assert.deepEqual(leaks(res.body, side.foreign), [], `${side.name} ${report}/${op}`);
          }
          const columns: Array<{ key: string }> = (await f.ok(`${R}/${report}/columns`, body(report, side.partners), side.key));
          for (const { key } of columns) {
            const values = await f.call('POST', `${R}/${report}/filterdata?filterField=${encodeURIComponent(key)}&size=2000`, body(report, side.partners), side.key);
            assert.equal(values.statusCode, 200, `${side.name} ${report} filterField=${key}: ${values.body.slice(0, 200)}`);
            assert.deepEqual(leaks(values.body, side.foreign), [], `${side.name} ${report} filterField=${key}`);
          }
        }
      }
      // Numbers too: OTHER's 9999 opportunity is outside ACME's amount range, and the reverse.
      const acmeAmount = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/filterdata?filterField=amount`, {});
      assert.notEqual(acmeAmount.content[0].filterRangeMax, 9999);
      const otherAmount = await f.ok(`${R}/GLOBAL_VERTICAL_OPPORTUNITIES/filterdata?filterField=amount`, {}, f.keys.other);
      assert.equal(otherAmount.content[0].filterRangeMax, 9999);
      assert.equal(otherAmount.content[0].filterRangeMin, 9999);
    });

    test('the other organization’s ids in the context are refused like ids that do not exist', async () => {
      const nowhere = '99999999-0000-4000-8000-000000000000';
      for (const side of sides()) {
        for (const report of reports.filter((r) => ATTRIBUTION.test(r))) {
          for (const op of operations) {
            const query = op === 'filterdata' ? '?filterField=account_name' : '';
            for (const foreign of [side.otherOrg, ...side.othersPartners]) {
              const url = `${R}/${report}/${op}${query}`;
              const mine = await f.call('POST', url, { context: { partnerPublicIds: [foreign], eventTypeCodes: ['ACTION_LIST'] } }, side.key);
              const none = await f.call('POST', url, { context: { partnerPublicIds: [nowhere], eventTypeCodes: ['ACTION_LIST'] } }, side.key);
              if (op === 'columns') {
                // Column metadata does not read rows; it may ignore the context, but must not leak.
                assert.ok(mine.statusCode === 200 || mine.statusCode === 400, `${side.name} ${url}: ${mine.statusCode}`);
                assert.deepEqual(leaks(mine.body.replaceAll(foreign, 'ID'), side.foreign), []);
                continue;
              }
              assert.equal(mine.statusCode, 400, `${side.name} ${url} with ${foreign}: ${mine.body.slice(0, 200)}`);
              assert.equal(mine.json().errors[0].message.replace(foreign, 'ID'), none.json().errors[0].message.replace(nowhere, 'ID'), 'the same answer as for an id that exists nowhere');
              // Mixed with a legitimate partner it is still refused, not silently dropped.
              const mixed = await f.call('POST', url, { context: { partnerPublicIds: [...side.partners, foreign], eventTypeCodes: ['ACTION_LIST'] } }, side.key);
              assert.equal(mixed.statusCode, 400);
            }
          }
        }
      }
    });

    test('channel reports: the other organization as companyPartnerPublicId is 400; shared partners show only the caller’s matches', async () => {
      for (const side of sides()) {
        for (const op of ['records', 'columns', 'filterdata?filterField=accountName']) {
          for (const foreign of [side.otherOrg, ...side.othersPartners]) {
            const res = await f.call('POST', `${C}/${op}`, { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: foreign }, side.key);
            assert.equal(res.statusCode, 400, `${side.name} ${op} ${foreign}: ${res.body.slice(0, 200)}`);
            assert.equal(res.json().errors[0].field, 'companyPartnerPublicId');
            assert.deepEqual(leaks(res.body.replaceAll(foreign, 'ID'), side.foreign), [], 'nothing but the id sent');
          }
          const shared = await f.call('POST', `${C}/${op}`, { channelReportType: 'PARTNER_ORG_MATCHED_ACCOUNTS', matchingType: 'MUTUAL', companyPartnerPublicId: ORG.ALPHA }, side.key);
          assert.equal(shared.statusCode, 200, `${side.name} ${op}: ${shared.body.slice(0, 200)}`);
          assert.deepEqual(leaks(shared.body, side.foreign), [], `${side.name} ${op}`);
        }
        const connected = await f.call('POST', `${C}/records`, { channelReportType: 'PARTNER_ORG_CONNECTED_PARTNER_ORGS' }, side.key);
        assert.deepEqual(leaks(connected.body, side.foreign), []);
        const names = await f.app.inject({ method: 'GET', url: `${C}/report-names`, headers: { 'api-key': side.key } });
        assert.deepEqual(leaks(names.body, side.foreign), []);
      }
    });

    test('an ETag of one organization is never a 304 for the other', async () => {
      const url = `${R}/GLOBAL_VERTICAL_ACCOUNTS/records`;
      const acme = await f.call('POST', url, {});
      const etag = String(acme.headers.etag);
      assert.match(etag, /^W\//);
      const other = await f.app.inject({ method: 'POST', url, headers: { 'api-key': f.keys.other, 'content-type': 'application/json', 'if-none-match': etag }, payload: '{}' });
      assert.equal(other.statusCode, 200);
      assert.deepEqual(leaks(other.body, OTHER_ONLY.filter((m) => m !== 'Other Inc')).length > 0, true, 'OTHER gets its own rows');
    });

    test('key administration: the other organization’s keys are neither listed nor revocable', async () => {
      const admin = (method: 'GET' | 'DELETE', url: string, key: string, headers: Record<string, string> = {}) => f.app.inject({ method, url, headers: { 'api-key': key, ...headers } });
      const acmeKeys: Array<{ id: string }> = (await admin('GET', '/v1/admin/api-keys', f.keys.acme)).json();
      const otherKeys: Array<{ id: string }> = (await admin('GET', '/v1/admin/api-keys', f.keys.other)).json();
      assert.equal(acmeKeys.length, 2);
      assert.equal(otherKeys.length, 1);
      assert.equal(acmeKeys.some((k) => otherKeys.some((o) => o.id === k.id)), false);
      for (const { id } of acmeKeys) {
        for (const variant of [id, id.toUpperCase(), ` ${id}`, `${id}%00`, `${id}'--`]) {
          const res = await admin('DELETE', `/v1/admin/api-keys/${encodeURI(variant)}`, f.keys.other);
          assert.equal(res.statusCode, 404, `${variant}: ${res.body}`);
          assert.equal(res.json().detail.includes('in your organization'), true);
        }
      }
      // Through a bearer token of OTHER's admin as well.
      const bearer = await token({ sub: USERS.OTHER_ADMIN, org: ORG.OTHER, role: 'ADMIN' });
      const viaToken = await f.app.inject({ method: 'DELETE', url: `/v1/admin/api-keys/${acmeKeys[0]!.id}`, headers: { authorization: `Bearer ${bearer}` } });
      assert.equal(viaToken.statusCode, 404);
      const listed = await f.app.inject({ method: 'GET', url: '/v1/admin/api-keys', headers: { authorization: `Bearer ${bearer}` } });
      assert.deepEqual(listed.json().map((k: { id: string }) => k.id), otherKeys.map((k) => k.id));
      // ACME's keys still work: nothing was revoked.
      for (const key of [f.keys.acme, f.keys.acmeMember]) assert.equal((await f.call('GET', '/v1/attribution/event-types', undefined, key)).statusCode, 200);
      assert.equal((await admin('GET', '/v1/admin/api-keys', f.keys.acme)).json().every((k: { revokedAt: unknown }) => k.revokedAt === null), true);
    });

    test('bearer tokens: claims naming another organization than the user’s are 401; a valid token sees its own organization only', async () => {
      const refused = [
        { sub: USERS.ACME_ADMIN, org: ORG.OTHER, role: 'ADMIN' },
        { sub: USERS.OTHER_ADMIN, org: ORG.ACME, role: 'ADMIN' },
        { sub: USERS.ACME_MEMBER, org: ORG.ALPHA, role: 'MEMBER' },
        { sub: USERS.OTHER_ADMIN, org: ORG.OTHER.toUpperCase().replace(/-/g, ''), role: 'ADMIN' },
        { sub: `${USERS.OTHER_ADMIN}' or '1'='1`, org: ORG.OTHER, role: 'ADMIN' },
        { sub: USERS.OTHER_ADMIN, org: [ORG.OTHER, ORG.ACME], role: 'ADMIN' },
        { sub: USERS.OTHER_ADMIN, org: { $ne: null }, role: 'ADMIN' },
        { sub: USERS.OTHER_ADMIN, role: 'ADMIN' },
      ];
      for (const claims of refused) {
        const res = await f.app.inject({ method: 'GET', url: '/v1/attribution/event-types', headers: { authorization: `Bearer ${await token(claims)}` } });
        assert.equal(res.statusCode, 401, JSON.stringify(claims));
        assert.equal(res.headers['www-authenticate'], 'ApiKey, Bearer');
      }
      const other = await token({ sub: USERS.OTHER_ADMIN, org: ORG.OTHER, role: 'ADMIN' });
      const headers = { authorization: `Bearer ${other}`, 'content-type': 'application/json' };
      const rows = await f.app.inject({ method: 'POST', url: `${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, headers, payload: '{}' });
      assert.equal(rows.statusCode, 200);
      assert.deepEqual(rows.json().content.map((r: { account_name: string }) => r.account_name), ['Other Secret Account']);
      assert.deepEqual(leaks(rows.body, ACME_ONLY), []);
      const events = await f.app.inject({ method: 'POST', url: `${R}/ATTRIBUTION_EVENTS/records`, headers, payload: JSON.stringify({ context: { partnerPublicIds: [ORG.BETA], eventTypeCodes: ['ACTION_LIST'] } }) });
      assert.equal(events.statusCode, 400, 'a token of OTHER cannot name ACME’s partners either');
      // A token and an API key of different organizations: the key decides, never a mix.
      const both = await f.app.inject({ method: 'POST', url: `${R}/GLOBAL_VERTICAL_ACCOUNTS/records`, headers: { ...headers, 'api-key': f.keys.acme }, payload: '{}' });
      assert.equal(both.statusCode, 200);
      assert.deepEqual(leaks(both.body, OTHER_ONLY), []);
    });
  });
}

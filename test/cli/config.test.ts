/**
 * Settings from the environment: defaults, every bad value reported at once, and the heap
 * growth setting turned into the V8 flag the server sets at start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ConfigError, DEFAULT_COLUMN_STORE_MB, DEFAULT_HEAP_GROWTH_PERCENT, loadConfig } from '../../src/config.js';
import { limitHeapGrowth } from '../../src/server/heap.js';
import { createTokenVerifier } from '../../src/server/access/jwt.js';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.rateLimitPerMinute, 100);
  assert.equal(c.heapGrowthPercent, DEFAULT_HEAP_GROWTH_PERCENT);
  assert.ok(DEFAULT_HEAP_GROWTH_PERCENT > 0, 'the server limits heap growth unless told otherwise');
  assert.equal(loadConfig({ HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
  assert.equal(c.columnStoreMb, DEFAULT_COLUMN_STORE_MB);
  assert.equal(loadConfig({ COLUMN_STORE_MB: '0' }).columnStoreMb, 0);
  assert.throws(() => loadConfig({ COLUMN_STORE_MB: 'lots' }), /COLUMN_STORE_MB="lots": must be an integer from 0 to 65536/);
});

test('every bad value is named at once, with what is allowed', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', HEAP_GROWTH_PERCENT: '-5', LOG_LEVEL: 'loud' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(err.problems, [
        'LOG_LEVEL="loud": must be one of fatal, error, warn, info, debug, trace, silent',
        'PORT="eighty": must be an integer from 0 to 65535',
        'HEAP_GROWTH_PERCENT="-5": must be an integer from 0 to 400',
      ]);
      return true;
    },
  );
  assert.throws(() => loadConfig({ HEAP_GROWTH_PERCENT: '12.5' }), /HEAP_GROWTH_PERCENT="12.5": must be an integer from 0 to 400/);
  // Decimal digits only: hex, binary, exponents and padding are not numbers a person meant.
  for (const raw of ['0x10', '0b11', '1e2', ' 50', '50 ', '+5']) {
    assert.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: raw }), /RATE_LIMIT_PER_MINUTE=.*must be an integer/, JSON.stringify(raw));
  }
  assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '0250' }).rateLimitPerMinute, 250);
});

test('JWT_JWKS_URL: an http(s) or file: URL, or a file path (relative ones too); other schemes are refused', () => {
  for (const ok of ['https://idp.example/jwks.json', 'HTTPS://idp.example/jwks.json', 'file:///etc/jwks.json', 'FILE:///etc/jwks.json', '/etc/jwks.json', './jwks.json', 'jwks.json', 'keys/jwks.json']) {
    assert.equal(loadConfig({ JWT_JWKS_URL: ok }).jwtJwksUrl, ok);
  }
  assert.throws(() => loadConfig({ JWT_JWKS_URL: 'ftp://idp.example/jwks.json' }), /JWT_JWKS_URL: must be an http\(s\) URL, a file: URL or a file path/);
  // The scheme in any case is read as that scheme (a file: URL, not a relative path named "FILE:...").
  assert.throws(() => createTokenVerifier({ ...loadConfig({}), jwtJwksUrl: 'FILE:///no/such/jwks.json' }, Date.now), /JWT_JWKS_URL: \/no\/such\/jwks\.json is not a readable/);
  assert.ok(createTokenVerifier({ ...loadConfig({}), jwtJwksUrl: 'HTTPS://idp.example/jwks.json' }, Date.now), 'a remote key set, fetched when first needed');
});

test('the heap growth becomes V8\'s flag; 0 leaves V8 alone', () => {
  const set: string[] = [];
  limitHeapGrowth(60, (f) => set.push(f));
  limitHeapGrowth(0, (f) => set.push(f));
  assert.deepEqual(set, ['--heap-growing-percent=60']);
  // The flag exists in this V8 (an unknown one would be ignored without a word).
  assert.match(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }), /--heap-growing-percent \(/);
});


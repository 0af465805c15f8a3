/**
 * API keys: long random secrets with a recognisable prefix, shown once, stored only as
 * a SHA-256 hash. A slow password hash (scrypt) buys nothing here: the key has 256 bits
 * of entropy, so the hash cannot be brute-forced, and a fast hash keeps the lookup on
 * every request cheap.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';

export const KEY_PREFIX = 'prk_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
}

/**
 * A key's name: a label of 1-100 characters without control characters (tabs and line
 * breaks would break `keys list`'s columns and rows), line or paragraph separators, or
 * bidirectional formatting characters (marks, embeddings, overrides, isolates: they would
 * make a listing read otherwise than it is). The
 * API and the command line both check it here.
 */
const KEY_NAME = /^[^\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]{1,100}$/u;
export const keyNameProblem = (name: string): string | undefined =>
  KEY_NAME.test(name) ? undefined : 'must be 1-100 characters without control characters (tabs, line breaks), line separators or bidirectional formatting characters';

export async function createApiKey(db: Kysely<Schema>, input: { orgId: number; userId: number | null; name: string }): Promise<CreatedKey> {
  const key = generateKey();
  const id = randomUUID();
  const prefix = key.slice(0, 12);
  await db.insertInto('api_keys').values({ id, org_id: input.orgId, user_id: input.userId, name: input.name, prefix, key_hash: hashKey(key) }).execute();
  return { id, key, prefix, name: input.name };
}

/** Compares two hex digests without leaking where they differ. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * People of the demo dataset: the sales reps who own accounts and opportunities, the
 * customer-success managers of `customOwner`, and helpers for e-mail addresses and the
 * `#`/`@` patterns of postal codes and phone numbers. Owner objects are built once per
 * person and shared by every record that names them.
 */
import type { Rng } from './random.js';
import { FIRST_NAMES, LAST_NAMES, SALES_DIVISIONS, SALES_TITLES, SUCCESS_TITLES } from './vocabulary.js';

/** `owner` of an account (contract section 7). */
export interface AccountOwner {
  name: string;
  email: string;
  title: string;
  phone: string;
  division: string;
}
/** `owner` of an opportunity. */
export interface OpportunityOwner {
  name: string;
  email: string;
  title: string;
  phone: string;
}
/** `customOwner` of an account, `user` of an event. */
export interface NamedPerson {
  name: string;
  email: string;
  title: string;
}

export interface Rep {
  account: AccountOwner;
  opportunity: OpportunityOwner;
  person: NamedPerson;
}

/** The local part of an e-mail address: ASCII letters, `first.last`. */
export function emailLocal(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .trim()
    .split(/\s+/)
    .join('.');
}

/** A pattern cut into literal text, runs of `#` (digit counts, > 0) and `@` (letters, < 0). */
const compiled = new Map<string, Array<string | number>>();
function compile(pattern: string): Array<string | number> {
  const parts: Array<string | number> = [];
  for (const m of pattern.matchAll(/#+|@|[^#@]+/g)) parts.push(m[0][0] === '#' ? m[0].length : m[0] === '@' ? -1 : m[0]);
  return parts;
}

/** Replaces each `#` of `pattern` with a random digit and each `@` with a random capital letter. */
export function fill(rng: Rng, pattern: string): string {
  let parts = compiled.get(pattern);
  if (!parts) {
    parts = compile(pattern);
    compiled.set(pattern, parts);
  }
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') out += part;
    else if (part > 0) out += rng.digits(part);
    else out += String.fromCharCode(65 + rng.int(26));
  }
  return out;
}

/** `count` different full names. */
export function fullNames(rng: Rng, count: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
    if (seen.has(emailLocal(name))) continue;
    seen.add(emailLocal(name));
    out.push(name);
  }
  return out;
}

/** Sales reps of an organization (account and opportunity owners). */
export function salesReps(rng: Rng, count: number, domain: string, phonePattern: string): Rep[] {
  return fullNames(rng, count).map((name, i) => {
    const email = `${emailLocal(name)}@${domain}`;
    const title = i === 0 ? 'VP of Sales' : rng.pick(SALES_TITLES.slice(0, -1));
    const phone = fill(rng, phonePattern);
    const division = SALES_DIVISIONS[i % SALES_DIVISIONS.length]!;
    return {
      account: { name, email, title, phone, division },
      opportunity: { name, email, title, phone },
      person: { name, email, title },
    };
  });
}

/** Customer-success managers (`customOwner` of accounts). */
export function successManagers(rng: Rng, count: number, domain: string): NamedPerson[] {
  return fullNames(rng, count).map((name) => ({ name, email: `${emailLocal(name)}@${domain}`, title: rng.pick(SUCCESS_TITLES) }));
}

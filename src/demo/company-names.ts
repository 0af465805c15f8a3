/**
 * Company names of the demo dataset, unique by construction: name number `g` (a global
 * index; each organization and purpose draws from its own range of indexes) is decoded in
 * mixed radix into prefix x core x legal form, after a seed-dependent affine permutation so
 * that neighbouring numbers do not look alike; further blocks of numbers add a qualifier
 * word (and then a number). Different indexes give different names because the word
 * lists are disjoint one-word sets (vocabulary.ts), so every name parses back one way.
 */
import { hash32 } from './random.js';
import { INDUSTRIES, LEGAL_FORMS, NAME_CORES, NAME_PREFIXES, NAME_QUALIFIERS, type Industry } from './vocabulary.js';

export interface CompanyName {
  name: string;
  industry: Industry;
  /** Index of `industry` in INDUSTRIES. */
  industryIndex: number;
  /** Host name of the company's web site, e.g. `www.acmelogistics.example`. */
  website: string;
}

const P = NAME_PREFIXES.length;
const C = NAME_CORES.length;
const F = LEGAL_FORMS.length;
const BLOCK = P * C * F;
/** Multipliers of the permutation, all coprime to BLOCK (which has the prime factors 2, 3 and 5). */
const MULTIPLIERS = [7919, 104_729, 1_299_709, 15_485_863, 32_452_843, 49_979_687];

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
for (const m of MULTIPLIERS) if (gcd(m, BLOCK) !== 1) throw new Error(`company-names: ${m} is not coprime to ${BLOCK}`);

const slugs = new Map<string, string>();
function slug(word: string): string {
  let s = slugs.get(word);
  if (s === undefined) {
    s = word.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]/g, '');
    slugs.set(word, s);
  }
  return s;
}

export class CompanyNames {
  private readonly multiplier: number;
  private readonly offset: number;

  constructor(seed: number) {
    const h = hash32(seed, 0x6e616d65);
    this.multiplier = MULTIPLIERS[h % MULTIPLIERS.length]!;
    this.offset = hash32(seed, 0x6f666673) % BLOCK;
  }

  /** Name number `g` (g >= 0). */
  get(g: number): CompanyName {
    const block = Math.floor(g / BLOCK);
    const r = (this.multiplier * (g % BLOCK) + this.offset) % BLOCK;
    const prefix = NAME_PREFIXES[r % P]!;
    const [core, industry] = NAME_CORES[Math.floor(r / P) % C]!;
    const form = LEGAL_FORMS[Math.floor(r / (P * C))]!;
    let name = `${prefix} ${core}`;
    if (block > 0) {
      const q = block - 1;
      name += ` ${NAME_QUALIFIERS[q % NAME_QUALIFIERS.length]!}`;
      const round = Math.floor(q / NAME_QUALIFIERS.length);
      if (round > 0) name += ` ${round + 1}`;
    }
    if (form) name += ` ${form}`;
    return { name, industry: INDUSTRIES[industry]!, industryIndex: industry, website: `www.${slug(prefix)}${slug(core)}.example` };
  }
}

/**
 * Names for statements kept prepared on PostgreSQL connections (database.ts `prepare`).
 *
 * An unnamed statement is parsed, analyzed and planned again on every execution. For the
 * statements every first-seen page runs (the versions read, a dictionary filter's values,
 * the page itself, whose select list names 65 columns) parsing and analysis cost
 * PostgreSQL more than running them: at scale 1000 about 0.6 of its 1.7 ms of CPU per
 * first-seen page (docs/benchmarks.md, twenty-fourth session). A named statement is parsed
 * once per connection. It is still planned for its values on every execution
 * (database.ts sets plan_cache_mode=force_custom_plan), so preparing changes no plan.
 *
 * Bounded: a named statement lives as long as its connection (about 100 KB of parse tree
 * for a page of 65 columns), and neither `pg` nor PostgreSQL forgets one on its own. So a
 * text is named only when it comes back (a shape asked for once, such as an explicit column
 * list tried by hand, is never kept), and at most `max` texts are ever named; any other
 * runs unnamed, as every statement did before. Texts differ by shape only (report, output
 * columns, which filters, sort), never by value: values are parameters.
 *
 * Written by hand: `pg` prepares a statement only when given a name, and picks none.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export interface PreparedNames {
  /** The name to prepare this text under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined;
  /** Never name this text again (its prepared form failed in a way a new parse fixes). */
  refuse(text: string): void;
  /** Texts named so far. */
  size(): number;
}

export function preparedNames(max = 64, remembered = 1000): PreparedNames {
  const names = new Map<string, string>();
  // Texts seen once, not named yet (a bound, most recent kept).
  const seen = new LRUCache<string, true>({ max: remembered });
  const refused = new Set<string>();
  return {
    nameOf(text) {
      const known = names.get(text);
      if (known !== undefined) return known;
      if (names.size >= max || refused.has(text)) return undefined;
      if (!seen.has(text)) {
        seen.set(text, true);
        return undefined;
      }
      seen.delete(text);
      // From the text, so one text has one name on every connection of the pool.
      const name = `pr_${createHash('sha1').update(text).digest('base64url')}`;
      names.set(text, name);
      return name;
    },
    refuse(text) {
      names.delete(text);
      refused.add(text);
    },
    size: () => names.size,
  };
}

/**
 * Whether a prepared statement failed because the tables under it changed shape since it
 * was parsed (a migration altered a column's type while this server ran): PostgreSQL
 * re-plans a prepared statement after an import swaps tables, but refuses one whose result
 * columns would change type. The statement then runs unnamed from then on.
 */
export function isStalePrepared(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '0A000' && /cached plan must not change result type/i.test(e.message ?? '');
}

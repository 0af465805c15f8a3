/**
 * The server's heap growth. V8 lets its heap grow to up to about four times the live data
 * before a full collection, and keeps the pages it grew into: after a burst of large
 * pages (2,000 rows each, a few MB of garbage a request) the server held 378 MiB with
 * about 50 MB live (docs/benchmarks.md, seventh session), so a CSV download after it ran
 * above the 300 MB its target allows. A fixed growth factor keeps the heap near the live
 * data at the cost of more frequent full collections (concurrent, on V8's own threads).
 *
 * V8 reads this flag each time it sets the heap's next limit, so setting it at start,
 * before the heap grows, is enough; Node has no other way to set it from inside the
 * process (NODE_OPTIONS does not accept it).
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flag for a growth of `percent` past the live data, or null to leave V8's heuristics. */
export function heapGrowthFlag(percent: number): string | null {
  return percent > 0 ? `--heap-growing-percent=${percent}` : null;
}

export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  const flag = heapGrowthFlag(percent);
  if (flag) setFlags(flag);
}

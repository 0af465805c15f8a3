/**
 * The server's heap growth. V8 lets its heap grow to up to about four times the live data
 * before a full collection, and keeps the pages it grew into: after a burst of large
 * pages (2,000 rows each, a few MB of garbage a request) the server held 307 MiB with
 * about 50 MB live (docs/benchmarks.md, seventh session), and a CSV download after it
 * peaked at 336 MiB, above the 300 MB its target allows. A fixed growth factor keeps the
 * heap near the live data at the cost of more frequent full collections (concurrent, on
 * V8's own threads).
 *
 * V8 reads this flag each time it sets the heap's next limit, so setting it at start,
 * before the heap grows, is enough; Node has no other way to set it from inside the
 * process (NODE_OPTIONS does not accept it).
 */
import { setFlagsFromString } from 'node:v8';

/** Lets the heap grow `percent` past the live data before a full collection; 0 leaves V8's heuristics. */
export function limitHeapGrowth(percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}

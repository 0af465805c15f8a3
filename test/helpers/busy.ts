/** Blocks the event loop for `ms`, as writing a large page does. */
export function busy(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    /* blocking on purpose */
  }
}

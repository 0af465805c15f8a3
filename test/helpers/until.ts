/**
 * Polls `condition` until it holds or `timeoutMs` has passed, and says which. Tests that
 * wait for another process (a server taking its lock, answering /readyz) wait by a
 * deadline, not a count of tries: on a loaded machine a start can take many seconds, and
 * a test must fail only when the thing it waits for never happens.
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

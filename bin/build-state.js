// Whether the compiled build (dist/) is current: it exists and no file under src/ is newer
// than the newest under dist/ (dist/.built marks the last time it was brought up to date).
// Plain JavaScript beside the executable, which reads it before anything is built; the
// tests read it too (test/helpers/cli-process.ts), so both apply one rule.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** True when `<root>/dist/<entry>` exists and no source under `<root>/src` is newer than the build. */
export function buildIsCurrent(root, entry) {
  if (!existsSync(join(root, 'dist', entry))) return false;
  const src = join(root, 'src');
  return !existsSync(src) || newest(src) <= newest(join(root, 'dist'));
}

/** True when `<root>/dist/<entry>` exists and no source under `<root>/src` is newer than the build. */
export function buildIsCurrent(root: string, entry: string): boolean;

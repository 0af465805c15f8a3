/**
 * An always-true condition with a term no request used before: `state` does not contain
 * `zz<n>q` (NULLs stay). A first-seen request adds it so that neither the service's caches
 * nor the direct-SQL floor reuse anything. Shared by bench/run.ts and the tools.
 */
export const uniqueCondition = (n: number | string) => ({ state: `zz${n}q-^-` });

/**
 * The GLOBAL_VERTICAL_ACCOUNTS dashboard over held columns (column-store.ts): the same
 * figures as query-dashboard.ts computes in SQL, in one pass over the selected rows.
 *
 * - An account's rows are one run in `rid` order (checked when the runs are loaded), so
 *   "per account" needs only the current run's figures, and "distinct accounts of a
 *   partner" only the last run each partner was seen in.
 * - Rows without an account (NULL `crm_account_id`) form one group, as in SQL's GROUP BY:
 *   it adds its rows and its amounts, and is not counted as an account or a customer.
 * - Amounts are whole numbers held as Int32 (the store holds no other kind here), so
 *   every sum is exact whatever the order; a double sum of fractions would depend on the
 *   order of addition, which differs from PostgreSQL's.
 */

/** NULL of an Int32 column (column-store.ts). */
const INT_NULL = -2147483648;

export interface DashboardColumns {
  rows: number;
  /** Rows that pass the filters (bit i of word i >> 5), or null for every row. */
  bits: Uint32Array | null;
  /** 0 no account, 1 first row of an account's run, 2 a later row. */
  runs: Uint8Array;
  /** 0 NULL, 1 false, 2 true. */
  customer: Uint8Array;
  /** Dictionary positions (0 NULL) of the partner's public id and name. */
  partnerPublicId: Uint8Array | Uint16Array;
  partnerName: Uint8Array | Uint16Array;
  /** Whole amounts; INT_NULL for NULL. Their sums (at most 2^31 times 2^31 rows) are exact. */
  pipeline: Int32Array;
  acv: Int32Array;
}

export interface PartnerNames {
  publicIds: readonly string[];
  names: readonly string[];
  /** Rank of each name position's lower case in text order. */
  nameLowerRank: readonly number[];
}

/** Code point order (the databases' C.UTF-8 order), not JavaScript's UTF-16 unit order. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Totals and per-partner rows, keyed as query-dashboard.ts returns them. */
export function accountsDashboard(c: DashboardColumns, names: PartnerNames): { totals: Record<string, unknown>; byPartner: Array<Record<string, unknown>> } | null {
  const { bits } = c;
  let overlaps = 0;
  let accounts = 0;
  let customers = 0;
  let pipelineSum = 0;
  let acvSum = 0;
  // The current account run's group.
  let run = -1;
  let currentRun = -1;
  let open = false;
  let runCustomer = false;
  let runPipeline = NaN;
  let runAcv = NaN;
  // The rows without an account.
  let nullRows = 0;
  let nullPipeline = NaN;
  let nullAcv = NaN;
  // Partners are counted by public id: the store checked that it names exactly one
  // `partner_org_id` (and is NULL exactly where that is), so the counts are equal.
  const partnerSeen = new Uint8Array(names.publicIds.length);
  let partners = 0;
  // (public id, name) pairs by their two positions: a table, not a Map per row.
  const width = names.names.length;
  if (names.publicIds.length * width > 1 << 22) return null;
  const slot = new Int32Array(names.publicIds.length * width).fill(-1);
  // `pipeline` sums the pair's accounts' amounts, each once: `runPipeline` is the current
  // account's (added when the pair meets its next account, or at the end), `nullPipeline`
  // that of the pair's rows without an account (one group, as in SQL).
  const pairs: Array<{ pub: number; name: number; overlaps: number; accounts: number; pipeline: number; lastRun: number; runPipeline: number; nullPipeline: number }> = [];

  const flush = () => {
    if (!open) return;
    accounts++;
    if (runCustomer) customers++;
    if (!Number.isNaN(runPipeline)) pipelineSum += runPipeline;
    if (!Number.isNaN(runAcv)) acvSum += runAcv;
    open = false;
  };

  for (let i = 0; i < c.rows; i++) {
    const state = c.runs[i]!;
    if (state === 1) run++;
    if (bits !== null && ((bits[i >>> 5]! >>> (i & 31)) & 1) === 0) continue;
    overlaps++;
    const pv = c.pipeline[i]!;
    const av = c.acv[i]!;
    const p = pv === INT_NULL ? NaN : pv;
    const v = av === INT_NULL ? NaN : av;
    if (state === 0) {
      nullRows++;
      if (!Number.isNaN(p) && !(p <= nullPipeline)) nullPipeline = p;
      if (!Number.isNaN(v) && !(v <= nullAcv)) nullAcv = v;
    } else {
      if (!open || run !== currentRun) {
        flush();
        open = true;
        currentRun = run;
        runCustomer = false;
        runPipeline = NaN;
        runAcv = NaN;
      }
      if (c.customer[i] === 2) runCustomer = true;
      if (!Number.isNaN(p) && !(p <= runPipeline)) runPipeline = p;
      if (!Number.isNaN(v) && !(v <= runAcv)) runAcv = v;
    }
    const pub = c.partnerPublicId[i]!;
    const name = c.partnerName[i]!;
    if (pub !== 0 && partnerSeen[pub] === 0) {
      partnerSeen[pub] = 1;
      partners++;
    }
    const key = pub * width + name;
    let index = slot[key]!;
    if (index < 0) {
      index = slot[key] = pairs.length;
      pairs.push({ pub, name, overlaps: 0, accounts: 0, pipeline: 0, lastRun: -1, runPipeline: NaN, nullPipeline: NaN });
    }
    const pair = pairs[index]!;
    pair.overlaps++;
    if (state === 0) {
      if (!Number.isNaN(p) && !(p <= pair.nullPipeline)) pair.nullPipeline = p;
    } else {
      if (pair.lastRun !== run) {
        pair.accounts++;
        pair.lastRun = run;
        if (!Number.isNaN(pair.runPipeline)) pair.pipeline += pair.runPipeline;
        pair.runPipeline = NaN;
      }
      if (!Number.isNaN(p) && !(p <= pair.runPipeline)) pair.runPipeline = p;
    }
  }
  flush();
  for (const pair of pairs) {
    if (!Number.isNaN(pair.runPipeline)) pair.pipeline += pair.runPipeline;
    if (!Number.isNaN(pair.nullPipeline)) pair.pipeline += pair.nullPipeline;
  }
  if (nullRows > 0) {
    if (!Number.isNaN(nullPipeline)) pipelineSum += nullPipeline;
    if (!Number.isNaN(nullAcv)) acvSum += nullAcv;
  }

  const byPartner = [...pairs]
    .sort((a, b) => {
      if (a.overlaps !== b.overlaps) return b.overlaps - a.overlaps;
      // lower(name) collate "C", then the name itself (contract section 2's text order), NULLs last; then the id, NULLs last.
      const la = a.name === 0 ? Infinity : names.nameLowerRank[a.name]!;
      const lb = b.name === 0 ? Infinity : names.nameLowerRank[b.name]!;
      if (la !== lb) return la < lb ? -1 : 1;
      if (a.name !== b.name && a.name !== 0 && b.name !== 0) return compareCodePoints(names.names[a.name]!, names.names[b.name]!);
      if (a.pub === b.pub) return 0;
      if (a.pub === 0) return 1;
      if (b.pub === 0) return -1;
      return compareCodePoints(names.publicIds[a.pub]!, names.publicIds[b.pub]!);
    })
    .map((pair) => ({
      partner_public_id: pair.pub === 0 ? null : names.publicIds[pair.pub]!,
      partner_name: pair.name === 0 ? null : names.names[pair.name]!,
      overlaps: pair.overlaps,
      overlapping_accounts: pair.accounts,
      open_pipeline_amount: pair.pipeline,
    }));
  return {
    totals: { overlapping_accounts: accounts, overlaps, partners, customers, open_pipeline_amount: pipelineSum, account_acv: acvSum },
    byPartner,
  };
}

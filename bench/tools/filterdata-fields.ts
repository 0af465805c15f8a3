/**
 * Filter values of every column of the attribution reports, first seen, one request at a
 * time, under narrowed bodies (a context of one or two partners and event types, with a
 * filter, a search or a filterSearch): for each (report, body, column) five requests that
 * differ only in `size` (20..24, so none is answered from the values cache) and their
 * median; prints each body's slowest columns and the overall slowest. Needs the demo
 * organization's API key on a running server:
 *   node --import tsx bench/tools/filterdata-fields.ts http://127.0.0.1:19300 <api key> [report,...] [column,...]
 * (the server started with RATE_LIMIT_PER_MINUTE raised: a report is 3,000 requests).
 */
const [url, key, only, fields] = process.argv.slice(2);
if (!url || !key) throw new Error('usage: filterdata-fields.ts <server url> <api key> [reports]');
const R = '/v1/report-analytics/report';
const call = async (path: string, body: object) => {
  const started = performance.now();
  const res = await fetch(url + path, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} ${JSON.stringify(body)}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return { ms: performance.now() - started, json: JSON.parse(text) };
};
// The demo organization's connected partners (partnerships.ndjson of the demo bundle).
const A = 'a93792ea-4b46-451c-8829-818041dcc369';
const B = '2e4e658f-d0a3-448d-bbb3-ccd09d445358';
const C = '7dcf6c5d-c3d7-4a2d-8098-f66f34ad9d5d';
const bodies: Record<string, { body: object; filterSearch?: string }> = {
  'one partner, ACTION_LIST': { body: { context: { partnerPublicIds: [A], eventTypeCodes: ['ACTION_LIST'] } } },
  'one partner, WORKFLOW': { body: { context: { partnerPublicIds: [A], eventTypeCodes: ['WORKFLOW'] } } },
  'one partner, CO_SELL': { body: { context: { partnerPublicIds: [B], eventTypeCodes: ['CO_SELL'] } } },
  'two partners, two types, a filter': { body: { context: { partnerPublicIds: [A, C], eventTypeCodes: ['ACTION_LIST', 'WORKFLOW'] }, filters: { opp_name: 'a-?-' } } },
  'one partner, search': { body: { context: { partnerPublicIds: [C], eventTypeCodes: ['WORKFLOW', 'CRM_UPDATE'] }, search: 'bank' } },
  'one partner, filterSearch': { body: { context: { partnerPublicIds: [A], eventTypeCodes: ['WORKFLOW'] } }, filterSearch: 'e' },
};
const reports = only ? only.split(',') : ['PIPELINE_ATTRIBUTION_SUMMARY', 'PIPELINE_ATTRIBUTION_DETAIL', 'ATTRIBUTION_EVENTS'];
let worst = { ms: 0, what: '' };
for (const report of reports) {
  const columns = ((await call(`${R}/${report}/columns`, {})).json as Array<{ key: string }>).filter((c) => !fields || fields.split(',').includes(c.key));
  for (const [name, { body, filterSearch }] of Object.entries(bodies)) {
    const medians: Array<[string, number]> = [];
    for (const { key: field } of columns) {
      // The filter of the fourth body names a column of the summary and the detail only.
      const b = report === 'ATTRIBUTION_EVENTS' && 'filters' in body ? { ...body, filters: { event_name: 'a-?-' } } : body;
      const times: number[] = [];
      for (let size = 20; size < 25; size++) {
        const q = `filterField=${field}&size=${size}${filterSearch ? `&filterSearch=${encodeURIComponent(filterSearch)}` : ''}`;
        times.push((await call(`${R}/${report}/filterdata?${q}`, b)).ms);
      }
      const median = [...times].sort((x, y) => x - y)[2]!;
      medians.push([field, median]);
      if (median > worst.ms) worst = { ms: median, what: `${report} ${name} ${field}` };
    }
    medians.sort((x, y) => y[1] - x[1]);
    const total = medians.reduce((s, [, ms]) => s + ms, 0);
    console.log(`${report} | ${name}: ${medians.length} columns, slowest ${medians.slice(0, 3).map(([f, ms]) => `${f} ${ms.toFixed(0)} ms`).join(', ')}; mean ${(total / medians.length).toFixed(0)} ms`);
  }
}
console.log(`slowest median: ${worst.ms.toFixed(0)} ms (${worst.what})`);

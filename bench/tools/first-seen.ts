/**
 * First-seen requests one at a time (no queueing): for each broad scenario of the bench,
 * N requests that are new to every cache, sent one after another to a running server;
 * prints the median and each time.
 *   node --import tsx bench/tools/first-seen.ts http://127.0.0.1:8080 <api key> [N=5]
 */
import { uniqueCondition } from '../unique-condition.js';

const [url, key, n = '5'] = process.argv.slice(2);
if (!url || !key) throw new Error('usage: first-seen.ts <server url> <api key> [requests per scenario]');
const GVA = '/v1/report-analytics/report/GLOBAL_VERTICAL_ACCOUNTS';
const fresh = (i: number) => uniqueCondition(`${Date.now()}${i}`);
const scenarios: Record<string, [string, (i: number) => object]> = {
  'contains on two columns': [`${GVA}/records`, (i) => ({ filters: { account_name: 'tech-?-', city: 'an-?-', ...fresh(i) } })],
  'range on a date and a number': [`${GVA}/records`, () => ({ filters: { partner_first_match_date: '1735689600<->1767225600', number_of_employees: `100<->${5000 + Math.floor(Math.random() * 1e6)}` } })],
  'free-text search': [`${GVA}/records`, (i) => ({ search: 'logistics', filters: fresh(i) })],
  'filterdata string, filtered': [`${GVA}/filterdata?filterField=industry`, (i) => ({ filters: fresh(i) })],
  'dashboard filtered': [`${GVA}/dashboard`, (i) => ({ filters: { country: `DE-,-zz${Date.now()}${i}` } })],
};
for (const [name, [path, body]] of Object.entries(scenarios)) {
  const times: number[] = [];
  for (let i = 0; i < Number(n); i++) {
    const started = performance.now();
    const res = await fetch(url + path, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body(i)) });
    await res.text();
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`${name}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`);
}

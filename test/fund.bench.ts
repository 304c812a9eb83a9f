/**
 * `npm run bench`: the fund-data path on the demo fund: generating the synthetic fund (once per isolate in
 * the Worker), and each endpoint's call (store read, analytics, redaction) at its default and largest
 * parameters. Run on demand, not in `npm test`, since timings on a shared machine are noisy.
 */
import { bench, describe } from 'vitest';
import { callFundTool } from '../lib/fund/definition.ts';
import { embeddedStore } from '../lib/fund/embedded-store.ts';
import { guardedStore } from '../lib/fund/store.ts';
import { DEMO_FUND, generateFund } from '../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../lib/fund/tools/index.ts';

const source = { store: guardedStore(embeddedStore([DEMO_FUND])), fundId: DEMO_FUND.fundId };
const tool = (path: string) => FUND_TOOLS.find((t) => t.path === path)!;
const call = (path: string, args: Record<string, string> = {}) => callFundTool(tool(path), source, {}, args);
await call('overview'); // generate once, outside the timings

describe('synthetic fund', () => {
  bench('generate the demo fund (430 runs, 1,100 days of prices)', () => void generateFund(DEMO_FUND), { iterations: 10 });
});

describe('fund endpoints (demo key path, embedded store)', () => {
  for (const path of ['overview', 'positions', 'breakdown', 'exposure', 'capital-accounts', 'expenses', 'fee-terms', 'nav-history']) {
    bench(path, async () => void (await call(path)));
  }
  bench('exposure/series, days=366', async () => void (await call('exposure/series', { days: '366' })));
  bench('pnl/attribution', async () => void (await call('pnl/attribution', { date: '2026-10-20' })));
  bench('risk/var, ewma, 250 days', async () => void (await call('risk/var')));
  bench('risk/var, sample, 1,000 days', async () => void (await call('risk/var', { method: 'sample', windowDays: '1000' })));
  bench('trial-balance (whole ledger)', async () => void (await call('trial-balance')));
  bench('expenses, limit=500', async () => void (await call('expenses', { limit: '500' })));
});

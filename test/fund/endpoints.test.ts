/**
 * The fund-data REST endpoints (`GET /api/v1/fund/<path>`) through `app.request` with in-memory
 * bindings. Proves that:
 * - with the demo key every endpoint answers 200 JSON, `Cache-Control: private, no-store`, an X-Request-Id,
 *   a body its tool's output schema accepts, and the demo fund's known facts (latest usable run 2026-10-30,
 *   no paper-book holding); a real key reads the deployment's own (sample) fund instead;
 * - every endpoint refuses a missing, malformed, unknown, revoked or non-Bearer credential with 401 and a
 *   key of another fund with 403, with RFC 6750 challenges and no fund data, and none of these is counted
 *   against the burst guard;
 * - the burst guard answers the call over its allowance with 429 and the burst policy's headers, per key
 *   and, for the shared demo key, per client network;
 * - bad, unknown and repeated query parameters are 400 by pointer, never echoing the value;
 * - unknown and unusable NAV runs are 404 and 409; ledger dates outside the books are 404;
 * - other methods are 405 with Allow, preflight is 204 without a key, and a deployment whose FUND_ID the
 *   store does not hold is 404.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { createKey, DEMO_API_KEY, generateKey, revokeKey } from '../../lib/keys.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import type { FundToolDefinition } from '../../lib/fund/definition.ts';
import { DEMO_FUND, SAMPLE_FUND, generateFund } from '../../lib/fund/synthetic.ts';
import type { NavRunRow } from '../../lib/fund/rows.ts';
import { FakeBurst, fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import { isUsableRun } from '../support/contract.ts';

const app = createApp();
const IP = '192.0.2.1';
const DEMO = `Bearer ${DEMO_API_KEY}`;

const demoData = generateFund(DEMO_FUND);
const sampleData = generateFund(SAMPLE_FUND);

const latestUsable = (runs: readonly NavRunRow[]) => [...runs].reverse().find(isUsableRun)!;
const DEMO_LATEST = latestUsable(demoData.runs);
const SAMPLE_LATEST = latestUsable(sampleData.runs);

/** Query strings that make each endpoint answer 200 (P&L attribution needs a date). */
function defaultQuery(path: string, latest: string): string {
  return tool(path).tool === 'get_pnl_attribution' ? `?date=${latest}` : '';
}

/** A fund tool by its MCP name (`get_positions`) or its path (`positions`). */
function tool(nameOrPath: string): FundToolDefinition & { path: string } {
  const def = FUND_TOOLS.find((t) => t.tool === nameOrPath || t.path === nameOrPath);
  if (!def) throw new Error(`no tool ${nameOrPath}`);
  return def;
}

/**
 * GET a fund endpoint through the app: `pathAndQuery` starts with its tool's MCP name (`get_positions?x=1`),
 * which stands for the path its file gives it, or with the path itself.
 */
function get(
  pathAndQuery: string,
  options: { auth?: string | null; ip?: string; method?: string; headers?: Record<string, string> } = {},
  env = fakeEnv().env,
) {
  const headers: Record<string, string> = { 'cf-connecting-ip': options.ip ?? IP, ...options.headers };
  const auth = options.auth === undefined ? DEMO : options.auth;
  if (auth !== null) headers.authorization = auth;
  const [head, query] = pathAndQuery.split(/(?=\?)/);
  const path = head!.startsWith('get_') ? tool(head!).path : head;
  return app.request(`/api/v1/fund/${path}${query ?? ''}`, { method: options.method ?? 'GET', headers }, env);
}

/** Asserts a problem text carries no fund data of either fund. */
function expectNoFundData(text: string): void {
  const lower = text.toLowerCase();
  for (const marker of ['nav', 'positions', 'northstar', 'meridian', 'btc', 'binance', 'marketvalue', 'investor']) {
    expect(lower).not.toContain(marker);
  }
}

async function okJson(res: Response, def: FundToolDefinition): Promise<unknown> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const body: unknown = JSON.parse(await res.text());
  return def.output.parse(body);
}

// Which endpoints exist is the files under functions/ (test/routes.test.ts) and what the docs list of them
// is test/doc-sections.test.ts; this file exercises every declared one.
describe('every endpoint with the demo key', () => {
  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))('GET %s answers 200 with a body its output schema accepts', async (path, def) => {
    const body = await okJson(await get(`${path}${defaultQuery(path, DEMO_LATEST.navDate)}`), def);
    if (tool(path).tool === 'get_exposure_series') expect(Array.isArray(body)).toBe(true);
    else expect(body !== null && typeof body === 'object' && !Array.isArray(body)).toBe(true);
  });

  it('the demo fund is Northstar, its latest usable run 2026-10-30 (the 2026-10-31 run is a recon break)', async () => {
    const last = demoData.runs[demoData.runs.length - 1]!;
    expect(last).toMatchObject({ navDate: '2026-10-31', status: 'complete', reconStatus: 'break' });
    const body = (await okJson(await get('get_fund_overview'), tool('get_fund_overview'))) as {
      name: string;
      currency: string;
      inceptionDate: string;
      shareClasses: { id: string }[];
      latestNav: { navDate: string; nav: string; reconStatus: string };
    };
    expect(body.name).toContain('Northstar');
    expect(body.currency).toBe('USD');
    expect(body.inceptionDate).toBe(demoData.fund.inceptionDate);
    expect(body.shareClasses.map((c) => c.id)).toEqual(['A', 'B', 'I']);
    expect(body.latestNav.navDate).toBe('2026-10-30');
    expect(DEMO_LATEST.navDate).toBe('2026-10-30');
    expect(body.latestNav.nav).toBe(DEMO_LATEST.shadowNav);
    expect(body.latestNav.reconStatus).toBe('matched');
  });

  it('positions are the live book of 2026-10-30 only: never PEPE or Hyperliquid', async () => {
    const body = (await okJson(await get('get_positions'), tool('get_positions'))) as {
      asOf: string;
      nav: string;
      positions: { asset: string; venue: string; quantity: string }[];
    };
    expect(body.asOf).toBe('2026-10-30');
    expect(body.nav).toBe(DEMO_LATEST.shadowNav);
    const live = demoData.positions.filter((p) => p.navDate === '2026-10-30' && p.book === 'live');
    expect(body.positions.map((p) => `${p.asset}|${p.venue}|${p.quantity}`).sort()).toEqual(
      live.map((p) => `${p.asset}|${p.venue}|${p.quantity}`).sort(),
    );
    for (const p of body.positions) {
      expect(['PEPE', 'WIF', 'BONK', 'JUP']).not.toContain(p.asset);
      expect(['Hyperliquid', 'Drift Protocol']).not.toContain(p.venue);
    }
  });

  it('the exposure series is a top-level array of the usable runs of the trailing 30 days, oldest first', async () => {
    const body = (await okJson(await get('get_exposure_series'), tool('get_exposure_series'))) as { date: string }[];
    const from = '2026-09-30'; // 30 days before 2026-10-30, exclusive
    const expected = demoData.runs.filter((r) => r.navDate > from && r.navDate <= '2026-10-30' && isUsableRun(r)).map((r) => r.navDate);
    expect(body.map((r) => r.date)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(20);
    const year = (await okJson(await get('get_exposure_series?days=366'), tool('get_exposure_series'))) as { date: string }[];
    expect(year.length).toBeGreaterThan(body.length);
    expect(year[year.length - 1]!.date).toBe('2026-10-30');
  });

  it('NAV history is newest first from the latest run, whatever its status', async () => {
    const body = (await okJson(await get('get_nav_history'), tool('get_nav_history'))) as {
      runs: { navDate: string; usable: boolean; reconStatus: string | null }[];
    };
    expect(body.runs).toHaveLength(90);
    expect(body.runs[0]).toMatchObject({ navDate: '2026-10-31', usable: false, reconStatus: 'break' });
    expect(body.runs[1]).toMatchObject({ navDate: '2026-10-30', usable: true, reconStatus: 'matched' });
  });

  it('capital accounts close at the latest complete run and sum to its NAV; the trial balance balances', async () => {
    const capital = (await okJson(await get('get_capital_accounts'), tool('get_capital_accounts'))) as {
      navRunDate: string;
      totals: { closingCapital: string };
    };
    expect(capital.navRunDate).toBe('2026-10-31');
    expect(capital.totals.closingCapital).toBe(demoData.runs[demoData.runs.length - 1]!.shadowNav);
    const tb = (await okJson(await get('get_trial_balance'), tool('get_trial_balance'))) as {
      asOf: string;
      balanced: boolean;
      totalDebit: string;
      totalCredit: string;
    };
    expect(tb.asOf).toBe('2026-10-30');
    expect(tb.balanced).toBe(true);
    expect(tb.totalDebit).toBe(tb.totalCredit);
  });

  it('fee terms, VaR defaults and expenses match the fund', async () => {
    const fees = (await okJson(await get('get_fee_terms'), tool('get_fee_terms'))) as {
      shareClasses: { id: string; mgmtFeePct: number; perfFeePct: number }[];
    };
    expect(fees.shareClasses.map((c) => [c.id, c.mgmtFeePct, c.perfFeePct])).toEqual([
      ['A', 2, 20],
      ['B', 1, 10],
      ['I', 1.5, 15],
    ]);
    const v = (await okJson(await get('get_value_at_risk'), tool('get_value_at_risk'))) as {
      asOf: string;
      confidence: number;
      horizonDays: number;
      method: string;
      windowDays: number;
      lambda: number | null;
      componentVar: { asset: string }[];
    };
    expect(v).toMatchObject({ asOf: '2026-10-30', confidence: 0.95, horizonDays: 1, method: 'ewma', windowDays: 250, lambda: 0.94 });
    for (const c of v.componentVar) expect(['PEPE', 'WIF', 'BONK', 'JUP']).not.toContain(c.asset);
    const ex = (await okJson(await get('get_expenses?limit=5'), tool('get_expenses'))) as { expenses: { date: string }[] };
    expect(ex.expenses).toHaveLength(5);
    const dates = ex.expenses.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('P&L attribution of the latest usable run attributes from the usable run before it, with no residual', async () => {
    const body = (await okJson(await get('get_pnl_attribution?date=2026-10-30'), tool('get_pnl_attribution'))) as {
      date: string;
      previousDate: string;
      closingNav: string;
      residual: string;
    };
    const previous = [...demoData.runs].reverse().find((r) => r.navDate < '2026-10-30' && isUsableRun(r))!;
    expect(body).toMatchObject({ date: '2026-10-30', previousDate: previous.navDate, closingNav: DEMO_LATEST.shadowNav, residual: '0.00' });
  });

  it('HEAD is answered like GET, with no body', async () => {
    const res = await get('get_fee_terms', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(await res.text()).toBe('');
  });
});

describe('a real key', () => {
  it("reads the deployment's sample fund (Meridian), not the demo fund", async () => {
    const { env, API_KEYS } = fakeEnv({ FUND_ID: 'sample-fund' });
    const { key } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const real = await get('get_fund_overview', { auth: `Bearer ${key}` }, env);
    const realText = await real.clone().text();
    const body = (await okJson(real, tool('get_fund_overview'))) as {
      name: string;
      inceptionDate: string;
      latestNav: { navDate: string; nav: string };
    };
    expect(body.name).toContain('Meridian');
    expect(body.inceptionDate).toBe(sampleData.fund.inceptionDate);
    expect(body.latestNav.nav).toBe(SAMPLE_LATEST.shadowNav);
    const demoText = await (await get('get_fund_overview', {}, env)).text();
    expect(demoText).toContain('Northstar');
    expect(realText).not.toBe(demoText);
  });

  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))('GET %s answers 200 for the sample fund', async (path, def) => {
    const { env, API_KEYS } = fakeEnv();
    const { key } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    await okJson(await get(`${path}${defaultQuery(path, SAMPLE_LATEST.navDate)}`, { auth: `Bearer ${key}` }, env), def);
  });
});

describe('authentication and scope on every endpoint', () => {
  const fixture = fakeEnv({ FUND_ID: 'sample-fund' });
  const keys = { revoked: '', otherFund: '' };

  beforeAll(async () => {
    const revoked = await createKey(fixture.API_KEYS, { fundId: 'sample-fund' });
    await revokeKey(fixture.API_KEYS, revoked.record.prefix);
    keys.revoked = revoked.key;
    keys.otherFund = (await createKey(fixture.API_KEYS, { fundId: 'other-fund' })).key;
  });

  describe.each(FUND_TOOLS.map((t) => [t.path] as const))('GET %s', (path) => {
    const url = `${path}${defaultQuery(path, DEMO_LATEST.navDate)}`;

    it('401 without an Authorization header, challenge without error=', async () => {
      const res = await get(url, { auth: null }, fixture.env);
      const { problem, text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data"');
      expect(problem.errors).toBeUndefined();
      expectNoFundData(text);
    });

    it('401 invalid_token for a malformed key', async () => {
      const res = await get(url, { auth: 'Bearer svc_dk_short' }, fixture.env);
      const { text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="invalid_token"');
      expectNoFundData(text);
    });

    it('401 invalid_token for a well-formed unknown key', async () => {
      const res = await get(url, { auth: `Bearer ${generateKey()}` }, fixture.env);
      const { text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="invalid_token"');
      expectNoFundData(text);
    });

    it('401 invalid_token for a revoked key, with the same detail as an unknown one', async () => {
      const res = await get(url, { auth: `Bearer ${keys.revoked}` }, fixture.env);
      const { problem, text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="invalid_token"');
      const unknown = await expectProblem(await get(url, { auth: `Bearer ${generateKey()}` }, fixture.env), 401, 'unauthorized');
      expect(problem.detail).toBe(unknown.problem.detail);
      expect(text).not.toContain(keys.revoked);
      expectNoFundData(text);
    });

    it('401 for another scheme (Basic), challenge without error=', async () => {
      const res = await get(url, { auth: 'Basic dXNlcjpwYXNz' }, fixture.env);
      const { text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data"');
      expectNoFundData(text);
    });

    it("403 insufficient_scope for another fund's key", async () => {
      const res = await get(url, { auth: `Bearer ${keys.otherFund}` }, fixture.env);
      const { text } = await expectProblem(res, 403, 'insufficient_scope');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="insufficient_scope"');
      expect(text).not.toContain(keys.otherFund);
      expectNoFundData(text);
    });
  });
});

describe('burst guard', () => {
  it('counts no 401 or 403 against FUND_BURST', async () => {
    const { env, API_KEYS, FUND_BURST } = fakeEnv({ fundBurst: new FakeBurst(2) });
    const revoked = await createKey(API_KEYS, { fundId: 'sample-fund' });
    await revokeKey(API_KEYS, revoked.record.prefix);
    const other = await createKey(API_KEYS, { fundId: 'other-fund' });
    const auths = [null, 'Bearer svc_dk_short', `Bearer ${generateKey()}`, `Bearer ${revoked.key}`, 'Basic xxx', `Bearer ${other.key}`];
    for (const def of FUND_TOOLS) {
      for (const auth of auths) {
        const res = await get(def.path, { auth }, env);
        expect([401, 403]).toContain(res.status);
      }
    }
    expect(FUND_BURST.counts.size).toBe(0);
  });

  it('refuses the third call of a key with 429, Retry-After 60 and the burst policy', async () => {
    const { env, API_KEYS, FUND_BURST } = fakeEnv({ fundBurst: new FakeBurst(2) });
    const { key, record } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const auth = `Bearer ${key}`;
    expect((await get('get_fee_terms', { auth }, env)).status).toBe(200);
    expect((await get('get_fund_overview', { auth, ip: '198.51.100.7' }, env)).status).toBe(200);
    const res = await get('get_fee_terms', { auth }, env);
    const { text } = await expectProblem(res, 429, 'rate_limited');
    expect(res.headers.get('retry-after')).toBe('60');
    expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=120;w=60');
    expectNoFundData(text);
    expect([...FUND_BURST.counts.keys()]).toEqual([`key:${record.keyId}`]);
    expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(3);
  });

  it('limits the shared demo key per client network', async () => {
    const { env, FUND_BURST } = fakeEnv({ fundBurst: new FakeBurst(2) });
    expect((await get('get_fee_terms', { ip: '203.0.113.1' }, env)).status).toBe(200);
    expect((await get('get_fee_terms', { ip: '203.0.113.1' }, env)).status).toBe(200);
    const third = await get('get_fee_terms', { ip: '203.0.113.1' }, env);
    await expectProblem(third, 429, 'rate_limited');
    expect(third.headers.get('retry-after')).toBe('60');
    expect(third.headers.get('ratelimit-policy')).toBe('"burst";q=120;w=60');
    // Another client has its own allowance.
    expect((await get('get_fee_terms', { ip: '203.0.113.2' }, env)).status).toBe(200);
    expect((await get('get_fee_terms', { ip: '203.0.113.2' }, env)).status).toBe(200);
    expect((await get('get_fee_terms', { ip: '203.0.113.2' }, env)).status).toBe(429);
    // IPv6 clients are grouped by /64.
    expect((await get('get_fee_terms', { ip: '2001:db8:1:2::1' }, env)).status).toBe(200);
    expect((await get('get_fee_terms', { ip: '2001:db8:1:2:ffff::9' }, env)).status).toBe(200);
    expect((await get('get_fee_terms', { ip: '2001:db8:1:2::abcd' }, env)).status).toBe(429);
    expect(FUND_BURST.counts.get('demo:203.0.113.1')).toBe(3);
    expect(FUND_BURST.counts.get('demo:203.0.113.2')).toBe(3);
    expect(FUND_BURST.counts.get('demo:2001:db8:1:2::/64')).toBe(3);
  });
});

describe('query validation', () => {
  it.each(FUND_TOOLS.map((t) => [t.path] as const))('GET %s rejects an unknown parameter by name, without its value', async (path) => {
    const extra = tool(path).tool === 'get_pnl_attribution' ? `?date=${DEMO_LATEST.navDate}&foo=VALUEMARKER1` : '?foo=VALUEMARKER1';
    const { problem, text } = await expectProblem(await get(`${path}${extra}`), 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/query/foo', detail: 'is not a known field' }]);
    expect(text).not.toContain('VALUEMARKER1');
  });

  const bad: [string, string][] = [
    ['get_exposure_series?days=0', '/query/days'],
    ['get_exposure_series?days=367', '/query/days'],
    ['get_exposure_series?days=abc', '/query/days'],
    ['get_exposure_series?days=1.5', '/query/days'],
    ['get_exposure_series?days=', '/query/days'],
    ['get_exposure_series?days=5&days=6', '/query/days'],
    ['get_nav_history?days=0', '/query/days'],
    ['get_nav_history?days=3661', '/query/days'],
    ['get_expenses?limit=0', '/query/limit'],
    ['get_expenses?limit=501', '/query/limit'],
    ['get_expenses?limit=10&limit=10', '/query/limit'],
    ['get_value_at_risk?confidence=0.9', '/query/confidence'],
    ['get_value_at_risk?horizonDays=5', '/query/horizonDays'],
    ['get_value_at_risk?method=foo', '/query/method'],
    ['get_value_at_risk?windowDays=19', '/query/windowDays'],
    ['get_value_at_risk?windowDays=1001', '/query/windowDays'],
    ['get_pnl_attribution', '/query/date'],
    ['get_pnl_attribution?date=2026-02-30', '/query/date'],
    ['get_pnl_attribution?date=20261030', '/query/date'],
    ['get_pnl_attribution?date=2026-10-30&date=2026-10-29', '/query/date'],
    ['get_trial_balance?asOf=bad', '/query/asOf'],
    ['get_trial_balance?asOf=2026-13-01', '/query/asOf'],
    // Query numbers are plain decimals (docs/api.md#conventions): no hex, exponent, sign, space or leading zero.
    ...['0x10', '1e1', '%205', '5%20', '+5', '5.0', '05', '-0x1', 'Infinity', '1_0', '３０'].map((v): [string, string] => [
      `get_exposure_series?days=${v}`,
      '/query/days',
    ]),
    ['get_nav_history?days=0x10', '/query/days'],
    ['get_expenses?limit=0x1F', '/query/limit'],
    ['get_expenses?limit=1e1', '/query/limit'],
    ['get_value_at_risk?confidence=.99', '/query/confidence'],
    ['get_value_at_risk?confidence=9.9e-1', '/query/confidence'],
    ['get_value_at_risk?horizonDays=1e1', '/query/horizonDays'],
    ['get_value_at_risk?horizonDays=10.0', '/query/horizonDays'],
    ['get_value_at_risk?windowDays=0x20', '/query/windowDays'],
  ];
  it('says a missing required parameter is required, and a repeated one that it is repeated', async () => {
    const missing = await expectProblem(await get('get_pnl_attribution'), 400, 'invalid_request');
    expect(missing.problem.errors).toEqual([{ pointer: '/query/date', detail: 'is required' }]);
    const twice = await expectProblem(await get('get_pnl_attribution?date=2026-10-30&date=2026-10-29'), 400, 'invalid_request');
    expect(twice.problem.errors).toEqual([{ pointer: '/query/date', detail: 'must be given once (the parameter is repeated)' }]);
    const twiceNumber = await expectProblem(await get('get_expenses?limit=10&limit=10'), 400, 'invalid_request');
    expect(twiceNumber.problem.errors).toEqual([{ pointer: '/query/limit', detail: 'must be given once (the parameter is repeated)' }]);
  });

  it('names the decimal grammar a query number broke, not the value', async () => {
    const { problem, text } = await expectProblem(await get('get_expenses?limit=0x1F'), 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/query/limit', detail: 'must be a decimal integer' }]);
    expect(text).not.toContain('0x1F');
    const var_ = await expectProblem(await get('get_value_at_risk?confidence=.99'), 400, 'invalid_request');
    expect(var_.problem.errors).toEqual([{ pointer: '/query/confidence', detail: 'must be a decimal number' }]);
  });

  it.each(bad)('GET %s → 400 at %s', async (url, pointer) => {
    const { problem } = await expectProblem(await get(url), 400, 'invalid_request');
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e.pointer).toBe(pointer);
  });

  it('accepts every boundary value', async () => {
    for (const url of [
      'get_exposure_series?days=1',
      'get_exposure_series?days=366',
      'get_nav_history?days=1',
      'get_nav_history?days=3660',
      'get_expenses?limit=1',
      'get_expenses?limit=500',
      'get_value_at_risk?confidence=0.99&horizonDays=10&method=sample&windowDays=20',
      'get_value_at_risk?windowDays=1000',
      'get_trial_balance?asOf=2026-10-30',
    ]) {
      expect((await get(url)).status, url).toBe(200);
    }
  });

  it('never echoes a submitted value in the problem', async () => {
    for (const [url, marker] of [
      ['get_exposure_series?days=99999abc', '99999abc'],
      ['get_nav_history?days=88888zzq', '88888zzq'],
      ['get_expenses?limit=77777qqz', '77777qqz'],
      ['get_value_at_risk?method=zzmarkerzz', 'zzmarkerzz'],
      ['get_value_at_risk?confidence=0.912345', '0.912345'],
      ['get_value_at_risk?windowDays=654321', '654321'],
      ['get_pnl_attribution?date=2026-99-99xyz', '2026-99-99xyz'],
      ['get_pnl_attribution?date=2026-02-30', '2026-02-30'],
      ['get_trial_balance?asOf=asofmarker42', 'asofmarker42'],
    ] as const) {
      const res = await get(url);
      const { text } = await expectProblem(res, 400, 'invalid_request');
      expect(text, url).not.toContain(marker);
      for (const [, value] of res.headers) expect(value).not.toContain(marker);
    }
  });
});

describe('404 and 409', () => {
  const runs = demoData.runs;
  const first = runs[0]!;
  const failed = runs.find((r) => r.status === 'failed')!;
  const partial = runs.find((r) => r.status === 'partial')!;
  const brk = runs.find((r) => r.status === 'complete' && r.reconStatus === 'break')!;

  it('the demo fund has failed, partial and break runs to test with', () => {
    expect([failed, partial, brk].every(Boolean)).toBe(true);
    expect(isUsableRun(first)).toBe(true);
  });

  it('P&L attribution for a date with no run is 404 giving the dates of the first and last run', async () => {
    const last = runs[runs.length - 1]!;
    for (const date of ['2020-01-01', '2026-11-01', '2025-08-27']) {
      expect(runs.some((r) => r.navDate === date)).toBe(false);
      const { problem, text } = await expectProblem(await get(`get_pnl_attribution?date=${date}`), 404, 'not_found');
      expect(text).not.toContain(date);
      expect(problem.detail).toBe(
        `No NAV run is dated on that day. This fund's NAV runs are dated from ${first.navDate} to ${last.navDate}; the NAV history lists each one and whether it is usable.`,
      );
    }
  });

  it.each([
    ['failed', () => failed],
    ['partial', () => partial],
    ['break', () => brk],
  ] as const)('P&L attribution for a %s run is 409 not_usable', async (_kind, run) => {
    const date = run().navDate;
    const { problem, text } = await expectProblem(await get(`get_pnl_attribution?date=${date}`), 409, 'not_usable');
    expect(problem.detail).toMatch(
      /^The NAV run of that day (is (failed|partial), not complete|did not reconcile with the administrator)\.$/,
    );
    expect(text).not.toContain(date);
    for (const figure of [run().shadowNav, run().adminNav]) if (figure !== null) expect(text).not.toContain(figure);
  });

  it('P&L attribution for the latest run (a break) is 409', async () => {
    await expectProblem(await get('get_pnl_attribution?date=2026-10-31'), 409, 'not_usable');
  });

  it('P&L attribution for the first run (no usable run before it) is 404', async () => {
    await expectProblem(await get(`get_pnl_attribution?date=${first.navDate}`), 404, 'not_found');
  });

  it('P&L attribution for the run after a failed one attributes from the last usable run before it', async () => {
    const i = runs.indexOf(failed);
    const next = runs[i + 1]!;
    expect(isUsableRun(next)).toBe(true);
    const body = (await okJson(await get(`get_pnl_attribution?date=${next.navDate}`), tool('get_pnl_attribution'))) as {
      previousDate: string;
      residual: string;
    };
    expect(body.previousDate).toBe(runs[i - 1]!.navDate);
    expect(body.residual).toBe('0.00');
  });

  it('the trial balance before inception or after the last run is 404', async () => {
    const before = '2025-08-27';
    expect(demoData.fund.inceptionDate).toBe('2025-08-28');
    await expectProblem(await get(`get_trial_balance?asOf=${before}`), 404, 'not_found');
    await expectProblem(await get('get_trial_balance?asOf=2026-11-01'), 404, 'not_found');
    await expectProblem(await get('get_trial_balance?asOf=2000-01-01'), 404, 'not_found');
  });

  it.each(['2025-08-28', '2026-03-13', '2026-06-30', '2026-10-31'])('the trial balance as of %s balances', async (asOf) => {
    const body = (await okJson(await get(`get_trial_balance?asOf=${asOf}`), tool('get_trial_balance'))) as {
      asOf: string;
      balanced: boolean;
      totalDebit: string;
      totalCredit: string;
      accounts: unknown[];
    };
    expect(body.asOf).toBe(asOf);
    expect(body.balanced).toBe(true);
    expect(body.totalDebit).toBe(body.totalCredit);
    expect(body.accounts.length).toBeGreaterThan(0);
  });
});

describe('methods, preflight and deployment', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s on every fund path is 405 with Allow', async (method) => {
    for (const def of FUND_TOOLS) {
      const res = await get(def.path, { method }, fakeEnv().env);
      const { text } = await expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expectNoFundData(text);
    }
  });

  it('answers a CORS preflight with 204 without a key, counting nothing', async () => {
    const { env, FUND_BURST } = fakeEnv();
    for (const def of FUND_TOOLS) {
      const res = await app.request(
        `/api/v1/fund/${def.path}`,
        {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example',
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'authorization',
          },
        },
        env,
      );
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
      expect(await res.text()).toBe('');
    }
    expect(FUND_BURST.counts.size).toBe(0);
  });

  it.each(FUND_TOOLS.map((t) => [t.path] as const))('GET %s is 404 when the store does not hold the deployment fund', async (path) => {
    const { env, API_KEYS } = fakeEnv({ FUND_ID: 'ghost-fund' });
    const { key } = await createKey(API_KEYS, { fundId: 'ghost-fund' });
    const { text } = await expectProblem(
      await get(`${path}${defaultQuery(path, DEMO_LATEST.navDate)}`, { auth: `Bearer ${key}` }, env),
      404,
      'not_found',
    );
    expectNoFundData(text);
    // A sample-fund key is another fund's key for this deployment.
    const sample = await createKey(API_KEYS, { fundId: 'sample-fund' });
    await expectProblem(await get(path, { auth: `Bearer ${sample.key}` }, env), 403, 'insufficient_scope');
  });
});

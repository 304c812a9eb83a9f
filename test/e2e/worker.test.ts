/**
 * End to end over real HTTP against the Worker in workerd (wrangler's `unstable_startWorker`, port 0),
 * with KV persisted to a temporary folder so a restart keeps the counters, and a key minted by the real
 * `npm run keys` CLI into that same folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';
import { CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { QUOTA_SYNC_MS, secondsToUtcMidnight } from '../../lib/rate-limit.ts';
import { createApp } from '../../lib/service.ts';
import { fakeEnv } from '../support/fakes.ts';
import { fundUrl, calcPath } from '../support/declared.ts';
import { capitalAssetPath, fundAssetPath } from '../../lib/fund/synthetic/codec.ts';

/** The Worker counts by real UTC day: a loop of hundreds of calls must not straddle midnight. */
async function awayFromMidnight(): Promise<void> {
  const left = secondsToUtcMidnight(new Date());
  if (left < 30) await new Promise((resolve) => setTimeout(resolve, (left + 1) * 1000));
}

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-e2e-'));
let worker: TestWorker;
let base: string;

/** What the Worker logged (at log level `error`, wrangler prints lib/log.ts lines in this process). */
const workerStderr: string[] = [];

async function start(): Promise<void> {
  // The burst guard (60/min) is the production setting; here it is raised so that one test can make
  // 600 calls in a few seconds and reach the daily quota, which is what these tests are about.
  worker = await startWorker(
    persistDir,
    { CALC_BURST: { type: 'ratelimit', namespace_id: '1001', simple: { limit: 100_000, period: 60 } } },
    'error',
  );
  base = worker.base;
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

let fundKey: string;
let sampleKey: string;

beforeAll(async () => {
  // A key of a fund this deployment does not serve, with a 600/day calculator limit; and a key of the
  // embedded local sample fund (wrangler.toml FUND_ID), as `npm run keys -- create --fund sample-fund` makes.
  fundKey = await mintKey(persistDir, ['--fund', 'e2e-fund', '--label', 'e2e', '--daily-calc-limit', '600']);
  sampleKey = await mintKey(persistDir, ['--fund', 'sample-fund', '--label', 'e2e sample']);
  // wrangler prints the Worker's errors through console.error (and vitest captures those).
  for (const stream of ['stderr', 'stdout'] as const) {
    const write = process[stream].write.bind(process[stream]);
    vi.spyOn(process[stream], 'write').mockImplementation((chunk, ...rest) => {
      workerStderr.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
  }
  for (const level of ['error', 'warn', 'log'] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      workerStderr.push(args.map(String).join(' '));
      original(...args);
    });
  }
  await start();
});

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

describe('calculators over HTTP', () => {
  it.each(CALCULATORS.map((c) => c.path))('%s answers 200 with inputs, disclaimer and rate-limit headers', async (slug) => {
    const res = await post(`/api/v1/calc/${slug}`, {}, { 'cf-connecting-ip': '198.51.100.1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
    expect(res.headers.get('ratelimit')).toMatch(/^"daily";r=\d+;t=\d+$/);
    const body = (await res.json()) as { inputs: unknown; disclaimer: string };
    expect(body.inputs).toBeTypeOf('object');
    expect(body.disclaimer).toMatch(/not accounting, tax or investment advice/i);
  });

  it('reproduces the CFA Kettleside example through the whole stack', async () => {
    const res = await post(
      calcPath('fee-calculator'),
      {
        startingNavUsd: 100,
        annualGrossReturnPct: 30,
        mgmtFeePct: 1,
        perfFeePct: 20,
        horizonYears: 1,
        mgmtFeeBasis: 'closing',
        perfFeeNetOfMgmtFee: true,
        hurdlePct: 6,
      },
      { 'cf-connecting-ip': '198.51.100.2' },
    );
    const body = (await res.json()) as { totalFeesUsd: number; netCumulativeReturnPct: number };
    expect(body.totalFeesUsd).toBe(5.84);
    expect(body.netCumulativeReturnPct).toBe(24.16);
  });

  it('answers bad input with problem+json that does not echo the value', async () => {
    const res = await post(calcPath('fee-calculator'), { horizonYears: 'secret-value-123' }, { 'cf-connecting-ip': '198.51.100.3' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const text = await res.text();
    expect(text).not.toContain('secret-value-123');
    expect(JSON.parse(text)).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/body/horizonYears' }] });
  });

  it('serves the OpenAPI document listing every calculator', async () => {
    const res = await fetch(`${base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    for (const c of CALCULATORS) expect(doc.paths).toHaveProperty([`/api/v1/calc/${c.path}`]);
  });
});

describe('fund data over HTTP', () => {
  const get = (path: string, key?: string) =>
    fetch(`${base}${fundUrl(path)}`, { headers: key ? { authorization: `Bearer ${key}`, 'cf-connecting-ip': '198.51.100.50' } : {} });
  const sample = (path: string) =>
    FUND_TOOLS.find((t) => t.path === path)?.tool === 'get_pnl_attribution' ? `${path}?date=2026-10-20` : path;

  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))(
    '%s answers the demo key with its redacted, schema-valid body',
    async (path, tool) => {
      const res = await get(sample(path), DEMO_API_KEY);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const text = await res.text();
      expect(() => tool.output.parse(JSON.parse(text))).not.toThrow();
      expect(text).not.toMatch(/@|svc_dk_|PEPE|Hyperliquid/);
    },
  );

  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))('%s answers a key minted for the local sample fund', async (path, tool) => {
    const res = await get(sample(path), sampleKey);
    expect(res.status).toBe(200);
    const body: unknown = await res.json();
    expect(() => tool.output.parse(body)).not.toThrow();
  });

  it('reads the embedded funds from their build-time assets: the answers of the simulated funds, no fault logged', async () => {
    // In process, without an ASSETS binding, the embedded store simulates the funds (lib/fund/embedded-store.ts).
    const { env } = fakeEnv();
    const simulated = { ...env, ASSETS: undefined };
    const app = createApp();
    for (const tool of FUND_TOOLS) {
      const path = sample(tool.path);
      const inWorkerd = await get(path, DEMO_API_KEY);
      const inProcess = await app.request(`/api/v1/fund/${path}`, { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }, simulated);
      expect(inWorkerd.status).toBe(200);
      expect(await inWorkerd.text()).toBe(await inProcess.text());
    }
    // The sample fund (its minted key exists only in workerd's KV).
    expect((await get('get_fund_overview', sampleKey)).status).toBe(200);
    // Without an asset the store logs `fund_asset_unusable` (and simulates): the Worker read every asset.
    expect(workerStderr.join('')).not.toContain('fund_asset_unusable');
  });

  it.each(['demo-fund', 'sample-fund'].flatMap((fundId) => [fundAssetPath(fundId), capitalAssetPath(fundId)]))(
    'never serves the fund asset %s: 404 problem, no fund data',
    async (path) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'not_found', status: 404 });
      expect(text).not.toMatch(/FEFD|INV-|@example/);
    },
  );

  it('serves the OpenAPI template only filled in, as /api/v1/openapi.json', async () => {
    const template = await fetch(`${base}/docs/openapi.template.json`);
    expect(template.status).toBe(404);
    expect(JSON.parse(await template.text())).toMatchObject({ code: 'not_found', status: 404 });
    const served = await fetch(`${base}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    const text = await served.text();
    expect(text).not.toContain('server-url.invalid');
    expect(JSON.parse(text)).toMatchObject({ openapi: '3.1.0' });
  });

  it('serves the llms-full template only filled in, as /llms-full.txt (read from the assets, not bundled)', async () => {
    const template = await fetch(`${base}/docs/llms-full.template.md`);
    expect(template.status).toBe(404);
    expect(JSON.parse(await template.text())).toMatchObject({ code: 'not_found', status: 404 });
    const served = await fetch(`${base}/llms-full.txt`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await served.text();
    expect(text).not.toContain('{{origin}}');
    expect(text).toContain(`${base}/`);
  });

  it('serves each key its own fund', async () => {
    const demo = (await (await get('get_fund_overview', DEMO_API_KEY)).json()) as { name: string };
    const own = (await (await get('get_fund_overview', sampleKey)).json()) as { name: string };
    expect(demo.name).toMatch(/Northstar/);
    expect(own.name).toMatch(/Meridian/);
  });

  it('refuses a missing key with 401, and a key of another fund with 403, without data', async () => {
    const none = await get('get_positions');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="fund-data"');
    const other = await get('get_positions', fundKey);
    expect(other.status).toBe(403);
    const body = (await other.json()) as Record<string, unknown>;
    expect(body.code).toBe('insufficient_scope');
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
  });

  it('answers a missing date with 400 and a failed run with 409', async () => {
    const missing = await get('get_pnl_attribution', DEMO_API_KEY);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/query/date' }] });
    const history = (await (await get('get_nav_history?days=3660', DEMO_API_KEY)).json()) as {
      runs: { navDate: string; status: string }[];
    };
    const failed = history.runs.find((r) => r.status === 'failed')!;
    const res = await get(`get_pnl_attribution?date=${failed.navDate}`, DEMO_API_KEY);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe('not_usable');
  });
});

describe('daily quota over HTTP with persisted KV', () => {
  it('counts remaining calls down from 500 per caller', async () => {
    const ip = '203.0.113.10';
    const first = await post(calcPath('operating-cost-calculator'), {}, { 'cf-connecting-ip': ip });
    const second = await post(calcPath('operating-cost-calculator'), {}, { 'cf-connecting-ip': ip });
    expect(first.headers.get('ratelimit')).toMatch(/^"daily";r=499;t=\d+$/);
    expect(second.headers.get('ratelimit')).toMatch(/^"daily";r=498;t=\d+$/);
  });

  it('groups IPv6 callers by /64', async () => {
    const a = await post(calcPath('operating-cost-calculator'), {}, { 'cf-connecting-ip': '2001:db8:1:2::1' });
    const b = await post(calcPath('operating-cost-calculator'), {}, { 'cf-connecting-ip': '2001:db8:1:2:ffff::9' });
    expect(a.headers.get('ratelimit')).toMatch(/r=499;/);
    expect(b.headers.get('ratelimit')).toMatch(/r=498;/);
  });

  it('refuses the 501st anonymous call of the day with 429 and Retry-After, and keeps the count across a restart', async () => {
    const ip = '203.0.113.20';
    await awayFromMidnight();
    for (let i = 1; i <= 500; i++) {
      const res = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': ip });
      if (res.status !== 200) throw new Error(`call ${i} answered ${res.status}`);
      await res.arrayBuffer();
    }
    const refused = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(refused.headers.get('ratelimit')).toBe(`"daily";r=0;t=${retryAfter}`);
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');

    // The count reaches KV behind the answers, within about a second (docs/api.md#accuracy-of-the-daily-quota);
    // stopping workerd drops work still behind a response, so the restart waits for it.
    await new Promise((resolve) => setTimeout(resolve, 2 * QUOTA_SYNC_MS + 500));
    await worker.dispose();
    await start();
    const afterRestart = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': ip });
    expect(afterRestart.status).toBe(429);
    const other = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': '203.0.113.21' });
    expect(other.status).toBe(200);
  });

  it('lets a key minted with a higher limit go past 500, counted against the key, not the IP', async () => {
    const auth = { authorization: `Bearer ${fundKey}`, 'cf-connecting-ip': '203.0.113.30' };
    let last: Response | undefined;
    await awayFromMidnight();
    for (let i = 1; i <= 501; i++) {
      last = await post(calcPath('lp-report-grader'), {}, auth);
      if (last.status !== 200) throw new Error(`call ${i} answered ${last.status}`);
      if (i < 501) await last.arrayBuffer();
    }
    expect(last!.headers.get('ratelimit-policy')).toBe('"daily";q=600;w=86400');
    expect(last!.headers.get('ratelimit')).toMatch(/^"daily";r=99;t=\d+$/);
    // The same IP without the key still has its whole anonymous quota.
    const anonymous = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': '203.0.113.30' });
    expect(anonymous.headers.get('ratelimit')).toMatch(/^"daily";r=499;/);
  });

  it('answers an unknown key with 401 and does not count it', async () => {
    const ip = '203.0.113.40';
    const bad = await post(calcPath('lp-report-grader'), {}, { authorization: `Bearer svc_dk_${'x'.repeat(32)}`, 'cf-connecting-ip': ip });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="invalid_token"');
    const ok = await post(calcPath('lp-report-grader'), {}, { 'cf-connecting-ip': ip });
    expect(ok.headers.get('ratelimit')).toMatch(/r=499;/);
  });
});

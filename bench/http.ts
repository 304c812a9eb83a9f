/**
 * Latency and throughput over HTTP, as a client sees them: the Worker under wrangler's dev server
 * (`unstable_startWorker`, workerd on 127.0.0.1, port 0, no inspector, no watcher, KV in a temp folder) and,
 * in the same run and the same setup, the bare baseline Worker of bench/baseline-worker.ts under the
 * service's own compatibility settings and static-assets routing ({@link baselineConfig}), requested at a
 * path the routing hands to the Worker first as it does every target's, so that the only difference is our
 * code. Load: autocannon, 2 connections, loopback only, fixed durations.
 *
 * Targets: one calculator (the fee calculator, POST `{}`), three fund endpoints with the demo key
 * (overview, positions, VaR), a `tools/call` on each MCP server (public: calc_fee_calculator; fund:
 * get_fund_overview, with a key of `sample-fund` minted by the real CLI, `npm run keys`), and three probes
 * (information, no budget) that run the same paths with next to no computation, to tell a path's fixed
 * costs (key lookup and quota counter in KV, rate-limit binding) from its work.
 *
 * The machine is shared and noisy (the baseline alone can drift by half between two runs a minute apart),
 * so each target is measured interleaved with the baseline: after a 1 s warm-up, five 1 s slices of the
 * target alternate with five 1 s slices of the baseline (ABBA order); the target's ratios are to the
 * baseline measured alongside it. The baseline is sent the target's own request ({@link baselineFor}: its
 * method, headers and body; it reads the body and ignores the rest), because locally a request body is not
 * free: wrangler's dev proxy and Miniflare's routing Workers pass it on, hop by hop, on the CPU the Worker
 * runs on. The bare Worker answers a POST of `{}` at about 0.9× its GET throughput on this machine (0.07 ms
 * more per request), a cost of the local setup that a deployed Worker does not pay. A POST target's note and
 * the diagnostics also give its ratio to the GET baseline. The baseline's rows pool its GET slices.
 *
 * The limits that would refuse a load test are lifted: `CALC_BURST` and `FUND_BURST` are bound to
 * 10,000,000 per 60 s, and calculator calls carry a key minted with `--daily-calc-limit 100000000`. Failed
 * responses (non-2xx, socket errors, timeouts; a 429 among them) have a budget of 0, and a check request
 * before each load must succeed.
 *
 * Figures: requests/s (responses ÷ measured seconds), p50 and p99 latency. The percentiles are computed from
 * autocannon's own per-response times (its `response` events, sub-millisecond); autocannon's histogram,
 * which rounds to whole milliseconds, is in the note (median over the slices). Budgets (docs/performance.md):
 * throughput ≥ 0.8 × the baseline's for calculators, ≥ 0.6 × for fund endpoints, ≥ 0.5 × for MCP calls.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { unstable_readConfig, unstable_startWorker } from 'wrangler';
import { mintKey } from '../test/support/worker.ts';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_API_KEY } from '../lib/keys.ts';
import {
  Cleanup,
  DEFAULT_LOAD,
  ROOT,
  atMost,
  figure,
  median,
  ms,
  percentile,
  progress,
  ratioAtLeast,
  useWranglerEnv,
  type Budget,
  type Figure,
  type LoadSettings,
} from './report.ts';
import { FEE_CALCULATOR, FEE_TERMS, OPERATING_COST, OVERVIEW, POSITIONS, VALUE_AT_RISK, short } from './targets.ts';

/** Budgets (docs/performance.md): throughput as a fraction of the baseline's. */
export const HTTP_BUDGETS = { calculator: 0.8, fund: 0.6, mcp: 0.5 } as const;

/** The burst bindings, raised so that a load test is not refused (wrangler.toml keeps the real limits). */
const RAISED_LIMITS = {
  CALC_BURST: { type: 'ratelimit', namespace_id: '1001', simple: { limit: 10_000_000, period: 60 } },
  FUND_BURST: { type: 'ratelimit', namespace_id: '1002', simple: { limit: 10_000_000, period: 60 } },
};

interface Target {
  id: string;
  label: string;
  /** Which budget applies; `probe`: information only (separates fixed costs from the targets' own). */
  kind: 'baseline' | 'calculator' | 'fund' | 'mcp' | 'probe';
  base: 'service' | 'baseline';
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Checks one answer's body; returns a problem or null. */
  check(status: number, body: string): string | null;
}

interface Started {
  base: string;
  dispose(): Promise<void>;
}

type StartOptions = Parameters<typeof unstable_startWorker>[0];

/** Starts a Worker from a wrangler config file, on 127.0.0.1 with a free port. */
async function startWorker(config: string, persist: string, bindings: Record<string, unknown> = {}): Promise<Started> {
  useWranglerEnv();
  const worker = await unstable_startWorker({
    config,
    bindings,
    dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false, persist, watch: false, logLevel: 'none' },
  } as StartOptions);
  try {
    await worker.ready;
    return { base: (await worker.url).toString().replace(/\/$/, ''), dispose: () => worker.dispose() };
  } catch (err) {
    await worker.dispose().catch(() => {});
    throw err;
  }
}

/**
 * The baseline Worker's wrangler configuration: the service's own (wrangler.toml, read by wrangler) but for
 * its name, its code and its bindings, so the baseline runs under the same compatibility date and flags and
 * behind the same static-assets routing. That routing is not free locally: with `[assets]`, Miniflare answers
 * each request in a router Worker and an asset Worker before the user Worker (about 0.3 ms of workerd's CPU
 * per request on this machine, measured by answering at once from the top of our Worker's `fetch`: 0.52 ms
 * per request, against 0.22 ms for the baseline without the routing). Without it the baseline's
 * lead over the service held that routing's cost, which is neither our code nor a deployment's Worker CPU.
 */
export function baselineConfig(): Record<string, unknown> {
  const service = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') });
  if (!service.assets) throw new Error('wrangler.toml has no [assets]: the baseline copies its routing');
  return {
    name: 'fund-edge-bench-baseline',
    main: join(ROOT, 'bench', 'baseline-worker.ts'),
    compatibility_date: service.compatibility_date,
    compatibility_flags: service.compatibility_flags,
    assets: { ...service.assets, directory: join(ROOT, 'public') },
  };
}

const json = { 'content-type': 'application/json' };
const mcpHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
};
const toolCall = (name: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

function expectJson(status: number, body: string): string | null {
  if (status !== 200) return `status ${status}`;
  try {
    JSON.parse(body);
    return null;
  } catch {
    return 'body is not JSON';
  }
}

function expectToolResult(status: number, body: string): string | null {
  if (status !== 200) return `status ${status}`;
  try {
    const rpc = JSON.parse(body) as { result?: { isError?: boolean }; error?: { message?: string } };
    if (rpc.error) return `JSON-RPC error ${rpc.error.message ?? ''}`;
    if (!rpc.result || rpc.result.isError) return 'tool answered isError';
    return null;
  } catch {
    return 'body is not JSON';
  }
}

/** The bare baseline: what every target is compared with. */
/** Where the baseline is requested: under the service's run_worker_first routes, as every target is. */
export const BASELINE_PATH = '/api/v1/baseline';

const BASELINE: Target = {
  id: 'baseline',
  label: 'baseline: bare Worker',
  kind: 'baseline',
  base: 'baseline',
  path: BASELINE_PATH,
  method: 'GET',
  headers: {},
  check: expectJson,
};

/**
 * The baseline request measured alongside a target: the bare Worker, at {@link BASELINE_PATH}, sent the
 * target's method, headers and body (it reads the body, as the target does), so that the two differ only by
 * our code.
 */
export function baselineFor(t: Target): Target {
  if (t.method === 'GET' && t.body === undefined) return BASELINE;
  return { ...BASELINE, label: `${BASELINE.label} (${t.method} of the target's body)`, method: t.method, headers: t.headers, body: t.body };
}

function targets(key: string): Target[] {
  const demo = { authorization: `Bearer ${DEMO_API_KEY}` };
  const minted = { authorization: `Bearer ${key}` };
  const fund = (path: string): Target => ({
    id: short(path).replace(/\//g, '-'),
    label: `GET ${short(path)} (demo key)`,
    kind: 'fund',
    base: 'service',
    path,
    method: 'GET',
    headers: demo,
    check: expectJson,
  });
  const post = (path: string): Omit<Target, 'id' | 'label' | 'kind'> => ({
    base: 'service',
    path,
    method: 'POST',
    headers: { ...json, ...minted },
    body: '{}',
    check: expectJson,
  });
  return [
    { id: 'calc', label: `POST ${short(FEE_CALCULATOR)} {}`, kind: 'calculator', ...post(FEE_CALCULATOR) },
    fund(OVERVIEW),
    fund(POSITIONS),
    fund(VALUE_AT_RISK),
    {
      id: 'mcp-public',
      label: 'MCP public: calc_fee_calculator',
      kind: 'mcp',
      base: 'service',
      path: '/api/mcp/public',
      method: 'POST',
      headers: { ...mcpHeaders, ...minted },
      body: toolCall('calc_fee_calculator'),
      check: expectToolResult,
    },
    {
      id: 'mcp-fund',
      label: 'MCP fund: get_fund_overview (minted key)',
      kind: 'mcp',
      base: 'service',
      path: '/api/mcp',
      method: 'POST',
      headers: { ...mcpHeaders, ...minted },
      body: toolCall('get_fund_overview'),
      check: expectToolResult,
    },
    { id: 'probe-calc', label: `probe: POST ${short(OPERATING_COST)} {}`, kind: 'probe', ...post(OPERATING_COST) },
    { ...fund(FEE_TERMS), id: 'probe-fund-demo', label: `probe: GET ${short(FEE_TERMS)} (demo key)`, kind: 'probe' },
    { ...fund(FEE_TERMS), id: 'probe-fund-key', label: `probe: GET ${short(FEE_TERMS)} (minted key)`, kind: 'probe', headers: minted },
  ];
}

/** What the paired slices of one target (or of the baseline) add up to. */
interface Tally {
  responses: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  codes: Record<string, number>;
  /** Per-2xx-response times, ms. */
  times: number[];
  /** autocannon's own (whole-ms) p50 and p99 of each slice. */
  slicesP50: number[];
  slicesP99: number[];
}

const emptyTally = (): Tally => ({
  responses: 0,
  ok: 0,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  seconds: 0,
  codes: {},
  times: [],
  slicesP50: [],
  slicesP99: [],
});

function add(t: Tally, r: Result, times: readonly number[]): void {
  t.ok += r['2xx'];
  t.non2xx += r.non2xx;
  t.responses += r['2xx'] + r.non2xx;
  t.errors += r.errors;
  t.timeouts += r.timeouts;
  t.seconds += r.duration;
  for (const [code, v] of Object.entries(r.statusCodeStats)) t.codes[code] = (t.codes[code] ?? 0) + v.count;
  t.times.push(...times);
  t.slicesP50.push(r.latency.p50);
  t.slicesP99.push(r.latency.p99);
}

const rps = (t: Tally) => (t.seconds > 0 ? t.ok / t.seconds : 0);

/** One autocannon run of `seconds`; returns its result and the time of every 2xx response. */
async function load(url: string, t: Target, seconds: number, connections: number): Promise<{ result: Result; times: number[] }> {
  const times: number[] = [];
  const instance = autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    method: t.method,
    headers: t.headers,
    ...(t.body !== undefined ? { body: t.body } : {}),
    timeout: 10,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    if (status >= 200 && status < 300) times.push(responseTime);
  });
  return { result: await instance, times };
}

/** One target's measurement and the baseline slices measured alongside it. */
interface Measurement {
  target: Target;
  problem: string | null;
  tally: Tally;
  baseline: Tally;
}

/** The HTTP section. */
export async function runHttp(settings: LoadSettings = DEFAULT_LOAD): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  try {
    const dir = cleanup.tempDir('fund-edge-bench-http-');
    const persist = join(dir, 'state');

    progress('http: minting a sample-fund key with --daily-calc-limit 100000000 (npm run keys)');
    const key = await mintKey(persist, ['--fund', 'sample-fund', '--label', 'bench', '--daily-calc-limit', '100000000']);

    progress('http: starting the Worker and the baseline Worker (unstable_startWorker)');
    const baselineConfigFile = join(dir, 'baseline.wrangler.json');
    writeFileSync(baselineConfigFile, JSON.stringify(baselineConfig()));
    const service = await startWorker(join(ROOT, 'wrangler.toml'), persist, RAISED_LIMITS);
    cleanup.add('dispose the Worker', () => service.dispose());
    const baseline = await startWorker(baselineConfigFile, join(dir, 'baseline-state'));
    cleanup.add('dispose the baseline Worker', () => baseline.dispose());

    const urlOf = (t: Target) => `${t.base === 'service' ? service.base : baseline.base}${t.path}`;
    const check = async (t: Target) => {
      try {
        const res = await fetch(urlOf(t), { method: t.method, headers: t.headers, ...(t.body !== undefined ? { body: t.body } : {}) });
        return t.check(res.status, await res.text());
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    };
    const baselineProblem = await check(BASELINE);
    if (baselineProblem) throw new Error(`the baseline Worker does not answer: ${baselineProblem}`);
    await load(urlOf(BASELINE), BASELINE, settings.warmupSeconds || 1, settings.connections);

    const measurements: Measurement[] = [];
    const slices = Math.max(1, Math.round(settings.durationSeconds));
    for (const t of targets(key)) {
      const base = baselineFor(t);
      progress(
        `http: ${t.label}: ${settings.warmupSeconds} s warm-up, then ${slices} × 1 s interleaved with ${slices} × 1 s of the baseline (${base.method})`,
      );
      const m: Measurement = { target: t, problem: (await check(t)) ?? (await check(base)), tally: emptyTally(), baseline: emptyTally() };
      measurements.push(m);
      if (m.problem) continue;
      try {
        if (settings.warmupSeconds > 0) await load(urlOf(t), t, settings.warmupSeconds, settings.connections);
        for (let i = 0; i < slices; i++) {
          // ABBA: the baseline goes first in even slices, second in odd ones, so a trend cancels out.
          const order = i % 2 === 0 ? [base, t] : [t, base];
          for (const x of order) {
            const { result, times } = await load(urlOf(x), x, 1, settings.connections);
            add(x === base ? m.baseline : m.tally, result, times);
          }
        }
      } catch (err) {
        m.problem = err instanceof Error ? err.message : String(err);
      }
    }
    return toFigures(measurements, settings);
  } finally {
    await cleanup.run();
  }
}

function toFigures(measurements: readonly Measurement[], settings: LoadSettings): { figures: Figure[]; diagnostics: string[] } {
  const figures: Figure[] = [];
  const diagnostics: string[] = [];
  const pooled = emptyTally();
  const pooledPost = emptyTally();
  for (const m of measurements) {
    const b = m.baseline;
    if (m.target.method !== 'GET') {
      pooledPost.ok += b.ok;
      pooledPost.seconds += b.seconds;
      continue;
    }
    pooled.ok += b.ok;
    pooled.non2xx += b.non2xx;
    pooled.responses += b.responses;
    pooled.errors += b.errors;
    pooled.timeouts += b.timeouts;
    pooled.seconds += b.seconds;
    pooled.times.push(...b.times);
    pooled.slicesP50.push(...b.slicesP50);
    pooled.slicesP99.push(...b.slicesP99);
  }
  const pairedRps = measurements.filter((m) => m.baseline.seconds > 0 && m.target.method === 'GET').map((m) => rps(m.baseline));
  const latencyNote = (t: Tally, p: 'slicesP50' | 'slicesP99') =>
    `autocannon histogram ${p === 'slicesP50' ? 'p50' : 'p99'} ${median(t[p])} ms (whole ms, median of slices)`;

  figures.push(
    figure('http', {
      name: `${BASELINE.label} · throughput`,
      value: rps(pooled),
      unit: 'req/s',
      note: `GET: all ${pooled.ok.toLocaleString('en-US')} responses in ${pooled.seconds.toFixed(0)} s; alongside each GET target ${Math.round(Math.min(...pairedRps))}–${Math.round(Math.max(...pairedRps))} req/s`,
      extra: { requestsPerSecondAlongsideEachTarget: pairedRps, failed: pooled.non2xx + pooled.errors + pooled.timeouts },
    }),
    figure('http', {
      name: `${BASELINE.label} · p50`,
      value: percentile(pooled.times, 50),
      unit: 'ms',
      note: latencyNote(pooled, 'slicesP50'),
    }),
    figure('http', {
      name: `${BASELINE.label} · p99`,
      value: percentile(pooled.times, 99),
      unit: 'ms',
      note: latencyNote(pooled, 'slicesP99'),
    }),
  );

  for (const m of measurements) {
    const t = m.target;
    const budget: Budget | null =
      t.kind === 'baseline' || t.kind === 'probe'
        ? null
        : ratioAtLeast(HTTP_BUDGETS[t.kind], `≥ ${HTTP_BUDGETS[t.kind].toFixed(2)}× baseline`);
    if (m.problem || m.tally.seconds === 0) {
      figures.push(
        figure('http', {
          name: `${t.label} · throughput`,
          value: null,
          unit: 'req/s',
          budget,
          note: `FAILED: ${m.problem ?? 'no measurement'}`,
        }),
      );
      diagnostics.push(`${t.label}: not measured (${m.problem ?? 'no measurement'}).`);
      continue;
    }
    const own = rps(m.tally);
    const base = rps(m.baseline);
    const p50 = percentile(m.tally.times, 50);
    const p99 = percentile(m.tally.times, 99);
    const b50 = percentile(m.baseline.times, 50);
    const b99 = percentile(m.baseline.times, 99);
    const failed = m.tally.non2xx + m.tally.errors + m.tally.timeouts;
    const codes = Object.entries(m.tally.codes)
      .map(([c, n]) => `${c}×${n}`)
      .join(' ');
    figures.push(
      figure('http', {
        name: `${t.label} · throughput`,
        value: own,
        unit: 'req/s',
        budget,
        ratio: base > 0 ? own / base : null,
        note: `baseline alongside ${Math.round(base)} req/s${t.method === 'GET' ? '' : ` (the same ${t.method}; ${(own / rps(pooled)).toFixed(2)}× the GET baseline pooled)`}; ${m.tally.responses.toLocaleString('en-US')} responses in ${m.tally.seconds.toFixed(1)} s, status ${codes}`,
        extra: {
          method: t.method,
          path: t.path,
          baselineRequestsPerSecond: base,
          ratioToGetBaselinePooled: own / rps(pooled),
          statusCodes: m.tally.codes,
          seconds: m.tally.seconds,
          connections: settings.connections,
        },
      }),
      figure('http', {
        name: `${t.label} · p50`,
        value: p50,
        unit: 'ms',
        ratio: p50 / b50,
        note: `baseline alongside ${ms(b50)}; ${latencyNote(m.tally, 'slicesP50')}`,
      }),
      figure('http', {
        name: `${t.label} · p99`,
        value: p99,
        unit: 'ms',
        ratio: p99 / b99,
        note: `baseline alongside ${ms(b99)}; ${latencyNote(m.tally, 'slicesP99')}`,
      }),
      figure('http', {
        name: `${t.label} · failed responses`,
        value: failed,
        unit: 'count',
        budget: atMost(0, '= 0'),
        note: `non-2xx ${m.tally.non2xx} (429: ${m.tally.codes['429'] ?? 0}), socket errors ${m.tally.errors}, timeouts ${m.tally.timeouts}`,
      }),
    );
  }

  // What a budget allows: with requests served one at a time by the isolate, a target that spends c ms more
  // per request than the baseline (T0 = 1 / baseline throughput) reaches T0 / (T0 + c) of its throughput,
  // so a ratio r allows c ≤ T0 × (1/r − 1).
  const t0 = 1000 / rps(pooled);
  diagnostics.push(
    `Baseline ${Math.round(rps(pooled))} req/s pooled (${Math.round(Math.min(...pairedRps))}–${Math.round(Math.max(...pairedRps))} alongside the targets), i.e. ${ms(t0)} per request at ${settings.connections} connections. ` +
      `The throughput budgets therefore allow about ${(['calculator', 'fund', 'mcp'] as const).map((k) => `${ms(t0 * (1 / HTTP_BUDGETS[k] - 1))} (${k})`).join(', ')} of extra work per request over the bare Worker.`,
  );
  if (pooledPost.seconds > 0) {
    const post = rps(pooledPost);
    diagnostics.push(
      `The bare Worker sent the POST targets' requests: ${Math.round(post)} req/s pooled, ${(post / rps(pooled)).toFixed(2)}× its GET throughput, i.e. ${ms(1000 / post - t0)} per request for a body passed through the local proxy and routing Workers; POST targets are compared with it.`,
    );
  }
  for (const f of figures) {
    if (f.pass === false && f.unit === 'req/s' && f.ratio !== null && f.value !== null) {
      const label = f.name.replace(' · throughput', '');
      const p50 = figures.find((g) => g.name === `${label} · p50`);
      diagnostics.push(
        `${label}: ${Math.round(f.value)} req/s = ${f.ratio.toFixed(2)}× the baseline alongside (${f.budget!.text}), i.e. ${ms(1000 / f.value - 1000 / (f.value / f.ratio))} more per request; p50 ${p50?.value != null ? ms(p50.value) : 'n/a'}.`,
      );
    }
  }
  return { figures, diagnostics };
}

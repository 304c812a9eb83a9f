/**
 * CPU per call, in Node, with tinybench (the harness under `vitest bench`):
 * - every calculator through `runCalculator(def, def.input.parse(args))` (parsing included, as the endpoint
 *   does it) on a typical body, and the large cases of docs/performance.md — the fee calculator over 50 years quarterly
 *   and exposure analysis of a 10,000-row CSV — at 1/16, 1/4 and 1 of that size (both are the API's caps:
 *   50 years, 10,000 rows, so 4× and 16× would be refused);
 * - every analytics function of lib/fund/analytics/ on the demo fund's data, read exactly as its tool reads
 *   it (reads done beforehand, outside the timing), and the large cases — VaR over 50 assets × 1,000 days and
 *   capital accounts of 2,000 investors — at 1×, 4× and 16× (VaR grows in assets: 50, 200, 800, since the
 *   window is capped at 1,000 days);
 * - the whole tool call `callFundTool` per fund endpoint on the embedded demo store, as the REST path runs it
 *   (validation, reads through the guarded store, analytics, redaction);
 * - the first request of each kind in a new isolate (budget ≤ 10 ms, docs/performance.md): a fresh Node process imports
 *   the Worker bundled as for workerd (esbuild, wrangler's aliases; built once by the parent), then answers one
 *   request of that kind, its CPU time measured (`process.threadCpuUsage`: the main thread's, as an isolate's
 *   CPU time counts; the whole process's, with V8's background threads, in the note): one request per route
 *   (bench/first-requests.ts: every fund endpoint with the demo key, every calculator, a tools/call of each MCP
 *   server, the OpenAPI document), the same requests the workerd section measures where Cloudflare counts
 *   CPU (bench/workerd.ts; this is Node's estimate beside it, with a profile of each miss); the fund
 *   cases read the embedded fund's build-time asset from `public/_fund/` through the in-memory `ASSETS`
 *   binding (test/support/fakes.ts reads the file: the I/O the real binding does), as a deployed isolate does;
 * - a memoized fund tool call (the same call again: served from lib/fund/memo.ts), information;
 * - information, no budget: each request of the HTTP section answered in process by the Hono app
 *   (`createApp().fetch`) with in-memory bindings (test/support/fakes.ts), so the CPU of our whole request
 *   path can be told from what workerd and its local KV add over HTTP. Their hot spots are always profiled.
 *
 * Each case runs in a fresh Node process (this file run as a script with `--case <id>`): measured in one
 * process, a case ran up to five times slower after others had left decimal.js's code deoptimized. The
 * value is the median of tinybench's samples (wall time of a call on one thread, i.e. its CPU time, robust
 * to the noise of a shared machine); mean, p99 and the sample count are in the note. A case over budget is
 * profiled (V8 sampling profiler, self time by package and function) for the diagnosis.
 * Budgets: a typical call ≤ 1 ms; a large one (at its 1× size) ≤ 10 ms.
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { Bench } from 'tinybench';
import { CALCULATORS, FUND_TOOLS } from '../lib/registry.ts';
import { runCalculator, type CalculatorDefinition } from '../lib/calculators/definition.ts';
import { callFundTool, type FundToolDefinition } from '../lib/fund/definition.ts';
import { embeddedStore } from '../lib/fund/embedded-store.ts';
import { guardedStore } from '../lib/fund/store.ts';
import { DEMO_FUND, generateFund, simulateFund } from '../lib/fund/synthetic.ts';
import type { Env } from '../lib/env.ts';
import { findIdentities, identitySet, investorRefs, redact, type IdentitySet } from '../lib/redaction.ts';
import { findIdentitiesReference } from '../lib/identity-reference.ts';
import { identityValues } from '../lib/fund/identities.ts';
import { breakdownBy, exposureOf, exposureSeries, exposureSnapshot, positionsView } from '../lib/fund/analytics/holdings.ts';
import { pnlAttribution } from '../lib/fund/analytics/attribution.ts';
import { valueAtRisk, type VarOptions } from '../lib/fund/analytics/var.ts';
import { trialBalance } from '../lib/fund/analytics/trial-balance.ts';
import { capitalAccounts, openingRunDate } from '../lib/fund/analytics/capital-accounts.ts';
import {
  addDays,
  isUsable,
  latestCompleteRun,
  latestUsableRun,
  navHistory,
  previousUsableRun,
  timeWeightedReturnPct,
  usableRunOn,
} from '../lib/fund/analytics/runs.ts';
import { createApp } from '../lib/service.ts';
import { DEMO_API_KEY, createKey } from '../lib/keys.ts';
import { fakeEnv } from '../test/support/fakes.ts';
import { capitalInputs, feeArgs, positionsCsv, typicalCalculatorArgs, varInputs } from './inputs.ts';
import { FIRST_REQUEST_LABEL, firstRequests } from './first-requests.ts';
import {
  ROOT,
  atMost,
  figure,
  median,
  ms,
  packageOf,
  percentile,
  progress,
  run,
  selfTimeBy,
  shares,
  type Budget,
  type CpuProfile,
  type Figure,
} from './report.ts';
import { FEE_CALCULATOR, OVERVIEW, POSITIONS, VALUE_AT_RISK, short } from './targets.ts';

/** Budgets (docs/performance.md), milliseconds per call. */
export const CPU_BUDGETS = { typical: 1, large: 10 } as const;
const TYPICAL: Budget = atMost(CPU_BUDGETS.typical, '≤ 1 ms');
const LARGE: Budget = atMost(CPU_BUDGETS.large, '≤ 10 ms');

/** The date pnl/attribution is asked for (a usable run of both embedded funds). */
const ATTRIBUTION_DATE = '2026-10-20';

/** How long tinybench spends per case (ms) and the fewest samples it takes. */
interface Timing {
  time: number;
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
}
const QUICK: Timing = { time: 250, iterations: 20, warmupTime: 100, warmupIterations: 10 };
const SLOW: Timing = { time: 500, iterations: 5, warmupTime: 0, warmupIterations: 2 };
const ONCE: Timing = { time: 0, iterations: 3, warmupTime: 0, warmupIterations: 0 };

type Fn = () => unknown;

/** One measured call. `make` builds its inputs (in the child process) and returns the call and a detail. */
interface Case {
  id: string;
  name: string;
  budget: Budget | null;
  timing: Timing;
  make: () => Promise<{ fn: Fn; detail?: string; verify?: () => string | null }>;
  /** For a scaling series: the series name and this point's size relative to the series' first point. */
  series?: { id: string; factor: number };
  /** Profile its hot spots even without a budget to miss. */
  profile?: boolean;
  /** Measure the first call only (CPU time of a fresh process's first request), once. */
  cold?: boolean;
  /** What remains of this case's time and why, from its profiles (bench/results.json `why`, and a miss's diagnosis). */
  why?: string;
}

/** Why the first request of an isolate still costs what it does, by kind (from profiles of `--profile-first`). */
const COLD_WHY = {
  fund: "The embedded fund is no longer simulated: the first request reads its build-time asset (public/_fund/<id>.bin, 1.4 MB) through ASSETS and decodes it (one JSON.parse of a ~100 KB header, typed-array views; decodeFund a few % of self time). What remains is V8 compiling the request path on first use (hono's router, zod parsing, the fund tool, analytics and decimal.js, the store-row guard), the tool's first rows (made once, then kept), and, in Node only, the fake binding's file read and Response body copy.",
  calc: "What every first request of an isolate pays (the configuration's first zod parse, CORS and body-limit middleware; in Node also its Request and stream internals), then V8 running the calculator cold: zod preparing the input schema on its first parse and decimal.js in the interpreter (the fee calculator's annualized returns: Decimal pow, ln and exp series). Nothing is built at import or per request that the request does not need.",
  mcp: "The tools' JSON Schemas are built at build time (lib/generated/mcp-tools.ts) and tools/call reads none. What remains: the first request's shared cost (configuration, middleware), the MCP SDK's server and transport made for the request (the SDK refuses reuse), zod preparing the SDK's JSON-RPC and MCP schemas on their first parse (JSONRPCMessageSchema, isInitializeRequest, CallToolRequest/Result), V8 compiling the SDK, and the tool's own work (a calculator cold, or a fund tool's first rows).",
  get: "The OpenAPI document is built at build time and read from the static assets once per isolate (lib/openapi-json.ts); what remains is the first request's shared cost (configuration, middleware) and, in Node only, Response's handling of 160 KB of text.",
} as const;

/** What a child process reports for one case. */
interface Measured {
  median: number | null;
  mean: number | null;
  p99: number | null;
  samples: number;
  detail?: string;
  error?: string;
  hot?: HotSpots;
}

interface HotSpots {
  packages: string;
  functions: string;
  raw: { calls: number; byPackage: { key: string; ms: number }[]; byFunction: { key: string; ms: number }[] };
}

// ---------------------------------------------------------------------------------------------------------
// The cases

function calculator(slug: string): CalculatorDefinition {
  const def = CALCULATORS.find((c) => c.slug === slug);
  if (!def) throw new Error(`no calculator ${slug}`);
  return def;
}

/** `runCalculator(def, def.input.parse(args))`: what one calculator call computes. */
const calc =
  (def: CalculatorDefinition, args: Record<string, unknown>): Fn =>
  () =>
    runCalculator(def, def.input.parse(args));

function calculatorCases(): Case[] {
  const cases: Case[] = CALCULATORS.map((def) => ({
    id: `calc-${def.slug}`,
    name: `calc ${def.slug} (typical)`,
    budget: TYPICAL,
    timing: QUICK,
    make: async () => ({ fn: calc(def, typicalCalculatorArgs()[def.slug] ?? {}) }),
  }));
  for (const [factor, label] of [
    [1 / 16, '1/16'],
    [1 / 4, '1/4'],
    [1, '1'],
  ] as const) {
    const years = 50 * factor;
    cases.push({
      id: `calc-fee-${label}`,
      name: `calc fee-calculator, ${years} y quarterly (${label} of large)`,
      budget: factor === 1 ? LARGE : null,
      timing: SLOW,
      series: { id: 'fee', factor },
      make: async () => ({ fn: calc(calculator('fee-calculator'), feeArgs(years)) }),
    });
  }
  for (const [factor, label] of [
    [1 / 16, '1/16'],
    [1 / 4, '1/4'],
    [1, '1'],
  ] as const) {
    const rows = 10_000 * factor;
    cases.push({
      id: `calc-exposure-${label}`,
      name: `calc exposure-analysis, ${rows.toLocaleString('en-US')}-row CSV (${label} of large)`,
      budget: factor === 1 ? LARGE : null,
      timing: SLOW,
      series: { id: 'exposure', factor },
      make: async () => ({ fn: calc(calculator('exposure-analysis'), { positionsCsv: positionsCsv(rows), navUsd: 250_000_000 }) }),
    });
  }
  return cases;
}

/** The demo fund's data as each tool reads it (generated in the child that needs it). */
async function demoData() {
  const store = embeddedStore([DEMO_FUND]);
  const id = DEMO_FUND.fundId;
  const index = (await store.index(id))!;
  const ccy = index.fund.baseCurrency;
  const run = latestUsableRun(index.runs);
  const { positions } = await store.read(id, { positions: { navDates: [run.navDate] } });
  return { store, id, index, ccy, run, positions };
}

const n = (x: number) => x.toLocaleString('en-US');

function analyticsCases(): Case[] {
  const typical = (id: string, name: string, make: Case['make']): Case => ({
    id: `analytics-${id}`,
    name,
    budget: TYPICAL,
    timing: QUICK,
    make,
  });
  return [
    typical('positions-view', 'holdings positionsView', async () => {
      const { run, positions } = await demoData();
      return { fn: () => positionsView(run, positions), detail: `${positions.length} positions` };
    }),
    typical('breakdown', 'holdings breakdownBy asset + sourceType + venue', async () => {
      const { run, positions } = await demoData();
      return {
        fn: () => [
          breakdownBy(run, positions, (p) => p.asset),
          breakdownBy(run, positions, (p) => p.sourceType),
          breakdownBy(run, positions, (p) => p.venue),
        ],
      };
    }),
    typical('exposure-of', 'holdings exposureOf', async () => {
      const { positions } = await demoData();
      return { fn: () => exposureOf(positions) };
    }),
    typical('exposure-snapshot', 'holdings exposureSnapshot', async () => {
      const { run, positions } = await demoData();
      return { fn: () => exposureSnapshot(run, positions) };
    }),
    typical('exposure-series', 'holdings exposureSeries, 30 days', async () => {
      const { store, id, index, ccy, run } = await demoData();
      const after = addDays(run.navDate, -30);
      const runs = index.runs.filter((r) => r.navDate > after && r.navDate <= run.navDate && isUsable(r));
      const { positions } = await store.read(id, { positions: { navDates: runs.map((r) => r.navDate) } });
      return { fn: () => exposureSeries(runs, positions, ccy), detail: `${runs.length} runs, ${n(positions.length)} positions` };
    }),
    typical('attribution', `attribution pnlAttribution ${ATTRIBUTION_DATE}`, async () => {
      const { store, id, index, ccy } = await demoData();
      const run = usableRunOn(index.runs, ATTRIBUTION_DATE);
      const previous = previousUsableRun(index.runs, run.navDate)!;
      const data = await store.read(id, {
        positions: { navDates: [previous.navDate, run.navDate] },
        ledger: { after: previous.navDate, through: run.navDate },
      });
      const input = {
        run,
        previous,
        opening: data.positions.filter((p) => p.navDate === previous.navDate),
        closing: data.positions.filter((p) => p.navDate === run.navDate),
        accounts: data.accounts,
        ledger: data.ledger,
        currency: ccy,
      };
      return { fn: () => pnlAttribution(input), detail: `${data.positions.length} positions, ${data.ledger.length} ledger lines` };
    }),
    typical('var', 'var valueAtRisk ewma, 250 days (default)', async () => {
      const { store, id, ccy, run } = await demoData();
      const options: VarOptions = { confidence: 0.95, horizonDays: 1, method: 'ewma', windowDays: 250 };
      const data = await store.read(id, {
        positions: { navDates: [run.navDate] },
        prices: { heldAt: run.navDate, through: run.navDate, closes: 251 },
      });
      return { fn: () => valueAtRisk(run, data.positions, data.prices, options, ccy), detail: `${n(data.prices.length)} prices` };
    }),
    typical('trial-balance', 'trial-balance trialBalance, whole ledger', async () => {
      const { store, id, ccy, run } = await demoData();
      const data = await store.read(id, { ledger: { after: null, through: run.navDate } });
      return { fn: () => trialBalance(data.accounts, data.ledger, run.navDate, ccy), detail: `${n(data.ledger.length)} ledger lines` };
    }),
    typical('capital-accounts', 'capital-accounts capitalAccounts', async () => {
      const { store, id, index, ccy } = await demoData();
      const run = latestCompleteRun(index.runs);
      const openingDate = openingRunDate(index.runs, run);
      const data = await store.read(id, { capital: { navDates: openingDate ? [openingDate, run.navDate] : [run.navDate] } });
      const refs = await investorRefs(id, [...new Set(data.capital.map((r) => r.investorId))]);
      return {
        fn: () => capitalAccounts({ run, openingDate, investors: data.investorClasses, rows: data.capital, refs, currency: ccy }),
        detail: `${data.investorClasses.length} investors`,
      };
    }),
    typical('nav-history', 'runs navHistory, 90 days', async () => {
      const { index } = await demoData();
      return { fn: () => navHistory(index.runs, 90) };
    }),
    typical('twr', 'runs timeWeightedReturnPct, year to date', async () => {
      const { index, run } = await demoData();
      return { fn: () => timeWeightedReturnPct(index.runs, run, `${run.navDate.slice(0, 4)}-01-01`), detail: `${index.runs.length} runs` };
    }),
  ];
}

function largeAnalyticsCases(): Case[] {
  const cases: Case[] = [];
  for (const factor of [1, 4, 16]) {
    const assets = 50 * factor;
    cases.push({
      id: `var-large-${factor}`,
      name: `var valueAtRisk ewma, ${assets} assets × 1,000 days (${factor}×)`,
      budget: factor === 1 ? LARGE : null,
      timing: SLOW,
      series: { id: 'var', factor },
      make: async () => {
        const input = varInputs(assets, 1_000);
        return {
          fn: () => valueAtRisk(input.run, input.positions, input.prices, input.options, input.currency),
          detail: `${n(input.prices.length)} prices`,
        };
      },
    });
  }
  for (const factor of [1, 4, 16]) {
    const investors = 2_000 * factor;
    cases.push({
      id: `capital-large-${factor}`,
      name: `capital-accounts capitalAccounts, ${n(investors)} investors (${factor}×)`,
      budget: factor === 1 ? LARGE : null,
      timing: SLOW,
      series: { id: 'capital', factor },
      make: async () => {
        const input = capitalInputs(investors);
        return { fn: () => capitalAccounts(input), detail: `${n(input.rows.length)} capital rows` };
      },
    });
  }
  return cases;
}

/** `callFundTool` per endpoint on the embedded demo store, as the REST demo path calls it. */
function toolCases(): Case[] {
  return FUND_TOOLS.map((def) => {
    const args: Record<string, string> = def.example;
    return {
      id: `tool-${def.path.replace(/\//g, '-')}`,
      name: `callFundTool ${def.path}${Object.keys(args).length ? ` ?${new URLSearchParams(args)}` : ''} (embedded demo)`,
      budget: TYPICAL,
      timing: QUICK,
      make: async () => {
        const source = { store: guardedStore(embeddedStore([DEMO_FUND])), fundId: DEMO_FUND.fundId };
        return { fn: () => callFundTool(def, source, {}, args) };
      },
    };
  });
}

/** A memoized call: the same tool call again, answered from the isolate's memo (lib/fund/memo.ts). */
function memoCases(): Case[] {
  const tools = ['get_fund_overview', 'get_value_at_risk', 'get_trial_balance', 'get_capital_accounts'].map(
    (name) => FUND_TOOLS.find((t) => t.tool === name)!,
  );
  return tools.map((def) => ({
    id: `memo-${def.path.replace(/\//g, '-')}`,
    name: `callFundTool ${def.path}, repeated (memoized, embedded demo)`,
    budget: TYPICAL,
    timing: QUICK,
    make: async () => {
      const source = { store: guardedStore(embeddedStore([DEMO_FUND])), fundId: DEMO_FUND.fundId, scope: 'demo' as const };
      return { fn: () => callFundTool(def, source, {}, {}) };
    },
  }));
}

/**
 * The identity scan (docs/fund-data.md#what-the-scan-costs) at 500 and 5,000 investors: compiling the
 * fund's identity set (once per isolate and version of the set), the scan of the demo fund's largest answer
 * against it (`redact` of `get_nav_history?days=3660`, 67 KB of JSON; and against no identity, the step's
 * own cost), and the whole `get_expenses?limit=500` call with the set already kept (its free-text fields
 * masked, then the scan), beside `callFundTool expenses`.
 */
function identityScanCases(): Case[] {
  const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)!;
  const fixture = async (investors: number) => {
    const { identityInvestors, storeWithIdentities } = await import('./identities.ts');
    const rows = identityInvestors(investors);
    return { rows, source: { store: storeWithIdentities(rows), fundId: DEMO_FUND.fundId } };
  };
  const scan = (investors: number): Case => ({
    id: `identity-scan-${investors}`,
    name: `redact nav-history ?days=3660 against ${n(investors)} investors`,
    budget: null,
    timing: QUICK,
    make: async () => {
      const { rows, source } = await fixture(investors);
      const text = await callFundTool(tool('get_nav_history'), source, {}, { days: '3660' });
      const answer = JSON.parse(text) as unknown;
      const set = identitySet(rows.flatMap(identityValues));
      return { fn: () => redact(tool('get_nav_history').output, answer, set), detail: `${n(text.length)} bytes of JSON` };
    },
  });
  return [scan(0)].concat(
    largeAnswerScanCases(),
    [500, 5_000].flatMap((investors): Case[] => [
      {
        id: `identity-compile-${investors}`,
        name: `identitySet of ${n(investors)} investors (once per isolate and version of the set)`,
        budget: null,
        timing: SLOW,
        make: async () => {
          const values = (await fixture(investors)).rows.flatMap(identityValues);
          return { fn: () => identitySet(values), detail: `${n(values.length)} values` };
        },
      },
      scan(investors),
      {
        id: `identity-call-${investors}`,
        name: `callFundTool expenses ?limit=500 with ${n(investors)} investors (set kept)`,
        budget: TYPICAL,
        timing: QUICK,
        make: async () => {
          const { source } = await fixture(investors);
          return { fn: () => callFundTool(tool('get_expenses'), source, {}, { limit: '500' }) };
        },
      },
    ]),
  );
}

/**
 * The two answers of a large fund (500 investors, 1,826 daily runs) whose scan is most of their CPU,
 * against the identity set of 500 investors: `get_nav_history?days=3660` (about 287 KB of JSON) and
 * `get_capital_accounts` (500 investors). Per answer: the whole redaction step (`redact`: allow-list parse,
 * serialization, shapes, identity scan), the identity scan of freshly serialized JSON (`findIdentities`),
 * and the same with the reference scan it replaced (`findIdentitiesReference`, every word sliced and folded:
 * the before of the fast path).
 */
function largeAnswerScanCases(): Case[] {
  const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)!;
  const answers = {
    'nav-1826': async () => ({
      def: tool('get_nav_history'),
      body: { currency: 'USD', runs: navHistory((await import('./identities.ts')).largeNavRuns(), 3660) },
    }),
    'capital-500': async () => ({ def: tool('get_capital_accounts'), body: capitalAccounts(capitalInputs(500)) }),
  };
  const set = async () => identitySet((await import('./identities.ts')).identityInvestors(500).flatMap(identityValues));
  return Object.entries(answers).flatMap(([id, answer]): Case[] => {
    const what = id === 'nav-1826' ? 'nav-history ?days=3660 of 1,826 runs' : 'capital accounts of 500 investors';
    const scanCase = (suffix: string, name: string, fn: (a: { def: FundToolDefinition; body: unknown }, s: IdentitySet) => Fn): Case => ({
      id: `identity-${suffix}-${id}`,
      name: `${name} ${what} against 500 investors`,
      budget: null,
      timing: QUICK,
      make: async () => {
        const a = await answer();
        return { fn: fn(a, await set()), detail: `${n(JSON.stringify(a.body).length)} bytes of JSON` };
      },
    });
    return [
      scanCase('redact', 'redact', (a, s) => () => redact(a.def.output, a.body, s)),
      scanCase('find', 'findIdentities', (a, s) => () => findIdentities(JSON.stringify(a.body), s)),
      scanCase('find-reference', 'findIdentitiesReference (before)', (a, s) => () => findIdentitiesReference(JSON.stringify(a.body), s)),
    ];
  });
}

/** Environment variable naming the Worker bundle the cold cases import (set by the parent). */
const BUNDLE_ENV = 'FUND_EDGE_BENCH_WORKER_BUNDLE';

/** Bundles lib/worker.ts as wrangler does for workerd (ESM, browser platform, wrangler's aliases), unminified, into `dir`. */
export async function bundleWorker(dir: string): Promise<string> {
  const esbuild = await import('esbuild');
  const { wranglerAliases } = await import('./size.ts');
  const outfile = join(dir, 'worker.mjs');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['lib/worker.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2024',
    external: ['node:*', 'cloudflare:*'],
    alias: wranglerAliases(),
    define: {
      'process.env.NODE_ENV': '"production"',
      'global.process.env.NODE_ENV': '"production"',
      'globalThis.process.env.NODE_ENV': '"production"',
    },
    loader: { '.js': 'jsx', '.mjs': 'jsx', '.cjs': 'jsx' },
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * Loads what Node implements in JavaScript and workerd natively, before the Worker is imported: Request and
 * Response with a body and headers, Web streams, TextEncoder/Decoder, Web Crypto, URL, structuredClone. Node
 * compiles these lazily on first use (`compileForInternalLoader`); profiled, they were 50–85% of a first
 * calculator request's main-thread CPU (about 15 of 22 ms), which an isolate in workerd does not spend.
 * None of the service's code runs here.
 */
async function warmNodeInternals(): Promise<void> {
  const request = new Request('http://127.0.0.1/warm?x=1', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
    body: '{"a":1}',
  });
  await request.json();
  new URL(request.url).searchParams.get('x');
  const response = new Response(
    new ReadableStream({
      start: (c) => {
        c.enqueue(new TextEncoder().encode('{}'));
        c.close();
      },
    }),
    {
      headers: { 'content-type': 'application/json' },
    },
  );
  await response.text();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  void writer.write(new TextEncoder().encode('x')).then(() => writer.close());
  const reader = readable.pipeThrough(new TextDecoderStream()).getReader();
  while (!(await reader.read()).done);
  await crypto.subtle.digest('SHA-256', new TextEncoder().encode('x'));
  await crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  crypto.getRandomValues(new Uint8Array(8));
  crypto.randomUUID();
  structuredClone({ a: [1] });
  Response.json({ a: 1 }).headers.get('content-type');
}

/**
 * The first request of each route (bench/first-requests.ts, the same requests bench/workerd.ts sends to
 * workerd) in a fresh process that has just imported the bundled Worker.
 */
function coldCases(): Case[] {
  return firstRequests().map((r) => ({
    why: COLD_WHY[r.kind],
    id: `cold-${r.id}`,
    name: `${FIRST_REQUEST_LABEL.node}${r.name}`,
    budget: LARGE,
    timing: ONCE,
    cold: true,
    make: async () => {
      const bundle = process.env[BUNDLE_ENV];
      if (!bundle) throw new Error(`${BUNDLE_ENV} is not set (the parent builds the bundle)`);
      const { env, API_KEYS } = fakeEnv();
      const { key } = await createKey(API_KEYS, { fundId: 'sample-fund', label: 'bench', dailyCalcLimit: 100_000_000 });
      await warmNodeInternals();
      const worker = ((await import(pathToFileURL(bundle).href)) as { default: ExportedHandler<Env> }).default;
      const ctx = {
        waitUntil: (p: Promise<unknown>) => void p.catch(() => {}),
        passThroughOnException: () => {},
        props: {},
      } as unknown as ExecutionContext;
      let answer: { status: number; body: string } | undefined;
      return {
        fn: async () => {
          const res = await worker.fetch!(new Request(`http://127.0.0.1${r.path}`, r.init(key)) as never, env, ctx);
          answer = { status: res.status, body: await res.text() };
        },
        // After the measurement: parsing the answer against its schema is not the request's CPU.
        verify: () => (answer ? r.check(answer.status, answer.body) : 'no answer'),
      };
    },
  }));
}

/**
 * The HTTP section's requests answered in process: `createApp().fetch` with in-memory KV and rate limits
 * (test/support/fakes.ts) and a key created in that KV as the keys CLI creates one.
 */
function requestCases(): Case[] {
  const request = (id: string, name: string, path: string, init: (key: string) => RequestInit): Case => ({
    id: `request-${id}`,
    name: `request in process: ${name}`,
    budget: null,
    timing: QUICK,
    profile: true,
    make: async () => {
      const { env, API_KEYS } = fakeEnv();
      const { key } = await createKey(API_KEYS, { fundId: 'sample-fund', label: 'bench', dailyCalcLimit: 100_000_000 });
      const app = createApp();
      const ctx = {
        waitUntil: (p: Promise<unknown>) => void p.catch(() => {}),
        passThroughOnException: () => {},
        props: {},
      } as unknown as ExecutionContext;
      return {
        fn: async () => {
          // A loopback host: served locally (no PUBLIC_ORIGIN), the MCP servers answer no other (lib/origin.ts).
          const res = await app.fetch(new Request(`http://127.0.0.1:8787${path}`, init(key)), env, ctx);
          const body = await res.text();
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body.slice(0, 200)}`);
          return body;
        },
      };
    },
  });
  const demo = { headers: { authorization: `Bearer ${DEMO_API_KEY}` } };
  const mcp = (key: string, name: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  return [
    request('calc', `POST ${short(FEE_CALCULATOR)} {} (minted key)`, FEE_CALCULATOR, (key) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{}',
    })),
    request('overview', `GET ${short(OVERVIEW)} (demo key)`, OVERVIEW, () => demo),
    request('positions', `GET ${short(POSITIONS)} (demo key)`, POSITIONS, () => demo),
    request('var', `GET ${short(VALUE_AT_RISK)} (demo key)`, VALUE_AT_RISK, () => demo),
    request('mcp-public', 'MCP public calc_fee_calculator', '/api/mcp/public', (key) => mcp(key, 'calc_fee_calculator')),
    request('mcp-fund', 'MCP fund get_fund_overview (minted key)', '/api/mcp', (key) => mcp(key, 'get_fund_overview')),
  ];
}

const GENERATE: Case = {
  id: 'generate-demo-fund',
  name: 'generateFund(DEMO_FUND), every row made (the database seed; information)',
  budget: null,
  timing: ONCE,
  make: async () => ({ fn: () => generateFund(DEMO_FUND) }),
};

const SIMULATE: Case = {
  id: 'simulate-demo-fund',
  name: 'simulateFund(DEMO_FUND), what the embedded store runs once per isolate (information)',
  budget: null,
  timing: ONCE,
  make: async () => ({ fn: () => simulateFund(DEMO_FUND) }),
};

/** Every case, in the order of the table. */
export function catalogue(): Case[] {
  return [
    ...coldCases(),
    ...calculatorCases(),
    GENERATE,
    SIMULATE,
    ...analyticsCases(),
    ...largeAnalyticsCases(),
    ...toolCases(),
    ...identityScanCases(),
    ...memoCases(),
    ...requestCases(),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Measuring (in the child process)

/**
 * Where a call spends its time: the call repeated for about 300 ms (or, `once`, called once: a first call)
 * under V8's sampling profiler (100 µs interval), self time summed by package (or repo file) and by function.
 */
async function hotSpots(fn: Fn, once = false): Promise<HotSpots> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const end = performance.now() + 300;
    let calls = 0;
    do {
      await fn();
      calls++;
    } while (!once && (performance.now() < end || calls < 3));
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const byPackage = selfTimeBy(profile, (f) => (f.functionName === '(idle)' ? null : packageOf(f.url)));
    const byFunction = selfTimeBy(profile, (f) =>
      f.functionName === '(idle)' || f.functionName === '(program)' ? null : `${f.functionName || '(anonymous)'} [${packageOf(f.url)}]`,
    );
    return {
      packages: shares(byPackage, 4),
      functions: shares(byFunction, 4),
      raw: { calls, byPackage: byPackage.slice(0, 8), byFunction: byFunction.slice(0, 8) },
    };
  } finally {
    session.disconnect();
  }
}

/**
 * Measures one case (checked once, warmed up, timed by tinybench; profiled when over budget or marked). A
 * cold case measures its first call only; with `profileFirst` (a second process, for a cold case over
 * budget) it profiles that first call instead of timing it.
 */
async function measureCase(c: Case, profileFirst = false): Promise<Measured> {
  let fn: Fn;
  let detail: string | undefined;
  if (c.cold && profileFirst) {
    try {
      ({ fn } = await c.make());
      return { median: null, mean: null, p99: null, samples: 1, hot: await hotSpots(fn, true) };
    } catch (err) {
      return { median: null, mean: null, p99: null, samples: 0, error: err instanceof Error ? err.message : String(err) };
    }
  }
  if (c.cold) {
    try {
      let verify: (() => string | null) | undefined;
      ({ fn, detail, verify } = await c.make());
      const before = process.cpuUsage();
      const beforeThread = process.threadCpuUsage();
      const t0 = performance.now();
      await fn();
      const wall = performance.now() - t0;
      const thread = process.threadCpuUsage(beforeThread);
      const all = process.cpuUsage(before);
      const cpu = (thread.user + thread.system) / 1000;
      const processCpu = (all.user + all.system) / 1000;
      const problem = verify?.();
      if (problem) throw new Error(problem);
      return {
        median: cpu,
        mean: cpu,
        p99: cpu,
        samples: 1,
        detail: `${detail ? `${detail} · ` : ''}main-thread CPU of the first call; with V8's background compiler and GC threads ${ms(processCpu)}; wall ${ms(wall)}`,
      };
    } catch (err) {
      return { median: null, mean: null, p99: null, samples: 0, error: err instanceof Error ? err.message : String(err) };
    }
  }
  try {
    ({ fn, detail } = await c.make());
    await fn(); // a call that throws would be timed as an error: check it once, outside the timings
  } catch (err) {
    return { median: null, mean: null, p99: null, samples: 0, error: err instanceof Error ? err.message : String(err) };
  }
  const bench = new Bench({ ...c.timing, throws: true });
  bench.add(c.name, fn);
  await bench.warmup();
  await bench.run();
  const r = bench.tasks[0]!.result!;
  const m: Measured = {
    median: median(r.samples),
    mean: r.mean,
    p99: percentile(r.samples, 99),
    samples: r.samples.length,
    ...(detail ? { detail } : {}),
  };
  if (c.profile || (c.budget && m.median! > c.budget.value)) m.hot = await hotSpots(fn);
  return m;
}

// ---------------------------------------------------------------------------------------------------------
// The section (parent process)

function toFigures(cases: readonly Case[], results: readonly Measured[]): { figures: Figure[]; diagnostics: string[] } {
  // The first point of each series (the smallest size; series are listed smallest first) is its base.
  const base = new Map<string, { c: Case; m: Measured }>();
  cases.forEach((c, i) => {
    if (c.series && !base.has(c.series.id)) base.set(c.series.id, { c, m: results[i]! });
  });
  const diagnostics: string[] = [];
  const figures = cases.map((c, i) => {
    const m = results[i]!;
    let growth = '';
    const b = c.series ? base.get(c.series.id) : undefined;
    if (c.series && b && b.c !== c && m.median !== null && b.m.median) {
      growth = ` · ${(m.median / b.m.median).toFixed(1)}× the time for ${c.series.factor / b.c.series!.factor}× the size`;
    }
    const f = figure('cpu', {
      name: c.name,
      value: m.median,
      unit: 'ms',
      budget: c.budget,
      note: m.error
        ? `error: ${m.error}`
        : `${m.detail ? `${m.detail} · ` : ''}mean ${ms(m.mean!)} · p99 ${ms(m.p99!)} · n=${m.samples}${growth}`,
      extra: {
        medianMs: m.median,
        meanMs: m.mean,
        p99Ms: m.p99,
        samples: m.samples,
        ...(m.detail ? { detail: m.detail } : {}),
        ...(c.series ? { series: c.series.id, sizeFactor: c.series.factor } : {}),
        ...(m.error ? { error: m.error } : {}),
        ...(m.hot ? { profile: m.hot.raw } : {}),
        ...(c.why ? { why: c.why } : {}),
      },
    });
    if (m.hot && f.value !== null) {
      const verdict =
        f.budget && f.pass === false ? `${ms(f.value)} = ${(f.value / f.budget.value).toFixed(1)}× ${f.budget.text}` : ms(f.value);
      diagnostics.push(
        `${f.name}: ${verdict}. Self time by package/file: ${m.hot.packages}; hottest functions: ${m.hot.functions}.${c.why && f.pass === false ? ` Why: ${c.why}` : ''}`,
      );
    }
    if (m.error) diagnostics.push(`${c.name}: failed: ${m.error}`);
    return f;
  });
  return { figures, diagnostics };
}

const SELF = fileURLToPath(import.meta.url);
/** Node flags of a case's child process: type stripping, and `.tsx` (the console, imported by lib/service.ts) through esbuild. */
const CHILD_FLAGS = [
  '--experimental-strip-types',
  '--disable-warning=ExperimentalWarning',
  '--import',
  pathToFileURL(join(ROOT, 'bench/tsx-register.ts')).href,
];

/** The CPU section: every case in a child process of its own, one after the other. */
export async function runCpu(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cases = catalogue();
  const results: Measured[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'fund-edge-bench-cold-'));
  process.env[BUNDLE_ENV] = await bundleWorker(dir);
  for (const [i, c] of cases.entries()) {
    if (i % 8 === 0) progress(`cpu: case ${i + 1}/${cases.length} (${c.name}) …`);
    try {
      const { stdout } = await run(process.execPath, [...CHILD_FLAGS, SELF, '--case', c.id], { timeoutMs: 90_000 });
      const measured = JSON.parse(stdout.trim().split('\n').pop()!) as Measured;
      if (c.cold && c.budget && measured.median !== null && measured.median > c.budget.value) {
        // The first call can be made only once per process: profile it in another one.
        const again = await run(process.execPath, [...CHILD_FLAGS, SELF, '--case', c.id, '--profile-first'], { timeoutMs: 90_000 });
        const hot = (JSON.parse(again.stdout.trim().split('\n').pop()!) as Measured).hot;
        if (hot) measured.hot = hot;
      }
      results.push(measured);
    } catch (err) {
      results.push({
        median: null,
        mean: null,
        p99: null,
        samples: 0,
        error: err instanceof Error ? err.message.split('\n')[0]! : String(err),
      });
    }
  }
  rmSync(dir, { recursive: true, force: true });
  return toFigures(cases, results);
}

// Child process: `bench/cpu.ts --case <id>` measures one case and prints its result as one JSON line.
if (process.argv[1] && resolve(process.argv[1]) === SELF) {
  const id = process.argv[process.argv.indexOf('--case') + 1];
  const c = catalogue().find((x) => x.id === id);
  if (!c) {
    console.error(`no case ${id}`);
    process.exitCode = 2;
  } else {
    process.stdout.write(`${JSON.stringify(await measureCase(c, process.argv.includes('--profile-first')))}\n`);
  }
}

/**
 * First request in workerd: the CPU time of the first request of a fresh isolate, in the runtime Cloudflare
 * counts CPU in, for every route (bench/first-requests.ts: every fund-data endpoint, every calculator, a
 * `tools/call` of each MCP server, the OpenAPI document), budget ≤ 10 ms (the free plan's CPU limit per
 * request). bench/cpu.ts measures the same requests in Node (`first request of an isolate: …`); bench/run.ts
 * prints the two side by side.
 *
 * How: workerd reports no CPU time locally (a tail consumer's `cpuTime` is 0, and it enforces no CPU limit),
 * so the bench reads the operating system's. The Worker as deployed (`wrangler deploy --dry-run --outdir`:
 * bundled and minified by wrangler from wrangler.toml, built once) runs in a fresh Miniflare, i.e. a new
 * workerd process with one isolate of it, configured from wrangler.toml (`unstable_getMiniflareWorkerOptions`:
 * its KV, rate limits, Durable Object, static assets and vars; KV in memory). The isolate starts (evaluates
 * the Worker's module) when workerd starts, as Cloudflare's startup is counted apart from the request. The
 * request goes to the Worker's own socket (`unsafeDirectSockets`, so Miniflare's entry worker does not run
 * JavaScript on it). Just before sending it and once its answer's last byte is in, the bench reads how long
 * each of workerd's threads has run (`/proc/<pid>/task/<tid>/schedstat`, first field, ns); the figure is the
 * main thread's difference, the thread every isolate's JavaScript runs on (checked per run: it must be the
 * thread whose time grew most). Every answer is checked (status 200 and the body's shape). The main thread's
 * CPU in the 100 ms after the answer (work the Worker left to `waitUntil`, garbage collection) is in the note.
 *
 * What the figure includes besides the Worker's own code: workerd parsing the HTTP request and writing the
 * answer, V8 compiling lazily the functions the request runs and collecting garbage on that thread, and the
 * local simulators of the bindings that run JavaScript on the same thread (Miniflare's static-assets and KV
 * workers, in isolates of their own; on Cloudflare they are I/O and not the Worker's CPU). Those simulators
 * are made to serve one call each before the measurement (a key minted into KV, an asset read that no case
 * reads), which runs none of the Worker's code, so their cold start is not counted. V8's background
 * threads (concurrent compilation and marking) are in the note, not the figure: Cloudflare counts the
 * isolate's thread. The bare baseline Worker (bench/baseline-worker.ts) measured the same way (information)
 * shows what the method counts for a Worker that does nothing.
 *
 * Each case is measured {@link RUNS} times, a fresh workerd each time, the runs of all cases interleaved
 * (round after round) so that a slow minute of the shared machine spreads over every case; the value is the
 * median, the runs and their spread are in the note.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { createKey, type KeyAdminStore } from '../lib/keys.ts';
import { cpuBetween, threadTimes } from './schedstat.ts';
import { FIRST_REQUEST_LABEL, firstRequests, expectJsonObject, type FirstRequest } from './first-requests.ts';
import { Cleanup, ROOT, atMost, bin, figure, median, ms, progress, run, useWranglerEnv, wranglerEnv, type Figure } from './report.ts';

/** Budget (docs/performance.md): a first request's CPU, ms. */
export const FIRST_REQUEST_BUDGET_MS = 10;
/** Fresh instances per case. */
export const RUNS = 5;

/** The workerd processes this process has started (its children named `workerd`). */
export function workerdChildren(): Set<number> {
  const out = new Set<number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    let children = '';
    try {
      children = readFileSync(`/proc/${process.pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const pid of children.trim().split(/\s+/).filter(Boolean)) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd') out.add(Number(pid));
      } catch {
        // ended meanwhile
      }
    }
  }
  return out;
}

/** Waits until workerd's main thread has been idle for 50 ms (at most 2 s): the startup's tail is not counted. */
export async function settle(pid: number): Promise<void> {
  const end = performance.now() + 2000;
  let last = threadTimes(pid).get(pid);
  while (performance.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    const now = threadTimes(pid).get(pid);
    if (now === last) return;
    last = now;
  }
}

type WorkerOptions = ReturnType<typeof unstable_getMiniflareWorkerOptions>['workerOptions'];

/** One Worker to start: the service as deployed, or the bare baseline. */
export interface Subject {
  options: Record<string, unknown>;
  /** Serve a call of each binding simulator the Worker's requests use, and mint the key the cases send. */
  prepare(mf: Miniflare): Promise<string>;
}

/** One run: a fresh workerd, one request. */
export interface Run {
  mainMs: number;
  otherMs: number;
  /** The main thread's CPU in the 100 ms after the answer (work left to `waitUntil`, GC): in the note, not the figure. */
  afterMs: number;
  wallMs: number;
  problem: string | null;
  /** With `warm` requests asked for: the main thread's CPU of each of them, in order. */
  warmMs?: number[];
}

/**
 * The burst bindings of wrangler.toml raised far above any load of the bench's own (Miniflare's option
 * form), for the tools that send many requests of one caller (bench/profile-workerd.ts, bench/warm-workerd.ts).
 */
export const RAISED_BURST_LIMITS = {
  CALC_BURST: { simple: { limit: 10_000_000, period: 60 } },
  FUND_BURST: { simple: { limit: 10_000_000, period: 60 } },
};

/** The measured Worker's name in Miniflare. */
export const WORKER_NAME = 'bench-worker';

/** The Miniflare being measured, disposed by the section's cleanup if a run is interrupted (Ctrl-C). */
let current: Miniflare | null = null;

/**
 * A fresh Miniflare (a new workerd process) running `subject` as the Worker {@link WORKER_NAME}, on a socket
 * of its own (`unsafeDirectSockets`, port 0), keeping nothing on disk; not yet ready (await `mf.ready`).
 * @param options `worker`: more of the Worker's options (raised burst limits); `inspectorPort`: opens
 *   workerd's inspector on that port (0: any)
 */
export function freshMiniflare(subject: Subject, options: { worker?: Record<string, unknown>; inspectorPort?: number } = {}): Miniflare {
  const { worker = {}, inspectorPort } = options;
  return new Miniflare({
    workers: [{ ...subject.options, ...worker, name: WORKER_NAME, unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] }],
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
    kvPersist: false,
    durableObjectsPersist: false,
    cachePersist: false,
  } as ConstructorParameters<typeof Miniflare>[0]);
}

/** A request sent to a fresh isolate before the measured one ({@link measureOnce}'s `primes`). */
export interface Prime {
  path: string;
  init: (key: string) => RequestInit;
}

/**
 * The first request of one fresh workerd running `subject`: the main thread's CPU from just before it to its
 * answer's last byte (see the module comment), and the answer checked; then, with `warm`, as many requests
 * more on the same isolate, each measured the same way once the previous one's after-work has settled.
 * @param primes requests sent first, unmeasured and unchecked (any status), so that the measured request is
 *   the first of its kind rather than of the isolate: what it still pays is what they did not share with it
 */
export async function measureOnce(
  subject: Subject,
  path: string,
  init: (key: string) => RequestInit,
  check: FirstRequest['check'],
  warm = 0,
  primes: readonly Prime[] = [],
): Promise<Run> {
  const known = workerdChildren();
  const mf = freshMiniflare(subject);
  current = mf;
  try {
    await mf.ready;
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    const pid = [...workerdChildren()].find((p) => !known.has(p));
    if (pid === undefined) throw new Error('no workerd process found for the new Miniflare');
    const key = await subject.prepare(mf);
    for (const prime of primes) await (await fetch(new URL(prime.path, url), prime.init(key))).arrayBuffer();
    await settle(pid);
    const before = threadTimes(pid);
    const t0 = performance.now();
    const res = await fetch(new URL(path, url), init(key));
    const body = await res.text();
    const wallMs = performance.now() - t0;
    const answered = threadTimes(pid);
    const cpu = cpuBetween(pid, before, answered);
    await new Promise((r) => setTimeout(r, 100));
    const afterMs = cpuBetween(pid, answered, threadTimes(pid)).mainMs;
    const problem =
      check(res.status, body) ?? (cpu.mainRanMost ? null : "workerd's main thread was not the one that ran most during the request");
    const warmMs: number[] = [];
    for (let i = 0; i < warm; i++) {
      await settle(pid);
      const start = threadTimes(pid);
      const again = await fetch(new URL(path, url), init(key));
      await again.text();
      warmMs.push(cpuBetween(pid, start, threadTimes(pid)).mainMs);
    }
    return { mainMs: cpu.mainMs, otherMs: cpu.otherMs, afterMs, wallMs, problem, ...(warm > 0 ? { warmMs } : {}) };
  } finally {
    current = null;
    await mf.dispose();
  }
}

/** What {@link interleavedRuns} needs of a run, whatever it measured: what was wrong with its answer (null: nothing). */
export interface Checked {
  problem: string | null;
}

/** One case of an A/B in turn ({@link interleavedRuns}): its label, and its measure on one bundle. */
export interface InterleavedCase<R extends Checked = Run> {
  label: string;
  measure(bundle: string): Promise<R>;
}

/**
 * Runs every case on every bundle, `rounds` times, in turn (bundle after bundle, case after case, the bundles'
 * order reversed every other round), so that a slow minute of the shared machine spreads over all of them;
 * a run whose answer failed its check is reported on stderr. bench/first-workerd.ts, bench/first-db-workerd.ts
 * (CPU time) and bench/callgrind-workerd.ts (instructions) print what it gathers ({@link figuresOf}).
 * @returns every run, in order, by `<case> · <bundle>`, and whether one failed
 */
export async function interleavedRuns<R extends Checked>(
  rounds: number,
  bundles: readonly string[],
  cases: readonly InterleavedCase<R>[],
): Promise<{ runs: Map<string, R[]>; failed: boolean }> {
  const runs = new Map<string, R[]>();
  let failed = false;
  for (let round = 0; round < rounds; round++) {
    for (const bundle of round % 2 ? [...bundles].reverse() : bundles) {
      for (const c of cases) {
        const r = await c.measure(bundle);
        const label = `${c.label} · ${bundle}`;
        if (r.problem) {
          console.error(`${label}: ${r.problem}`);
          failed = true;
        }
        const list = runs.get(label);
        if (list) list.push(r);
        else runs.set(label, [r]);
      }
    }
  }
  return { runs, failed };
}

/**
 * One figure of {@link interleavedRuns}' runs, by label, for `printMedians`: what `pick` takes of each run, in
 * order; a label whose runs gave none is left out.
 */
export function figuresOf<R>(runs: ReadonlyMap<string, readonly R[]>, pick: (run: R) => readonly number[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [label, rs] of runs) {
    const values = rs.flatMap(pick);
    if (values.length > 0) out.set(label, values);
  }
  return out;
}

/** The service as `wrangler deploy` bundles it, with wrangler.toml's bindings. */
export function service(outdir: string): Subject {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'));
  const { modulesRules: _rules, ...rest } = workerOptions as WorkerOptions & { modulesRules?: unknown };
  return {
    options: { ...rest, modules: true, scriptPath: join(outdir, 'worker.js'), modulesRoot: outdir },
    async prepare(mf) {
      const { ASSETS, RATE_LIMITS } = await mf.getBindings<{ ASSETS: Fetcher; RATE_LIMITS: KVNamespace }>(WORKER_NAME);
      // An asset no case reads: the static-assets simulator's first call, not the Worker's.
      await (await ASSETS.fetch('http://localhost/docs/search-index.json')).arrayBuffer();
      await RATE_LIMITS.get('bench-warm-up');
      const API_KEYS = (await mf.getKVNamespace('API_KEYS')) as unknown as KeyAdminStore;
      return (await createKey(API_KEYS, { fundId: 'sample-fund', label: 'bench', dailyCalcLimit: 100_000_000 })).key;
    },
  };
}

/** The bare baseline Worker of the HTTP section, under the service's compatibility date and flags. */
function baseline(): Subject {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'));
  return {
    options: {
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      modules: baselineModules(),
    },
    prepare: async () => '',
  };
}

/** The bare baseline Worker (bench/baseline-worker.ts) as Miniflare's `modules` option: one ES module, compiled from TypeScript. */
export function baselineModules(): { type: 'ESModule'; path: string; contents: string }[] {
  const source = readFileSync(join(ROOT, 'bench', 'baseline-worker.ts'), 'utf8');
  return [{ type: 'ESModule', path: 'baseline-worker.js', contents: transformSync(source, { loader: 'ts', format: 'esm' }).code }];
}

const spread = (xs: readonly number[]) => `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;

/**
 * This tree's Worker bundled as `wrangler deploy --dry-run --outdir` bundles it from wrangler.toml (or, with
 * `minify: false`, unminified, so that profiles keep names and module comments), in a temporary folder that
 * `cleanup` removes.
 * @returns the folder, holding `worker.js`
 */
export async function deployedWorker(cleanup: Cleanup, options: { minify?: boolean } = {}): Promise<string> {
  const outdir = cleanup.tempDir('fund-edge-bench-worker-');
  const args = ['deploy', '--dry-run', '--outdir', outdir, ...(options.minify === false ? ['--minify=false'] : [])];
  await run(bin('wrangler'), args, { env: wranglerEnv() });
  return outdir;
}

/** The workerd section. */
export async function runWorkerd(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    cleanup.add('dispose the Miniflare being measured', () => current?.dispose());
    progress('workerd: wrangler deploy --dry-run --outdir (the Worker as deployed)');
    const outdir = await deployedWorker(cleanup);
    const subject = service(outdir);
    const BARE: FirstRequest = {
      id: 'baseline',
      name: 'bare baseline Worker (bench/baseline-worker.ts)',
      kind: 'get',
      path: '/',
      init: () => ({}),
      check: expectJsonObject,
    };
    const cases = [BARE, ...firstRequests()];
    const bare = baseline();
    const runs: Run[][] = cases.map(() => []);
    for (let round = 0; round < RUNS; round++) {
      progress(`workerd: round ${round + 1}/${RUNS}: ${cases.length} fresh workerd processes, one request each`);
      for (const [i, c] of cases.entries()) {
        try {
          runs[i]!.push(await measureOnce(c === BARE ? bare : subject, c.path, c.init, c.check));
        } catch (err) {
          runs[i]!.push({
            mainMs: Number.NaN,
            otherMs: Number.NaN,
            afterMs: Number.NaN,
            wallMs: Number.NaN,
            problem: err instanceof Error ? err.message : String(err),
          });
        }
      }
    }
    return toFigures(cases, runs, BARE);
  } finally {
    await cleanup.run();
  }
}

function toFigures(
  cases: readonly FirstRequest[],
  runs: readonly Run[][],
  bare: FirstRequest,
): { figures: Figure[]; diagnostics: string[] } {
  const diagnostics: string[] = [];
  const figures = cases.map((c, i) => {
    const rs = runs[i]!;
    const problems = rs.map((r) => r.problem).filter((p): p is string => p !== null);
    const main = rs.map((r) => r.mainMs);
    const isBare = c === bare;
    const name = `${FIRST_REQUEST_LABEL.workerd}${c.name}`;
    if (problems.length) {
      diagnostics.push(`${name}: FAILED: ${problems[0]}`);
      // A case that could not be measured counts as a miss (`--strict`).
      return {
        ...figure('workerd', {
          name,
          value: null,
          unit: 'ms',
          budget: isBare ? null : atMost(FIRST_REQUEST_BUDGET_MS, '≤ 10 ms'),
          note: `FAILED: ${problems[0]}`,
        }),
        pass: isBare ? null : false,
      };
    }
    const f = figure('workerd', {
      name,
      value: median(main),
      unit: 'ms',
      budget: isBare ? null : atMost(FIRST_REQUEST_BUDGET_MS, '≤ 10 ms'),
      note: `workerd main thread, median of ${rs.length} fresh isolates: ${main.map((m) => m.toFixed(1)).join(', ')} ms (spread ${spread(main)}); V8 background threads ${ms(median(rs.map((r) => r.otherMs)))}; main thread in the 100 ms after the answer ${ms(median(rs.map((r) => r.afterMs)))}; wall ${ms(median(rs.map((r) => r.wallMs)))}`,
      extra: {
        id: c.id,
        path: c.path,
        runsMs: main,
        spreadMs: Math.max(...main) - Math.min(...main),
        backgroundThreadsMs: rs.map((r) => r.otherMs),
        afterAnswerMs: rs.map((r) => r.afterMs),
        wallMs: rs.map((r) => r.wallMs),
      },
    });
    if (f.pass === false)
      diagnostics.push(`${name}: ${ms(f.value!)} = ${(f.value! / FIRST_REQUEST_BUDGET_MS).toFixed(1)}× the 10 ms budget.`);
    return f;
  });
  return { figures, diagnostics };
}

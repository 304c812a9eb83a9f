/**
 * An A/B of first requests in workerd counted in instructions rather than CPU time: the instructions workerd's
 * main thread executes for the first request of a fresh isolate, as Valgrind's callgrind counts them, on one
 * or more builds of the Worker, for the same cases as bench/first-db-workerd.ts (the scale bench's large fund
 * through PostgreSQL, which `npm run bench -- --only scale` must have imported; `demo:<path>` for the
 * embedded demo fund).
 *
 * Why: one case's first-request CPU time spreads by half between fresh isolates on the development machine
 * (the large fund's overview 14.4–24.7 ms over 31 of them), so a change of 1–2 ms needs dozens of runs per
 * build to be seen. Counted instructions mostly repeat within 1–2 % from one fresh isolate to the next (a
 * run now and then 5–10 % off: the median of three is the figure), so three runs per build show a change
 * of a few per cent. They are not time: parsing JSON or copying memory
 * costs fewer cycles per instruction than cold JavaScript, so a saving in instructions is confirmed in time
 * (bench/first-db-workerd.ts) before it is claimed as one.
 *
 * Usage: node --experimental-strip-types --disable-warning=ExperimentalWarning bench/callgrind-workerd.ts
 *          [--bundle dir]... [--runs n] [--prime case]... [--fund bench-fund] case...
 * Prints each case × bundle's median of millions of instructions of the main thread (every isolate's
 * JavaScript runs there) and of all of workerd's threads, with the runs sorted; exits 1 if an answer is not
 * 200. Needs `valgrind` (Debian's package); a run takes about 30 s (workerd starts about fifty times slower).
 *
 * How: Miniflare starts workerd through a script that runs it under callgrind (`MINIFLARE_WORKERD_PATH`),
 * with `--fair-sched=yes` (Valgrind runs one thread at a time; fair scheduling makes the order of V8's
 * background compilations and the main thread repeat, which is what makes the count repeat: without it the
 * same request counted 59–73 million) and `--separate-threads=yes` (one count per thread). Once the Worker
 * is up, its simulators have served their first call (as bench/workerd.ts prepares them) and the primes are
 * answered, workerd is left idle, its counters are zeroed (`callgrind_control --zero`), the request is sent,
 * and half a second after its answer (what it left to `waitUntil` included) the counters are dumped
 * (`callgrind_control --dump`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startPgWsProxy } from '../scripts/pg-ws-proxy.ts';
import { Cleanup, printMedians, useWranglerEnv } from './report.ts';
import { databaseService } from './scale.ts';
import { databaseCase } from './first-requests.ts';
import { deployedWorker, figuresOf, freshMiniflare, interleavedRuns, settle, WORKER_NAME, type Prime, type Subject } from './workerd.ts';

/** The workerd binary Miniflare runs by default: the `workerd` package's path to it, for this platform. */
const WORKERD: string = createRequire(import.meta.url)('workerd').default;

/**
 * The instructions a callgrind dump counts (its `summary:` line, the sum over its functions), or NaN when
 * the text has none.
 * @param text a dump file's text (callgrind's format, one thread's with `--separate-threads=yes`)
 */
export function callgrindSummary(text: string): number {
  const match = /^summary: (\d+)/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

/**
 * The dump files of one callgrind run in `files` (a directory's names) by thread, as callgrind names them
 * with `--separate-threads=yes` (`<out>.<part>-<thread>`, thread 1 the main one).
 * @returns the main thread's file and every thread's
 */
export function dumpsByThread(files: readonly string[], out: string): { main: string | undefined; all: string[] } {
  const all = files.filter((f) => f.startsWith(`${out}.`) && /\.\d+-\d+$/.test(f));
  return { main: all.find((f) => /-0*1$/.test(f)), all };
}

/** Runs `callgrind_control <arg> <pid>` to its end (it waits for callgrind to carry the command out). */
function control(arg: '--zero' | '--dump', pid: number): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn('callgrind_control', [arg, String(pid)], { stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`callgrind_control ${arg} exited ${code}`))));
  });
}

/** One run: millions of instructions of the main thread and of all threads, and what was wrong with the answer. */
interface Counted {
  mainMi: number;
  allMi: number;
  problem: string | null;
}

/** The first request `spec` (a {@link databaseCase}) of one fresh workerd running `subject` under callgrind, after `primes`. */
async function countOnce(subject: Subject, spec: string, primes: readonly Prime[]): Promise<Counted> {
  const dir = mkdtempSync(join(tmpdir(), 'fund-edge-callgrind-'));
  const wrapper = join(dir, 'workerd.sh');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec valgrind --tool=callgrind --fair-sched=yes --separate-threads=yes --smc-check=all-non-file --callgrind-out-file=${dir}/cg.%p --log-file=${dir}/valgrind.log ${WORKERD} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const before = process.env.MINIFLARE_WORKERD_PATH;
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
  const mf = freshMiniflare(subject);
  try {
    await mf.ready;
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    const out = readdirSync(dir).find((f) => /^cg\.\d+$/.test(f));
    if (!out) throw new Error('workerd did not start under callgrind (see its log)');
    const pid = Number(out.slice(3));
    const key = await subject.prepare(mf);
    for (const prime of primes) await (await fetch(new URL(prime.path, url), prime.init(key))).arrayBuffer();
    // Idle: the main thread for 50 ms, then a second more for V8's background compilations of the startup.
    await settle(pid);
    await new Promise((r) => setTimeout(r, 1000));
    await control('--zero', pid);
    const { path, init, check } = databaseCase(spec);
    const res = await fetch(new URL(path, url), init(key));
    const body = await res.text();
    await new Promise((r) => setTimeout(r, 500));
    await control('--dump', pid);
    const { main, all } = dumpsByThread(readdirSync(dir), out);
    if (!main) throw new Error('callgrind wrote no dump of the main thread');
    const count = (f: string) => callgrindSummary(readFileSync(join(dir, f), 'utf8')) / 1e6;
    return {
      mainMi: count(main),
      allMi: all.reduce((sum, f) => sum + count(f), 0),
      problem: check(res.status, body),
    };
  } finally {
    await mf.dispose();
    if (before === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
    else process.env.MINIFLARE_WORKERD_PATH = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      bundle: { type: 'string', multiple: true },
      runs: { type: 'string', default: '3' },
      fund: { type: 'string', default: 'bench-fund' },
      prime: { type: 'string', multiple: true, default: [] },
    },
  });
  if (positionals.length === 0) throw new Error('name at least one fund path (e.g. overview, capital-accounts, mcp:get_fund_overview)');
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  const cleanup = new Cleanup();
  try {
    useWranglerEnv();
    const proxy = await startPgWsProxy({ target: { host: '127.0.0.1', port: 5432 } });
    cleanup.add('stop the proxy', () => proxy.close());
    const bundles = values.bundle?.length ? values.bundle : [await deployedWorker(cleanup)];
    const primes: Prime[] = values.prime.map(databaseCase);
    const { runs, failed } = await interleavedRuns(
      Number(values.runs),
      bundles,
      positionals.map((spec) => ({
        label: spec,
        measure: (bundle: string) => countOnce(databaseService(resolve(bundle), values.fund, proxy.wsProxy), spec, primes),
      })),
    );
    const after = primes.length ? ` after ${values.prime.join(', ')}` : '';
    printMedians(
      `instructions of workerd's main thread for the first request of a fresh isolate${after}, millions (median of ${values.runs}; the runs sorted)`,
      figuresOf(runs, (r) => [r.mainMi]),
    );
    printMedians(
      'the same, all of its threads',
      figuresOf(runs, (r) => [r.allMi]),
    );
    return failed ? 1 : 0;
  } finally {
    await cleanup.run();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Cleanup.installSignalHandlers();
  process.exitCode = await main();
}

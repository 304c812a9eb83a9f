/**
 * The fuzz run: the Worker in workerd (wrangler's `unstable_startWorker` through the shared e2e helper,
 * port 0, KV in a fresh temporary folder that is deleted afterwards), keys minted into its local KV by the
 * real `npm run keys` CLI, its fund data from a store the run chooses itself (the embedded fund, or a
 * throwaway PostgreSQL database it seeds: never a `DATABASE_URL` of the environment or `.dev.vars`), a
 * health check that every fund route answers 200 before any case is sent ({@link checkHealthy}), then
 * `runs` generated requests, each judged by the oracle. Used by
 * `npm run fuzz` (scripts/fuzz.ts) and by the bounded slice in `npm test` (test/fuzz/fuzz.test.ts).
 *
 * Deterministic by seed: the cases are drawn in chunks of {@link CHUNK} with fast-check from a seed derived
 * from the run's seed and the chunk's number, so case `i` of a seed is the same whatever `runs` is, and
 * `only` replays it alone. Answers can differ between runs only where the service is not deterministic
 * (rate limits, timing).
 *
 * Hang detector: an answer that does not arrive within `timeoutMs` (default 5 s, generous for 2 shared
 * cores) is a failure. A request stuck in the Worker delays every other request of the isolate, so after a
 * timeout or a dropped connection the Worker is restarted and the request is sent again alone: only a
 * request that fails again is reported (others in flight at the time are sent again too).
 *
 * The Worker's log is read too (test/support/worker.ts `captureWorkerLog`; the Worker runs with the
 * inspector on, through which wrangler prints what workerd reports): an uncaught exception or a request
 * workerd cancelled as hung is a failure even when every client got its answer, since such a line can come
 * from work behind a response (`waitUntil`) or from a request whose answer was already sent. Each such line
 * is charged to the request answered when it was read, and names the requests that were in flight then.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { captureWorkerLog, mintKey, startWorker, WORKER_LOG_PROBLEM, type TestWorker, type WorkerLog } from '../support/worker.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { fundPath } from '../support/declared.ts';
import { buildModel, fuzzCase, SELF_ORIGIN, tourCases, type FuzzCase, type FuzzKeys, type FuzzModel } from './cases.ts';
import { closeConnections, send, type FuzzAnswer, type FuzzRequest } from './http.ts';
import { judge, type Violation } from './oracle.ts';

/** Cases drawn per fast-check sample (see the module comment). */
export const CHUNK = 100;

/** The failure class of a problem line in the Worker's log (see the module comment). */
export const WORKER_LOG_FAILURE = "the Worker's log reports an uncaught exception or a request cancelled as hung";

/** How long the run waits after its last answer for the Worker's log, ms (work behind a response finishes within it). */
const LOG_SETTLE_MS = 2_000;

/** The Worker under test, the keys minted for it, and the model generated from its declarations and OpenAPI document. */
export interface FuzzTarget {
  base: string;
  keys: FuzzKeys;
  model: FuzzModel;
  /** The Worker's log since it started. */
  log: WorkerLog;
  /** Stops the Worker and starts it again on the same KV (keys and counters kept); updates `base`. */
  restart(): Promise<void>;
  /** Stops the Worker and deletes its KV folder. */
  dispose(): Promise<void>;
}

/**
 * The burst guards are raised for the run (as test/e2e does), so that thousands of calls in a few minutes
 * are not all refused; 429 stays an accepted answer. The daily quota is not changed: keyed calls are counted
 * against a key minted with a daily limit the run cannot reach, anonymous ones against random addresses.
 */
const RAISED_BURST = {
  CALC_BURST: { type: 'ratelimit', namespace_id: '1001', simple: { limit: 1_000_000, period: 60 } },
  FUND_BURST: { type: 'ratelimit', namespace_id: '1002', simple: { limit: 1_000_000, period: 60 } },
};

/** Where the fuzzed Worker reads fund data from. */
export type FuzzStore = 'embedded' | 'postgres';

const text = (value: string) => ({ type: 'plain_text', value });

/**
 * The fund-data bindings of a run. `embedded`: `DATABASE_URL` bound empty, so that a database configured in
 * `.dev.vars` (which wrangler reads for any local Worker) cannot stand in unchecked. `postgres`: a throwaway
 * database (test/support/database.ts: the local PostgreSQL, else an embedded one), migrated and seeded with
 * the sample fund, reached through the project's WebSocket proxy as `npm run dev` does.
 */
async function fundBindings(store: FuzzStore): Promise<{ bindings: Record<string, unknown>; database?: TestDatabase }> {
  if (store === 'embedded') return { bindings: { DATABASE_URL: text('') } };
  const database = await createTestDatabase();
  try {
    await migrateAndSeed(database, ['sample-fund']);
  } catch (err) {
    await database.dispose();
    throw err;
  }
  return {
    database,
    bindings: {
      DATABASE_URL: text(database.url),
      DATABASE_WS_PROXY: text(database.proxy.wsProxy),
      INVESTOR_REF_KEY: text('fuzz-investor-ref-key-0123456789'),
    },
  };
}

/** The part of an OpenAPI document the health check reads: each GET operation's query parameters and their examples. */
export interface HealthDoc {
  paths?: Record<string, { get?: { parameters?: { name: string; in: string; example?: unknown }[] } }>;
}

/**
 * Checks that the service is healthy before a run: every fund route of the OpenAPI document (the paths of the
 * declared fund tools, test/support/declared.ts `fundPath`) answers 200 to its typical request (the query parameters' examples) with `key`, so that a database that is down,
 * unmigrated or empty stops the run here, instead of every fund case answering 503 and the run proving
 * nothing.
 * @throws {Error} naming each route that did not answer 200, with its status and problem code
 */
export async function checkHealthy(base: string, doc: HealthDoc, key: string): Promise<void> {
  const declared = new Set(FUND_TOOLS.map((t) => fundPath(t)));
  const fund = Object.entries(doc.paths ?? {}).filter(([p, item]) => declared.has(p) && item.get);
  if (fund.length === 0) throw new Error('the OpenAPI document lists no fund route to check');
  const broken: string[] = [];
  for (const [path, item] of fund) {
    const query = new URLSearchParams();
    for (const p of item.get!.parameters ?? []) if (p.in === 'query' && p.example !== undefined) query.set(p.name, String(p.example));
    const url = `${path}${query.size ? `?${query}` : ''}`;
    const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.text();
    if (res.status !== 200) {
      const code = (/"code":"([a-z_]+)"/.exec(body) ?? [])[1];
      broken.push(`${url}: ${res.status}${code ? ` ${code}` : ''}`);
    }
  }
  if (broken.length)
    throw new Error(
      `the service is not healthy, so a fuzz run would prove nothing; fund routes that did not answer 200:\n  ${broken.join('\n  ')}`,
    );
}

/**
 * Starts the Worker on the chosen fund store, mints the run's keys (one of them then revoked), checks that
 * it is healthy ({@link checkHealthy}) and builds the model from `/api/v1/openapi.json`.
 * @throws {Error} when the Worker does not start or is not healthy (everything started is stopped)
 */
export async function startFuzzTarget(options: { store?: FuzzStore } = {}): Promise<FuzzTarget> {
  const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-fuzz-'));
  const mint = (fund: string) => mintKey(persistDir, ['--fund', fund, '--label', 'fuzz', '--daily-calc-limit', '100000000']);
  const keys: FuzzKeys = { sample: await mint('sample-fund'), other: await mint('fuzz-other-fund'), revoked: await mint('sample-fund') };
  execFileSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      'scripts/keys.ts',
      'revoke',
      keys.revoked.slice(0, 12),
      '--persist-to',
      persistDir,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const { bindings, database } = await fundBindings(options.store ?? 'embedded');
  const log = captureWorkerLog();
  const start = () => startWorker(persistDir, { ...RAISED_BURST, ...bindings }, 'error', { inspector: true });
  const fail = async (err: unknown): Promise<never> => {
    log.stop();
    await database?.dispose();
    rmSync(persistDir, { recursive: true, force: true });
    throw err;
  };
  let worker: TestWorker = await start().catch(fail);
  const doc = (await (await fetch(`${worker.base}/api/v1/openapi.json`)).json()) as Parameters<typeof buildModel>[0];
  await checkHealthy(worker.base, doc as HealthDoc, keys.sample).catch(async (err: unknown) => {
    await worker.dispose();
    return fail(err);
  });
  const target: FuzzTarget = {
    base: worker.base,
    keys,
    model: buildModel(doc),
    log,
    async restart() {
      await worker.dispose();
      worker = await start();
      target.base = worker.base;
    },
    async dispose() {
      closeConnections();
      try {
        await worker.dispose();
      } finally {
        log.stop();
        rmSync(persistDir, { recursive: true, force: true });
        await database?.dispose();
      }
    },
  };
  return target;
}

/** Options of a run. */
export interface FuzzOptions {
  seed: number;
  runs: number;
  /** The hang detector's cap per request, ms. */
  timeoutMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Replays only case `only` of the seed. */
  only?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One failing case: its index in the seed's sequence, the case, the broken rule and what came back. */
export interface FuzzFailure {
  index: number;
  fuzzCase: FuzzCase;
  violation: Violation;
  status: number | null;
  body: string;
}

/** A failure class: one rule, how often it broke on which routes, and its smallest reproduction. */
export interface FailureClass {
  kind: string;
  count: number;
  /** Failures by route (the route table's path, or `(other path)`). */
  routes: Map<string, number>;
  smallest: FuzzFailure;
}

/** The result of a run. */
export interface FuzzReport {
  seed: number;
  sent: number;
  /** Requests sent again alone after a timeout or dropped connection that then answered in time. */
  recovered: number;
  statuses: Record<string, number>;
  classes: FailureClass[];
}

/** Every this many cases, one is the next stop of the tour (cases.ts `tourCases`), until it has been round once. */
export const TOUR_STRIDE = 8;

/**
 * The cases `[from, to)` of a seed. Case i is the same whatever `[from, to)` it is drawn in: drawn in chunks
 * of {@link CHUNK} from the seed, except every {@link TOUR_STRIDE}th of the tour's first pass, drawn
 * from its stop's arbitrary with a seed of its own.
 */
export function casesOf(
  target: Pick<FuzzTarget, 'model' | 'keys'>,
  seed: number,
  from: number,
  to: number,
): { index: number; fuzzCase: FuzzCase }[] {
  const out: { index: number; fuzzCase: FuzzCase }[] = [];
  const arb = fuzzCase(target.model, target.keys);
  const tour = tourCases(target.model, target.keys);
  for (let chunk = Math.floor(from / CHUNK); chunk * CHUNK < to; chunk++) {
    const sample = fc.sample(arb, { seed: (seed ^ Math.imul(chunk + 1, 0x9e3779b1)) | 0, numRuns: CHUNK });
    sample.forEach((drawn, i) => {
      const index = chunk * CHUNK + i;
      if (index < from || index >= to) return;
      const stop = index % TOUR_STRIDE === 0 ? tour[index / TOUR_STRIDE] : undefined;
      const fuzzCase = stop ? fc.sample(stop, { seed: (seed ^ Math.imul(index + 1, 0x85ebca6b)) | 0, numRuns: 1 })[0]! : drawn;
      out.push({ index, fuzzCase });
    });
  }
  return out;
}

function materialize(request: FuzzRequest, base: string): FuzzRequest {
  return { ...request, headers: request.headers.map(([k, v]) => [k, v === SELF_ORIGIN ? base : v]) };
}

function size(c: FuzzCase): number {
  const body = c.request.body;
  return (
    c.request.path.length +
    c.request.headers.reduce((n, [k, v]) => n + k.length + v.length, 0) +
    (body === undefined ? 0 : typeof body === 'string' ? body.length : body.byteLength)
  );
}

/**
 * Runs the cases of `options.seed` against `target` and groups what broke by rule and route.
 * @returns the report; the run does not stop at a failure
 */
export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const report: FuzzReport = { seed: options.seed, sent: 0, recovered: 0, statuses: {}, classes: [] };
  const classes = new Map<string, FailureClass>();
  const inFlight = new Set<number>();
  /** Lines of the Worker's log read so far (from this run's start). */
  let logRead = target.log.lines().length;
  /** The problem lines of the Worker's log written since the last call, as violations. */
  const logViolations = (): Violation[] => {
    const lines = target.log.lines();
    const fresh = lines.slice(logRead).filter((line) => WORKER_LOG_PROBLEM.test(line));
    logRead = lines.length;
    const others = [...inFlight].sort((a, b) => a - b);
    return fresh.map((line) => ({
      kind: WORKER_LOG_FAILURE,
      detail: `${others.length ? `in flight: requests ${others.join(', ')}; ` : ''}${line.replace(/^\W*\[ERROR\]\s*/, '').trim()}`,
    }));
  };
  let epoch = 0;
  let gate: Promise<void> = Promise.resolve();

  const attempt = (c: FuzzCase): Promise<FuzzAnswer | Error> =>
    send(target.base, materialize(c.request, target.base), options.timeoutMs).catch((err: unknown) =>
      err instanceof Error ? err : new Error(String(err)),
    );

  async function exchange(c: FuzzCase): Promise<FuzzAnswer | Error> {
    for (let tries = 0; ; tries++) {
      await gate;
      const started = epoch;
      const answer = await attempt(c);
      if (!(answer instanceof Error)) return answer;
      // The Worker was restarted while this was in flight (another request hung it): send it again.
      if (epoch !== started && tries < 2) continue;
      // It failed on a Worker nobody restarted since: restart, then send it again with nothing else in flight.
      epoch++;
      let confirmed: FuzzAnswer | Error = answer;
      gate = gate.then(async () => {
        await target.restart();
        confirmed = await attempt(c);
        if (confirmed instanceof Error) {
          epoch++;
          await target.restart();
        } else report.recovered++;
      });
      await gate;
      return confirmed;
    }
  }

  const todo = options.only !== undefined ? casesOf(target, options.seed, options.only, options.only + 1) : undefined;
  const total = todo ? todo.length : options.runs;
  let next = 0;
  let pending: { index: number; fuzzCase: FuzzCase }[] = todo ?? [];
  let drawnTo = todo ? total : 0;

  const take = (): { index: number; fuzzCase: FuzzCase } | undefined => {
    if (!todo && pending.length === 0 && drawnTo < total) {
      pending = casesOf(target, options.seed, drawnTo, Math.min(total, drawnTo + CHUNK));
      drawnTo = Math.min(total, drawnTo + CHUNK);
    }
    return pending.shift();
  };

  const record = (item: { index: number; fuzzCase: FuzzCase }, answer: FuzzAnswer | Error, violations: Violation[]) => {
    for (const violation of violations) {
      const key = violation.kind;
      const failure: FuzzFailure = {
        index: item.index,
        fuzzCase: item.fuzzCase,
        violation,
        status: answer instanceof Error ? null : answer.status,
        body: answer instanceof Error ? answer.message : answer.body,
      };
      const known = classes.get(key);
      const route = item.fuzzCase.route;
      if (!known) classes.set(key, { kind: violation.kind, count: 1, routes: new Map([[route, 1]]), smallest: failure });
      else {
        known.count++;
        known.routes.set(route, (known.routes.get(route) ?? 0) + 1);
        if (size(item.fuzzCase) < size(known.smallest.fuzzCase)) known.smallest = failure;
      }
    }
  };
  let last: { item: { index: number; fuzzCase: FuzzCase }; answer: FuzzAnswer | Error } | undefined;

  async function lane(): Promise<void> {
    for (let item = take(); item; item = take()) {
      inFlight.add(item.index);
      const answer = await exchange(item.fuzzCase);
      inFlight.delete(item.index);
      report.sent++;
      next++;
      const status = answer instanceof Error ? answer.name : String(answer.status);
      report.statuses[status] = (report.statuses[status] ?? 0) + 1;
      record(item, answer, [...judge(item.fuzzCase, answer), ...logViolations()]);
      last = { item, answer };
      if (next % 500 === 0) options.log?.(`  ${next}/${total} sent, ${classes.size} failure classes so far`);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, lane));
  // Work behind the last answers (`waitUntil`) may still report: give it the time a quota write takes.
  await new Promise((resolve) => setTimeout(resolve, LOG_SETTLE_MS));
  if (last) record(last.item, last.answer, logViolations());
  report.classes = [...classes.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  return report;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A failing request as text a person can replay: method, path, headers (keys named), body truncated, the answer. */
export function reproduction(failure: FuzzFailure, keys: FuzzKeys, seed: number): string {
  const names: [string, string][] = [
    [keys.sample, '$SAMPLE_FUND_KEY'],
    [keys.other, '$OTHER_FUND_KEY'],
    [keys.revoked, '$REVOKED_KEY'],
    [DEMO_API_KEY, DEMO_API_KEY],
  ];
  const name = (v: string) => names.reduce((s, [key, label]) => s.split(key).join(label), v);
  const { request } = failure.fuzzCase;
  const body =
    request.body === undefined ? '' : typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
  return [
    `    replay: FUZZ_SEED=${seed} FUZZ_ONLY=${failure.index} npm run fuzz`,
    `    ${request.method} ${JSON.stringify(request.path).slice(1, -1)}`,
    ...request.headers.map(([k, v]) => `    ${k}: ${JSON.stringify(name(v)).slice(1, -1)}`),
    ...(body ? [`    body: ${truncate(JSON.stringify(body), 300)}`] : []),
    ...(failure.fuzzCase.mustReject ? [`    (must be refused: ${failure.fuzzCase.mustReject})`] : []),
    `    → ${failure.status ?? 'no answer'} ${truncate(JSON.stringify(failure.body), 300)}`,
    `    ${failure.violation.detail ? `why: ${truncate(failure.violation.detail, 200)}` : ''}`,
  ].join('\n');
}

/** The report as printed: seed, counts, then every failure class with its smallest reproduction. */
export function formatReport(report: FuzzReport, keys: FuzzKeys): string {
  const statuses = Object.entries(report.statuses)
    .sort()
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const recovered = report.recovered ? `, ${report.recovered} timeouts or dropped connections that answered when sent again alone` : '';
  const lines = [`fuzz: seed ${report.seed}, ${report.sent} requests, answers ${statuses}${recovered}`];
  if (!report.classes.length) lines.push('fuzz: no failures');
  else {
    lines.push(`fuzz: ${report.classes.length} failure classes (broken rules), seed ${report.seed}:`);
    for (const c of report.classes) {
      const routes = [...c.routes].sort(([a], [b]) => a.localeCompare(b)).map(([r, n]) => `${r} ${n}×`);
      lines.push(
        `\n  ✗ ${c.kind} (${c.count}×)`,
        `    on ${routes.join(', ')}`,
        '    smallest:',
        reproduction(c.smallest, keys, report.seed),
      );
    }
  }
  return lines.join('\n');
}

/**
 * Scale: the fund endpoints on a fund of a large real fund's size, through PostgreSQL, in workerd.
 *
 * The fund is the import bench's (bench/import-fund.ts: 5 years of daily runs, 500 live positions, 500
 * investors, 4.6 million rows), imported once with `npm run fund`'s pipeline into a named local database
 * (`fund_edge_scale` on 127.0.0.1:5432), which is kept between runs: a run finds it there and imports
 * nothing unless `--fresh` (or the migrations changed: then it is imported again). A second fund of 1,000
 * live positions (`bench-fund-1000`) shows how cost grows with the book.
 *
 * The Worker as deployed (bench/workerd.ts) is served by Miniflare with `DATABASE_URL` pointing at that
 * database through the project's proxy (the deployed path: SQL over HTTP, lib/db/http.ts, on the proxy's
 * `POST /sql`), a fund key minted for the fund. Per endpoint and fund MCP tool, at default and maximum
 * parameters:
 * - CPU of workerd's main thread (`/proc/<pid>/task/<tid>/schedstat`, bench/schedstat.ts): the first request
 *   of a fresh isolate (its own workerd; the median of 3), and the median of the warm requests that follow (a database
 *   source memoizes nothing, so each one reads and computes again);
 * - wall time of the warm request;
 * - database time, statements, and the bytes the database sent, from the same tool call in Node through
 *   the same driver, proxy and SQL (an instrumented connection: the time each statement took to answer and
 *   the length of its JSON).
 * - workerd's peak memory over its memory before the first request (`/proc/<pid>/status`: the process's
 *   high-water mark, which bounds what the isolate took for the requests);
 * Then VaR's growth: a VaR-1000 request at 500 and at 1,000 positions, two warm isolates measured in turn;
 * and 16 concurrent VaR requests at the maximum window, on one isolate: how many answered 200.
 *
 * Budgets (the goals of docs/performance.md): warm CPU ≤ 10 ms, first request ≤ 20 ms, database time
 * ≤ 50 ms and ≤ 1 MB from the database per request, VaR at 1,000 positions ≤ 1.5 × at 500, 16 concurrent
 * VaR-1000 all 200.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Miniflare } from 'miniflare';
import pg from 'pg';
import { openDatabase, type SqlClient } from '../operator/db/session.ts';
import { callFundTool } from '../lib/fund/definition.ts';
import { postgresStore } from '../lib/fund/postgres-store.ts';
import { guardedStore } from '../lib/fund/store.ts';
import { createKey, type KeyAdminStore } from '../lib/keys.ts';
import { FUND_TOOLS } from '../lib/registry.ts';
import { checksum, migrate } from '../operator/db/migrate.ts';
import { importBundle } from '../operator/bundle/load.ts';
import { loadMigrations } from '../scripts/db.ts';
import { startPgWsProxy, type PgWsProxy } from '../scripts/pg-ws-proxy.ts';
import { LARGE_FUND, type LargeFundSpec, writeLargeFund } from './import-fund.ts';
import { Cleanup, atMost, figure, median, progress, useWranglerEnv, type Figure } from './report.ts';
import { cpuBetween, threadTimes } from './schedstat.ts';
import { mcpArguments, toolCall } from './first-requests.ts';
import {
  RAISED_BURST_LIMITS,
  WORKER_NAME,
  deployedWorker,
  freshMiniflare,
  service,
  settle,
  workerdChildren,
  type Subject,
} from './workerd.ts';

const DATABASE = 'fund_edge_scale';
const SERVER = 'postgres://postgres@127.0.0.1:5432';
const URL_OF = (db: string) => `${SERVER}/${db}`;
const FUNDS: LargeFundSpec[] = [LARGE_FUND, { ...LARGE_FUND, fundId: 'bench-fund-1000', positions: 1000 }];
const WARM = 8;
/** Fresh isolates whose first request is measured per case (the median is the figure). */
const FIRST_RUNS = 3;
const CONCURRENT = 16;
/** A 32-byte investor pseudonym key for the Worker (any value: the bench reads no pseudonym). */
const INVESTOR_REF_KEY = 'c2NhbGUtYmVuY2gtaW52ZXN0b3ItcmVmLWtleS0zMmJ5dGVz';

/** The maximum parameters of the tools whose work grows with one (the others run at their defaults only). */
const MAXIMA: Record<string, Record<string, string>> = {
  get_value_at_risk: { windowDays: '1000' },
  get_nav_history: { days: '3660' },
  get_exposure_series: { days: '366' },
  get_expenses: { limit: '500' },
};

/** Is the fund there, imported under the current migrations? */
async function present(client: pg.Client, fundId: string): Promise<boolean> {
  const migrations = await Promise.all(loadMigrations().map((m) => checksum(m.sql)));
  const recorded = await client.query(`SELECT checksum FROM schema_migrations ORDER BY version`).catch(() => ({ rows: [] }));
  if (recorded.rows.map((r: { checksum: string }) => r.checksum).join() !== migrations.join()) return false;
  const fund = await client.query('SELECT 1 FROM funds WHERE fund_id = $1', [fundId]);
  return fund.rows.length === 1;
}

/** The named database with both funds, imported when missing (or always with `fresh`). */
async function ensureFunds(fresh: boolean, proxy: PgWsProxy): Promise<string[]> {
  const notes: string[] = [];
  const admin = new pg.Client({ connectionString: URL_OF('postgres') });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])).rows.length === 1;
    let stale = fresh || !exists;
    if (exists && !stale) {
      const client = new pg.Client({ connectionString: URL_OF(DATABASE) });
      await client.connect();
      try {
        for (const f of FUNDS) if (!(await present(client, f.fundId))) stale = true;
      } finally {
        await client.end();
      }
    }
    if (!stale) return [`${DATABASE}: kept from an earlier run (--fresh imports again)`];
    if (exists) await admin.query(`DROP DATABASE ${DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const db = openDatabase({ url: URL_OF(DATABASE), wsProxy: proxy.wsProxy, timeoutMs: 120_000 });
  try {
    await migrate(db, loadMigrations());
  } finally {
    await db.release();
  }
  for (const spec of FUNDS) {
    const dir = mkdtempSync(join(tmpdir(), 'fund-edge-scale-'));
    try {
      progress(`scale: generating ${spec.fundId} (${spec.years} years, ${spec.positions} positions)`);
      await writeLargeFund(dir, spec);
      progress(`scale: importing ${spec.fundId} into ${DATABASE}`);
      const t0 = performance.now();
      const result = await importBundle({
        dir,
        fundId: spec.fundId,
        mode: 'replace',
        allowRestatement: false,
        dryRun: false,
        url: URL_OF(DATABASE),
      });
      if (result.outcome !== 'imported') throw new Error(`importing ${spec.fundId}: ${result.outcome}`);
      notes.push(`${spec.fundId} imported in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const client = new pg.Client({ connectionString: URL_OF(DATABASE) });
  await client.connect();
  await client.query('VACUUM ANALYZE');
  await client.end();
  return notes;
}

/** What one tool call asks of the database: statements, their total answer time, and the bytes of their answers. */
async function databaseCost(proxy: PgWsProxy, fundId: string, tool: string, args: Record<string, string>) {
  const def = FUND_TOOLS.find((t) => t.tool === tool)!;
  const db = openDatabase({ url: URL_OF(DATABASE), wsProxy: proxy.wsProxy, timeoutMs: 30_000 });
  try {
    await db.query('SELECT 1'); // connected, so connecting is not counted
    let statements = 0;
    let ms = 0;
    let bytes = 0;
    const counted: SqlClient = {
      async query(text, params) {
        const t0 = performance.now();
        const result = await db.query(text, params);
        ms += performance.now() - t0;
        statements++;
        bytes += JSON.stringify(result.rows).length;
        return result as never;
      },
    };
    await callFundTool(def, { store: guardedStore(postgresStore(counted)), fundId }, {}, args);
    return { statements, ms, bytes };
  } finally {
    await db.release();
  }
}

/**
 * The Worker bundled in `outdir` (bench/workerd.ts's `service`) serving fund `fundId` of the scale
 * bench's database through the proxy at `wsProxy`, with the burst limits raised; `prepare` serves the first
 * call of each binding simulator (as bench/workerd.ts's first requests do: their cost is Miniflare's, not
 * the Worker's) and mints a key of that fund. The scale section, bench/first-db-workerd.ts and
 * bench/profile-workerd.ts serve the fund with it.
 */
export function databaseService(outdir: string, fundId: string, wsProxy: string): Subject {
  const base = service(outdir);
  const options = base.options as { bindings?: Record<string, unknown>; ratelimits?: Record<string, unknown> };
  return {
    options: {
      ...base.options,
      bindings: { ...options.bindings, FUND_ID: fundId, DATABASE_URL: URL_OF(DATABASE), DATABASE_WS_PROXY: wsProxy, INVESTOR_REF_KEY },
      ratelimits: { ...options.ratelimits, ...RAISED_BURST_LIMITS },
    } as Subject['options'],
    async prepare(mf: Miniflare) {
      await base.prepare(mf);
      const API_KEYS = (await mf.getKVNamespace('API_KEYS')) as unknown as KeyAdminStore;
      return (await createKey(API_KEYS, { fundId, label: 'scale', dailyCalcLimit: 100_000_000 })).key;
    },
  };
}

/** A fresh workerd serving the Worker against the database, with a key of `fundId`, idle once its simulators served a first call. */
async function start(outdir: string, proxy: PgWsProxy, fundId: string) {
  const subject = databaseService(outdir, fundId, proxy.wsProxy);
  const known = workerdChildren();
  const mf = freshMiniflare(subject);
  await mf.ready;
  const url = await mf.unsafeGetDirectURL(WORKER_NAME);
  const pid = [...workerdChildren()].find((p) => !known.has(p));
  if (pid === undefined) throw new Error('no workerd process found for the new Miniflare');
  const key = await subject.prepare(mf);
  await settle(pid);
  return { mf, url, pid, key };
}

type Started = Awaited<ReturnType<typeof start>>;

/** A memory figure of a process from `/proc/<pid>/status` (`VmRSS`: now; `VmHWM`: its peak), KiB. */
function memoryKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

/** One request: main-thread CPU, wall, status. */
async function timed(w: Started, send: () => Promise<Response>) {
  const before = threadTimes(w.pid);
  const t0 = performance.now();
  const res = await send();
  const body = await res.text();
  const wallMs = performance.now() - t0;
  const cpu = cpuBetween(w.pid, before, threadTimes(w.pid));
  return { cpuMs: cpu.mainMs, wallMs, status: res.status, bytes: body.length, isError: body.includes('"isError":true') };
}

/** The REST request and the MCP `tools/call` (JSON-RPC id `n`) of a tool. */
function requests(w: Started, tool: string, path: string, args: Record<string, string>) {
  const rest = (_n: number) => {
    const url = new URL(`/api/v1/fund/${path}`, w.url);
    for (const [k, v] of Object.entries(args)) url.searchParams.set(k, v);
    return fetch(url, { headers: { authorization: `Bearer ${w.key}` } });
  };
  const mcp = (n: number) => fetch(new URL('/api/mcp', w.url), toolCall(w.key, tool, mcpArguments(args), n));
  return { rest, mcp };
}

/** Rounds of {@link varGrowth}: each sends 3 requests to each isolate, in turn. */
const GROWTH_ROUNDS = 6;

/**
 * Warm CPU of a VaR-1000 REST request at 500 and at 1,000 positions, each fund on an isolate of its own,
 * both warmed first (8 requests), then measured in turn (3 requests on one, 3 on the other, the order
 * alternating by round), so that both medians see the machine alike: the two cost a few ms each, and
 * measured minutes apart their ratio moved by half between runs.
 * @returns the medians (ms), or null when a request did not answer 200
 */
async function varGrowth(outdir: string, proxy: PgWsProxy): Promise<[number, number] | null> {
  const path = FUND_TOOLS.find((t) => t.tool === 'get_value_at_risk')!.path;
  const ws = [await start(outdir, proxy, FUNDS[0]!.fundId), await start(outdir, proxy, FUNDS[1]!.fundId)];
  try {
    const sends = ws.map((w) => requests(w, 'get_value_at_risk', path, MAXIMA.get_value_at_risk!).rest);
    const cpu: number[][] = [[], []];
    for (const [i, w] of ws.entries()) for (let n = 0; n < WARM; n++) if ((await timed(w, () => sends[i]!(n))).status !== 200) return null;
    for (let round = 0; round < GROWTH_ROUNDS; round++) {
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        for (let n = 0; n < 3; n++) {
          const r = await timed(ws[i]!, () => sends[i]!(n));
          if (r.status !== 200) return null;
          cpu[i]!.push(r.cpuMs);
        }
      }
    }
    return [median(cpu[0]!), median(cpu[1]!)];
  } finally {
    for (const w of ws) await w.mf.dispose();
  }
}

/** The scale section. */
export async function runScale(options: { fresh?: boolean; cases?: string[] } = {}): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  /** Whether a case runs: every one unless `cases` names some (a part of its name). */
  const at = process.argv.indexOf('--cases');
  const cases = options.cases ?? (at > 0 ? (process.argv[at + 1] ?? '').split(',').filter(Boolean) : []);
  const wanted = (name: string) => cases.length === 0 || cases.some((c) => name.includes(c));
  const cleanup = new Cleanup();
  const figures: Figure[] = [];
  const diagnostics: string[] = [];
  try {
    useWranglerEnv();
    const proxy = await startPgWsProxy({ target: { host: '127.0.0.1', port: 5432 } });
    cleanup.add('stop the proxy', () => proxy.close());
    diagnostics.push(...(await ensureFunds(options.fresh ?? process.argv.includes('--fresh'), proxy)));
    progress('scale: bundling the Worker as deployed');
    const outdir = await deployedWorker(cleanup);
    if (!existsSync(join(outdir, 'worker.js'))) throw new Error('no worker.js');
    for (const spec of FUNDS) {
      const cases = FUND_TOOLS.flatMap((def) => [
        // Defaults, but the one required parameter (P&L attribution's date) from the declared example.
        { def, args: def.tool === 'get_pnl_attribution' ? def.example : ({} as Record<string, string>), label: 'default' },
        ...(MAXIMA[def.tool] ? [{ def, args: MAXIMA[def.tool]!, label: 'maximum' }] : []),
      ]).filter(({ def }) => spec === FUNDS[0] || def.tool === 'get_value_at_risk');
      for (const { def, args, label } of cases) {
        for (const surface of ['rest', 'mcp'] as const) {
          if (surface === 'mcp' && spec !== FUNDS[0]) continue;
          if (!wanted(`${spec.fundId} ${surface === 'rest' ? def.path : def.tool} ${label}`)) continue;
          progress(`scale: ${spec.fundId} ${def.tool} ${label} (${surface})`);
          const w = await start(outdir, proxy, spec.fundId);
          try {
            const send = requests(w, def.tool, def.path, args)[surface];
            const rssBefore = memoryKiB(w.pid, 'VmRSS');
            const first = await timed(w, () => send(0));
            const warm = [];
            for (let n = 1; n <= WARM; n++) warm.push(await timed(w, () => send(n)));
            const grewMiB = (memoryKiB(w.pid, 'VmHWM') - rssBefore) / 1024;
            // More fresh isolates for the first request alone: one first request is one sample, and they vary.
            const firsts = [first.cpuMs];
            for (let k = 1; k < FIRST_RUNS; k++) {
              const again = await start(outdir, proxy, spec.fundId);
              try {
                const r = await timed(again, () => requests(again, def.tool, def.path, args)[surface](0));
                firsts.push(r.status === 200 && !r.isError ? r.cpuMs : Number.POSITIVE_INFINITY);
              } finally {
                await again.mf.dispose();
              }
            }
            const failed = [first, ...warm].find((r) => r.status !== 200 || r.isError);
            const cost = await databaseCost(proxy, spec.fundId, def.tool, args);
            const name = `${spec.fundId} ${surface === 'rest' ? def.path : def.tool} ${label}`;
            const warmCpu = median(warm.map((r) => r.cpuMs));
            const note = `${failed ? `FAILED: status ${failed.status}; ` : ''}wall ${median(warm.map((r) => r.wallMs)).toFixed(1)} ms; db ${cost.statements} statements ${cost.ms.toFixed(1)} ms, ${(cost.bytes / 1024).toFixed(0)} KiB`;
            // A request that did not answer 200 fails its CPU budget whatever it cost (a 503 at the time budget is cheap).
            const cpuFigure = figure('scale', {
              name: `${name}: warm CPU`,
              value: warmCpu,
              unit: 'ms',
              budget: atMost(10, '≤ 10 ms'),
              note,
            });
            figures.push(
              failed ? { ...cpuFigure, pass: false } : cpuFigure,
              figure('scale', {
                name: `${name}: first-request CPU`,
                value: median(firsts),
                unit: 'ms',
                budget: atMost(20, '≤ 20 ms'),
                note: `median of ${FIRST_RUNS} fresh isolates: ${firsts.map((v) => v.toFixed(1)).join(', ')}`,
              }),
              figure('scale', { name: `${name}: database time`, value: cost.ms, unit: 'ms', budget: atMost(50, '≤ 50 ms') }),
              figure('scale', {
                name: `${name}: bytes from the database`,
                value: cost.bytes,
                unit: 'bytes',
                budget: atMost(2 ** 20, '≤ 1 MiB'),
              }),
              figure('scale', {
                name: `${name}: workerd's peak memory over its start (information)`,
                value: grewMiB,
                unit: 'MiB',
                note: 'VmHWM after the requests − VmRSS before them: the isolate and everything else in the process',
              }),
            );
          } finally {
            await w.mf.dispose();
          }
        }
      }
    }
    if (wanted('risk/var maximum')) {
      progress('scale: VaR-1000 at 1,000 positions against 500, the two isolates in turn');
      const growth = await varGrowth(outdir, proxy);
      if (growth === null) diagnostics.push('VaR-1000 at 1,000 positions ÷ at 500: not computed, a VaR-1000 request did not answer 200');
      else {
        const [v500, v1000] = growth;
        figures.push(
          figure('scale', {
            name: 'VaR-1000 warm CPU, 1,000 positions ÷ 500',
            value: v1000 / v500,
            unit: 'count',
            budget: atMost(1.5, '≤ 1.5×'),
            note: `${(v1000 / v500).toFixed(2)}×: ${v1000.toFixed(2)} ms ÷ ${v500.toFixed(2)} ms (medians of ${GROWTH_ROUNDS * 3} each, in turn)`,
          }),
        );
      }
    }
    if (!wanted('concurrent')) return { figures, diagnostics };
    progress(`scale: ${CONCURRENT} concurrent VaR-1000 requests`);
    const w = await start(outdir, proxy, FUNDS[0]!.fundId);
    try {
      const send = requests(
        w,
        'get_value_at_risk',
        FUND_TOOLS.find((t) => t.tool === 'get_value_at_risk')!.path,
        MAXIMA.get_value_at_risk!,
      ).rest;
      const t0 = performance.now();
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, n) =>
          send(n).then(async (r) => {
            await r.text();
            return r.status;
          }),
        ),
      );
      const ok = statuses.filter((s) => s === 200).length;
      figures.push(
        figure('scale', {
          name: `${CONCURRENT} concurrent VaR-1000 requests answered 200`,
          value: ok,
          unit: 'count',
          budget: { op: '>=', value: CONCURRENT, on: 'value', text: `all ${CONCURRENT}` },
          note: `statuses ${[...new Set(statuses)].join(', ')}; ${((performance.now() - t0) / 1000).toFixed(2)} s for all`,
        }),
      );
    } finally {
      await w.mf.dispose();
    }
    return { figures, diagnostics };
  } finally {
    await cleanup.run();
  }
}

/**
 * The database path: each fund endpoint's whole tool call (`callFundTool` through `guardedStore(
 * postgresStore(db))`, as a real key's REST request with `DATABASE_URL` set runs it) against a throwaway
 * database on the local PostgreSQL (127.0.0.1:5432), reached as the Worker reaches Neon: the
 * `@neondatabase/serverless` driver over WebSocket through the project's proxy (scripts/pg-ws-proxy.ts).
 * test/support/database.ts makes the database, migrates it and seeds `sample-fund`; when no PostgreSQL
 * answers it falls back to an embedded one (PGlite), and the table says which was used.
 *
 * Per endpoint: round trips per call (`db.roundTrips`; budget ≤ 2, the store's design in
 * lib/fund/store.ts: one `index` and one batched `read`), wall time per call on a warm connection (one
 * connection reused for every call, median of 10 after one unmeasured call), and on a cold one (a new
 * connection per call, median of 5); the difference is what opening a connection adds. The Worker opens
 * one connection per request, so the cold figure is what a request pays.
 */
import { FUND_TOOLS } from '../lib/registry.ts';
import { callFundTool } from '../lib/fund/definition.ts';
import { postgresStore } from '../lib/fund/postgres-store.ts';
import { guardedStore } from '../lib/fund/store.ts';
import type { Database } from '../lib/db/sql.ts';
import { createTestDatabase, migrateAndSeed } from '../test/support/database.ts';
import { Cleanup, atMost, figure, median, ms, progress, type Figure } from './report.ts';

/** Round trips an endpoint may make (lib/fund/store.ts: `index` + one batched `read`). */
export const MAX_ROUND_TRIPS = 2;
const WARM_CALLS = 10;
const COLD_CALLS = 5;
const FUND_ID = 'sample-fund';
/** Each tool's declared example (its date is a usable run of the sample fund too). */
const ARGS: Record<string, Record<string, string>> = Object.fromEntries(FUND_TOOLS.map((t) => [t.path, t.example]));

/** One timed call: wall ms and round trips. */
async function timedCall(db: Database, path: string): Promise<{ ms: number; roundTrips: number }> {
  const def = FUND_TOOLS.find((t) => t.path === path)!;
  const before = db.roundTrips;
  const t0 = performance.now();
  await callFundTool(def, { store: guardedStore(postgresStore(db)), fundId: FUND_ID }, {}, ARGS[path] ?? {});
  return { ms: performance.now() - t0, roundTrips: db.roundTrips - before };
}

/** The database section. */
export async function runDatabase(): Promise<{ figures: Figure[]; diagnostics: string[] }> {
  const cleanup = new Cleanup();
  const figures: Figure[] = [];
  const diagnostics: string[] = [];
  try {
    progress('database: creating a throwaway database (test/support/database.ts)');
    const database = await createTestDatabase();
    cleanup.add('drop the database and stop the proxy', () => database.dispose());
    const server =
      database.kind === 'postgres' ? 'PostgreSQL on 127.0.0.1:5432' : 'PGlite (embedded; no PostgreSQL answered on 127.0.0.1:5432)';
    progress(`database: ${server}; migrating and seeding ${FUND_ID}`);
    const t0 = performance.now();
    await migrateAndSeed(database, [FUND_ID]);
    const seedMs = performance.now() - t0;
    figures.push(
      figure('database', {
        name: `server used: ${database.kind} — migrate + seed ${FUND_ID} (setup, information)`,
        value: seedMs,
        unit: 'ms',
        note: server,
        extra: { kind: database.kind, server },
      }),
    );

    // A bare statement: what the driver and proxy cost with no fund query at all.
    const warm = database.open();
    cleanup.add('release the warm connection', () => warm.release());
    await warm.query('SELECT 1');
    const selectWarm: number[] = [];
    for (let i = 0; i < WARM_CALLS; i++) {
      const t = performance.now();
      await warm.query('SELECT 1');
      selectWarm.push(performance.now() - t);
    }
    const selectCold: number[] = [];
    for (let i = 0; i < COLD_CALLS; i++) {
      const db = database.open();
      try {
        const t = performance.now();
        await db.query('SELECT 1');
        selectCold.push(performance.now() - t);
      } finally {
        await db.release();
      }
    }
    figures.push(
      figure('database', { name: 'SELECT 1, warm connection', value: median(selectWarm), unit: 'ms', note: `median of ${WARM_CALLS}` }),
      figure('database', {
        name: 'SELECT 1, cold connection (connect + query)',
        value: median(selectCold),
        unit: 'ms',
        note: `median of ${COLD_CALLS}; the connection adds ${ms(median(selectCold) - median(selectWarm))}`,
      }),
    );

    const adds: number[] = [];
    for (const def of FUND_TOOLS) {
      progress(`database: ${def.path}`);
      await timedCall(warm, def.path); // unmeasured: plans and caches warm up
      const warmRuns: { ms: number; roundTrips: number }[] = [];
      for (let i = 0; i < WARM_CALLS; i++) warmRuns.push(await timedCall(warm, def.path));
      const coldRuns: { ms: number; roundTrips: number }[] = [];
      for (let i = 0; i < COLD_CALLS; i++) {
        const db = database.open();
        try {
          coldRuns.push(await timedCall(db, def.path));
        } finally {
          await db.release(); // the Worker releases after the response (waitUntil): not timed
        }
      }
      const warmMs = median(warmRuns.map((r) => r.ms));
      const coldMs = median(coldRuns.map((r) => r.ms));
      const trips = Math.max(...warmRuns.map((r) => r.roundTrips), ...coldRuns.map((r) => r.roundTrips));
      adds.push(coldMs - warmMs);
      const query = ARGS[def.path] ? ` ?${new URLSearchParams(ARGS[def.path])}` : '';
      figures.push(
        figure('database', {
          name: `${def.path}${query} — round trips per call`,
          value: trips,
          unit: 'count',
          budget: atMost(MAX_ROUND_TRIPS, `≤ ${MAX_ROUND_TRIPS}`),
          note: `every call: ${[...new Set([...warmRuns, ...coldRuns].map((r) => r.roundTrips))].join(', ')}`,
        }),
        figure('database', {
          name: `${def.path}${query} — warm connection`,
          value: warmMs,
          unit: 'ms',
          note: `median of ${WARM_CALLS}; min ${ms(Math.min(...warmRuns.map((r) => r.ms)))}`,
          extra: { runsMs: warmRuns.map((r) => r.ms) },
        }),
        figure('database', {
          name: `${def.path}${query} — cold connection`,
          value: coldMs,
          unit: 'ms',
          note: `median of ${COLD_CALLS}; the new connection adds ${ms(coldMs - warmMs)}`,
          extra: { runsMs: coldRuns.map((r) => r.ms), addsMs: coldMs - warmMs },
        }),
      );
    }
    figures.push(
      figure('database', {
        name: 'a cold connection adds (median over the endpoints)',
        value: median(adds),
        unit: 'ms',
        note: `range ${ms(Math.min(...adds))} – ${ms(Math.max(...adds))}`,
      }),
    );
    diagnostics.push(`Database: ${server}, driver @neondatabase/serverless over WebSocket via scripts/pg-ws-proxy.ts.`);
    for (const f of figures)
      if (f.pass === false) diagnostics.push(`${f.name}: ${f.value} round trips, over the store's design of ${MAX_ROUND_TRIPS}.`);
    return { figures, diagnostics };
  } finally {
    await cleanup.run();
  }
}

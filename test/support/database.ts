/**
 * A throwaway fund database for tests, reached exactly as the Worker reaches one: `@neondatabase/serverless`
 * over WebSocket through the project's proxy (`scripts/pg-ws-proxy.ts`).
 *
 * The server is the PostgreSQL on 127.0.0.1:5432 when it answers (a database of its own per call, dropped
 * afterwards); otherwise an embedded Postgres (`@electric-sql/pglite`, served on a loopback port by
 * `@electric-sql/pglite-socket`), so the SQL path never skips. `FUND_EDGE_TEST_PGLITE=1` forces the latter.
 */
import { connect as tcpConnect } from 'node:net';
import { openDatabase, type Database } from '../../operator/db/session.ts';
import { migrate } from '../../operator/db/migrate.ts';
import { seedFund } from '../../operator/db/seed.ts';
import { generateFund } from '../../lib/fund/synthetic.ts';
import { fundSpec, loadMigrations } from '../../scripts/db.ts';
import { startPgWsProxy, type PgWsProxy } from '../../scripts/pg-ws-proxy.ts';

/** A test database and the proxy in front of it. */
export interface TestDatabase {
  /** `postgres` (the local server) or `pglite` (embedded). */
  kind: 'postgres' | 'pglite';
  url: string;
  proxy: PgWsProxy;
  /** A connection (one per call; release it). */
  open(timeoutMs?: number): Database;
  /** Restarts a stopped proxy on the same port (after `proxy.close()`). */
  restartProxy(): Promise<void>;
  /** Drops the database and stops everything. */
  dispose(): Promise<void>;
}

const LOCAL = { host: '127.0.0.1', port: 5432 };

function answers(target: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(target);
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function run(url: string, wsProxy: string, sql: string): Promise<void> {
  const db = openDatabase({ url, wsProxy, timeoutMs: 30_000 });
  try {
    await db.query(sql);
  } finally {
    await db.release();
  }
}

/** Creates an empty database (no schema). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const user = process.env.PGUSER ?? 'postgres';
  if (process.env.FUND_EDGE_TEST_PGLITE !== '1' && (await answers(LOCAL))) {
    const proxy = await startPgWsProxy({ target: LOCAL });
    const name = `fund_edge_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const admin = `postgres://${user}@127.0.0.1:5432/postgres`;
    await run(admin, proxy.wsProxy, `CREATE DATABASE ${name}`);
    return behindProxy('postgres', `postgres://${user}@127.0.0.1:5432/${name}`, LOCAL, proxy, async () => {
      const fresh = await startPgWsProxy({ target: LOCAL });
      try {
        await run(admin, fresh.wsProxy, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await fresh.close();
      }
    });
  }

  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const pglite = await PGlite.create();
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const target = { host: '127.0.0.1', port: Number(/:(\d+)$/.exec(server.getServerConn())![1]) };
  const proxy = await startPgWsProxy({ target });
  return behindProxy('pglite', `postgres://postgres@127.0.0.1:${target.port}/postgres`, target, proxy, async () => {
    await server.stop();
    await pglite.close();
  });
}

/** A {@link TestDatabase} at `url`, reached through `proxy` (to `target`); `cleanup` runs after the proxy stops. */
function behindProxy(
  kind: TestDatabase['kind'],
  url: string,
  target: { host: string; port: number },
  proxy: PgWsProxy,
  cleanup: () => Promise<void>,
): TestDatabase {
  const port = proxy.port;
  const self: TestDatabase = {
    kind,
    url,
    proxy,
    open: (timeoutMs) => openDatabase({ url, wsProxy: self.proxy.wsProxy, timeoutMs: timeoutMs ?? 30_000 }),
    async restartProxy() {
      self.proxy = await startPgWsProxy({ target, port });
    },
    async dispose() {
      await self.proxy.close();
      await cleanup();
    },
  };
  return self;
}

/** Applies the migrations and seeds the given funds (synthetic, by id, as `npm run db:seed` does). */
export async function migrateAndSeed(database: TestDatabase, fundIds: readonly string[]): Promise<void> {
  const db = database.open();
  try {
    await migrate(db, loadMigrations());
    for (const id of fundIds) await seedFund(db, generateFund(fundSpec(id)));
  } finally {
    await db.release();
  }
}

/** Runs one statement on a connection of its own and returns its rows. */
export async function sql<T = Record<string, unknown>>(database: TestDatabase, text: string, params: unknown[] = []): Promise<T[]> {
  const db = database.open();
  try {
    return (await db.query<T & Record<string, unknown>>(text, params)).rows;
  } finally {
    await db.release();
  }
}

/**
 * The bindings that make a test Worker read fund `fundId` from `database` (through its proxy), with a fixed
 * investor-pseudonym key, as plain-text variables for `startWorker`.
 */
export function databaseBindings(database: TestDatabase, fundId: string): Record<string, { type: 'plain_text'; value: string }> {
  const text = (value: string) => ({ type: 'plain_text' as const, value });
  return {
    FUND_ID: text(fundId),
    DATABASE_URL: text(database.url),
    DATABASE_WS_PROXY: text(database.proxy.wsProxy),
    INVESTOR_REF_KEY: text('test-investor-ref-key-0123456789'),
  };
}

/**
 * Resolves once a statement of the database waits on a lock (PostgreSQL only: `pg_stat_activity`; PGlite
 * has no view of other sessions).
 * @throws {Error} when none does within 10 s
 */
export async function someoneWaitsOnALock(database: TestDatabase): Promise<void> {
  const watch = database.open();
  try {
    for (const deadline = performance.now() + 10_000; ; ) {
      const { rows } = await watch.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0]!.n > 0) return;
      if (performance.now() > deadline) throw new Error('No statement waited on a lock within 10 s.');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await watch.release();
  }
}

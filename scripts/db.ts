/**
 * `npm run db:migrate` and `npm run db:seed -- --fund <id>`: the fund database's schema and data.
 *
 *   migrate                 applies db/migrations/*.sql not yet applied (a no-op when all are)
 *   seed --fund <id>        writes a synthetic fund, replacing that fund's rows: `sample-fund` and
 *                           `demo-fund` are the embedded store's own funds (the same generator, so the
 *                           same figures); any other id gets the sample fund's parameters under that id
 *
 * The database is `DATABASE_URL` (environment, else `.dev.vars`). It is reached with
 * `@neondatabase/serverless`, as the Worker reaches it; a loopback PostgreSQL gets the project's WebSocket
 * proxy (`scripts/pg-ws-proxy.ts`) started in-process for the duration of the command.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase, type Database } from '../operator/db/session.ts';
import { migrate, migrationsFrom, type Migration } from '../operator/db/migrate.ts';
import { seedFund } from '../operator/db/seed.ts';
import { DEMO_FUND, SAMPLE_FUND, generateFund, type SyntheticFundSpec } from '../lib/fund/synthetic.ts';
import { isLoopback, localDatabaseUrl, postgresTarget, startPgWsProxy, type PgWsProxy } from './pg-ws-proxy.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The migrations of `db/migrations/`, in order. */
export function loadMigrations(dir = join(root, 'db', 'migrations')): Migration[] {
  return migrationsFrom(
    readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .map((file) => ({ file, sql: readFileSync(join(dir, file), 'utf8') })),
  );
}

/** The synthetic fund spec of an id (see the header). */
export function fundSpec(fundId: string): SyntheticFundSpec {
  const known = [SAMPLE_FUND, DEMO_FUND].find((s) => s.fundId === fundId);
  return known ?? { ...SAMPLE_FUND, fundId, name: `${fundId} (synthetic)` };
}

/** A connection to `url` for a command, with the local proxy when the host is loopback. */
export async function connect(url: string, timeoutMs = 120_000): Promise<{ db: Database; close(): Promise<void> }> {
  const target = postgresTarget(url);
  let proxy: PgWsProxy | undefined;
  if (isLoopback(target.host) && !process.env.DATABASE_WS_PROXY) proxy = await startPgWsProxy({ target });
  const db = openDatabase({ url, wsProxy: proxy?.wsProxy ?? process.env.DATABASE_WS_PROXY, timeoutMs });
  return {
    db,
    async close() {
      await db.release();
      await proxy?.close();
    },
  };
}

const usage = `Usage:
  npm run db:migrate
  npm run db:seed -- --fund <id>
DATABASE_URL comes from the environment or .dev.vars, e.g. postgres://postgres@127.0.0.1:5432/fund_edge`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { fund: { type: 'string' } } });
  const [command] = positionals;
  const url = localDatabaseUrl(root);
  if (!url || (command !== 'migrate' && command !== 'seed') || (command === 'seed' && !values.fund)) {
    console.error(url ? usage : `DATABASE_URL is not set.\n${usage}`);
    return 2;
  }
  const { db, close } = await connect(url);
  try {
    if (command === 'migrate') {
      const report = await migrate(db, loadMigrations());
      for (const m of report.applied) console.log(`applied ${m}`);
      console.log(
        report.applied.length ? `${report.applied.length} applied` : `up to date (${report.alreadyApplied.length} applied before)`,
      );
    } else {
      const spec = fundSpec(values.fund!);
      const report = await seedFund(db, generateFund(spec));
      console.log(
        `seeded ${spec.fundId}: ${Object.entries(report)
          .map(([t, n]) => `${t} ${n}`)
          .join(', ')}`,
      );
    }
    return 0;
  } finally {
    await close();
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      console.error(`${err instanceof Error ? err.message : String(err)}${cause}`);
      process.exit(1);
    },
  );
}

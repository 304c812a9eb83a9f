/**
 * Schema migrations (`operator/db/migrate.ts`, `db/migrations/*.sql`, `loadMigrations` of scripts/db.ts) and
 * seeding (`operator/db/seed.ts`) on a fresh, empty test database (test/support/database.ts: the local
 * PostgreSQL, or embedded PGlite with `FUND_EDGE_TEST_PGLITE=1`).
 *
 * Covers:
 * - the first `migrate` applies every file, in version order, and records each (version, name, SHA-256);
 * - the schema it builds: the fund tables and the derived ones, money and quantity columns as NUMERIC without a fixed
 *   precision or scale (no float column anywhere), the two secondary indexes, and the investors' personal
 *   data in the investors table only;
 * - the table descriptors of `lib/fund/tables.ts` match the migrated columns (names, types, nullability);
 * - a second `migrate` is a no-op; a migration whose text changed after it was applied is refused, with
 *   nothing applied and the session left clean (no open transaction, no advisory lock);
 * - two migrators at once (PostgreSQL only: PGlite is one session, see the tests);
 * - `migrationsFrom` (names, duplicate versions, order), `loadMigrations` (only `.sql` files), `checksum`;
 * - seeding a fund twice leaves the same rows (replace, not append) and leaves other funds alone; NUMERIC
 *   values read back with the scale they were written with.
 *
 * Two cases hold bugs these tests found and that are fixed: a changed migration was refused only after
 * earlier new ones were applied, and the bootstrap of `schema_migrations` raced between migrators.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../lib/db/sql.ts';
import { MIGRATION_LOCK, checksum, migrate, migrationsFrom, type Migration, type MigrationReport } from '../../operator/db/migrate.ts';
import { seedFund, type SeedReport } from '../../operator/db/seed.ts';
import { DEMO_FUND, SAMPLE_FUND, generateFund } from '../../lib/fund/synthetic.ts';
import { VAR_WINDOW } from '../../lib/fund/analytics/var.ts';
import { DERIVED_TABLES, FUND_KEY, TABLES as FUND_TABLES, type Table } from '../../lib/fund/tables.ts';
import { fundSpec, loadMigrations } from '../../scripts/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', 'db', 'migrations');
const MIGRATIONS = loadMigrations();
const LABELS = MIGRATIONS.map((m) => `${m.version} ${m.name}`);

/** The tables of the fund schema, and the migrator's own. */
const DATA_TABLES = [
  'accounts',
  'asset_closes',
  'capital_accounts',
  'expenses',
  'fee_terms',
  'fund_versions',
  'funds',
  'identity_sets',
  'investors',
  'ledger_balances',
  'ledger_lines',
  'nav_runs',
  'position_sums',
  'positions',
  'prices',
  'share_classes',
  'var_moments',
];
const TABLES = [...DATA_TABLES, 'schema_migrations'].sort();
/** Derived tables of arrays and compiled text, which no table descriptor describes (no request selects them as rows). */
const ARRAY_TABLES = ['asset_closes', 'identity_sets', 'var_moments'];

/** Money, quantities, prices and rates: every one NUMERIC. */
const NUMERIC_COLUMNS: Record<string, string[]> = {
  funds: ['aum_target', 'recon_tolerance_bps'],
  fee_terms: ['mgmt_fee_pct', 'perf_fee_pct', 'hurdle_pct'],
  nav_runs: ['shadow_nav', 'admin_nav', 'net_flows'],
  positions: ['quantity', 'price', 'market_value'],
  prices: ['price'],
  ledger_lines: ['debit', 'credit'],
  ledger_balances: ['debit', 'credit'],
  position_sums: ['market_value'],
  capital_accounts: ['capital', 'contributions', 'withdrawals', 'pnl_allocation', 'mgmt_fee', 'perf_fee'],
  expenses: ['amount'],
};

const PII_COLUMNS = ['bank_account', 'email', 'legal_name', 'tax_id'];

let database: TestDatabase;
let tablesBefore: string[];
let first: MigrationReport;

beforeAll(async () => {
  database = await createTestDatabase();
  tablesBefore = await withDb(tables);
  first = await withDb((db) => migrate(db, MIGRATIONS));
}, 120_000);

afterAll(async () => {
  await database?.dispose();
});

/** Runs `f` on a connection of its own, released afterwards. */
async function withDb<T>(f: (db: Database) => Promise<T>, on: TestDatabase = database): Promise<T> {
  const db = on.open();
  try {
    return await f(db);
  } finally {
    await db.release();
  }
}

async function tables(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  return rows.map((r) => r.name).sort();
}

interface Recorded {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

async function recorded(db: Database): Promise<Recorded[]> {
  const { rows } = await db.query<Recorded>(
    'SELECT version, name, checksum, applied_at::text AS applied_at FROM schema_migrations ORDER BY version',
  );
  return rows;
}

/** Rows of each data table held for a fund. */
async function rowCounts(db: Database, fundId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of DATA_TABLES) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE fund_id = $1`, [fundId]);
    counts[table] = rows[0]!.n;
  }
  return counts;
}

/** Asserts the session is outside any transaction and holds no advisory lock (what `migrate` leaves behind). */
async function expectCleanSession(db: Database): Promise<void> {
  const { rows } = await db.query<{ outside: boolean; advisory: number }>(
    `SELECT now() = statement_timestamp() AS outside,
            (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory`,
  );
  expect(rows[0]).toEqual({ outside: true, advisory: 0 });
}

/** Resolves once `n` sessions of the database wait on a lock (PostgreSQL's `pg_stat_activity`). */
async function waitingOnLocks(on: TestDatabase, n: number): Promise<void> {
  await withDb(async (watch) => {
    await vi.waitFor(
      async () => {
        const { rows } = await watch.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        expect(rows[0]!.n).toBe(n);
      },
      { timeout: 10_000, interval: 25 },
    );
  }, on);
}

describe('the first migrate, on an empty database', () => {
  it('starts from no tables at all', () => {
    expect(tablesBefore).toEqual([]);
  });

  it('applies every file of db/migrations, in version order, and records each with its checksum', async () => {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    expect(LABELS).toEqual(files.map((f) => `${Number(f.slice(0, 4))} ${f.slice(5, -4)}`));
    expect(first).toEqual({ applied: LABELS, alreadyApplied: [] });

    const rows = await withDb(recorded);
    expect(rows.map((r) => ({ version: r.version, name: r.name, checksum: r.checksum }))).toEqual(
      await Promise.all(MIGRATIONS.map(async (m) => ({ version: m.version, name: m.name, checksum: await checksum(m.sql) }))),
    );
  });

  it('creates the fund tables and schema_migrations, and nothing else', async () => {
    expect(await withDb(tables)).toEqual(TABLES);
  });

  it('stores money, quantities, prices and rates as NUMERIC without a fixed precision or scale', async () => {
    const { rows } = await withDb((db) =>
      db.query<{
        table_name: string;
        column_name: string;
        data_type: string;
        numeric_precision: number | null;
        numeric_scale: number | null;
      }>(
        `SELECT table_name::text, column_name::text, data_type::text, numeric_precision, numeric_scale
           FROM information_schema.columns WHERE table_schema = current_schema() AND data_type = 'numeric'`,
      ),
    );
    const numeric = rows.map((r) => `${r.table_name}.${r.column_name}`).sort();
    expect(numeric).toEqual(
      Object.entries(NUMERIC_COLUMNS)
        .flatMap(([t, cs]) => cs.map((c) => `${t}.${c}`))
        .sort(),
    );
    for (const r of rows) expect([r.numeric_precision, r.numeric_scale], `${r.table_name}.${r.column_name}`).toEqual([null, null]);
  });

  it('has no floating-point or money-typed column anywhere', async () => {
    const { rows } = await withDb((db) =>
      db.query<{ c: string }>(
        `SELECT table_name || '.' || column_name AS c FROM information_schema.columns
          WHERE table_schema = current_schema() AND data_type IN ('real', 'double precision', 'money')`,
      ),
    );
    expect(rows).toEqual([]);
  });

  it('creates the secondary indexes on their tables', async () => {
    const { rows } = await withDb((db) =>
      db.query<{ indexname: string; tablename: string; indexdef: string }>(
        `SELECT indexname::text, tablename::text, indexdef FROM pg_indexes
          WHERE schemaname = current_schema() AND indexname IN ('ledger_lines_by_date', 'expenses_newest_first') ORDER BY indexname`,
      ),
    );
    expect(rows.map((r) => [r.indexname, r.tablename])).toEqual([
      ['expenses_newest_first', 'expenses'],
      ['ledger_lines_by_date', 'ledger_lines'],
    ]);
    expect(rows[0]!.indexdef).toContain('(fund_id, expense_date DESC, expense_id DESC)');
    expect(rows[1]!.indexdef).toContain('(fund_id, entry_date, entry_id, line_no)');
  });

  it("keeps the investors' personal data (legal_name, email, tax_id, bank_account) in the investors table only", async () => {
    const { rows } = await withDb((db) =>
      db.query<{ table_name: string; column_name: string }>(
        `SELECT table_name::text, column_name::text FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = ANY($1::text[]) ORDER BY column_name`,
        [PII_COLUMNS],
      ),
    );
    expect(rows).toEqual(PII_COLUMNS.map((column_name) => ({ table_name: 'investors', column_name })));
  });
});

describe('the table descriptors of lib/fund/tables.ts', () => {
  // Every column the service selects or seeds is named once, in a descriptor; here the descriptors are held to
  // the migrated schema: same tables, same columns (fund_id besides), same SQL types and nullability.
  it('name exactly the columns of each fund table, with their SQL types and nullability', async () => {
    const { rows } = await withDb((db) =>
      db.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
        `SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name <> ALL(ARRAY['schema_migrations', ${ARRAY_TABLES.map((t) => `'${t}'`).join(', ')}])`,
      ),
    );
    const migrated = rows.map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === 'YES' ? ' null' : ''}`).sort();
    const described = [...FUND_TABLES, ...DERIVED_TABLES]
      .flatMap((t) => {
        const columns = Object.values({ ...t.columns, ...(t as Table).unselected });
        const key = columns.some((c) => c.column === FUND_KEY) ? [] : [`${t.table}.${FUND_KEY} text`];
        return [...key, ...columns.map((c) => `${t.table}.${c.column} ${c.type}${c.nullable ? ' null' : ''}`)];
      })
      .sort();
    expect(described.length).toBeGreaterThan(DATA_TABLES.length);
    expect(migrated).toEqual(described);
    expect([...FUND_TABLES, ...DERIVED_TABLES].map((t) => t.table).sort()).toEqual(DATA_TABLES.filter((t) => !ARRAY_TABLES.includes(t)));
  });
});

describe('migrate again', () => {
  it('is a no-op: nothing applied, every migration reported as applied before, the records untouched', async () => {
    await withDb(async (db) => {
      const before = await recorded(db);
      expect(await migrate(db, MIGRATIONS)).toEqual({ applied: [], alreadyApplied: LABELS });
      expect(await recorded(db)).toEqual(before);
      expect(await tables(db)).toEqual(TABLES);
      await expectCleanSession(db);
    });
  });

  it('refuses a migration whose text changed after it was applied; applies nothing after it; leaves the session clean', async () => {
    const [m1] = MIGRATIONS;
    const edited: Migration = { ...m1!, sql: `${m1!.sql}\n-- edited after it was applied\n` };
    const later: Migration = { version: 9001, name: 'after_the_edit', sql: 'CREATE TABLE after_the_edit_marker (x integer)' };
    await withDb(async (db) => {
      const before = await recorded(db);
      await expect(migrate(db, [edited, ...MIGRATIONS.slice(1), later])).rejects.toThrow(
        new Error(`Migration ${m1!.version} (${m1!.name}) was applied with different text; add a new migration instead of editing it.`),
      );
      expect(await recorded(db)).toEqual(before);
      expect(await tables(db)).toEqual(TABLES);
      await expectCleanSession(db);
    });
  });

  // A changed migration is refused with nothing applied, even a new migration ordered before the edited
  // one (a branch merged late: 2 is new, 3 was applied and has since been edited).
  it('refuses before applying anything, even a new migration ordered before the edited one', async () => {
    const v2: Migration = { version: 9002, name: 'merged_late', sql: 'CREATE TABLE merged_late_marker (x integer)' };
    const v3: Migration = { version: 9003, name: 'applied_then_edited', sql: 'CREATE TABLE applied_then_edited_marker (x integer)' };
    await withDb(async (db) => {
      try {
        expect(await migrate(db, [...MIGRATIONS, v3])).toEqual({ applied: ['9003 applied_then_edited'], alreadyApplied: LABELS });
        const before = await recorded(db);
        await expect(migrate(db, [...MIGRATIONS, v2, { ...v3, sql: `${v3.sql} -- edited` }])).rejects.toThrow(
          /was applied with different text/,
        );
        expect(await recorded(db)).toEqual(before);
        expect(await tables(db)).not.toContain('merged_late_marker');
      } finally {
        await db.query('DROP TABLE IF EXISTS merged_late_marker, applied_then_edited_marker');
        await db.query('DELETE FROM schema_migrations WHERE version IN (9002, 9003)');
      }
    });
  });
});

describe('two migrators at once', () => {
  // PostgreSQL only: PGlite is a single session, and pglite-socket runs one connection's transaction to its
  // end before any other connection's statement, so migrators there never overlap.
  it('are kept apart by the advisory lock: one applies, the other finds everything applied', async (ctx) => {
    if (database.kind === 'pglite') ctx.skip();
    const fresh = await createTestDatabase();
    try {
      await withDb((db) => migrate(db, []), fresh); // schema_migrations only
      const holder = fresh.open();
      const a = fresh.open();
      const b = fresh.open();
      try {
        // Both migrators start while a third session holds schema_migrations: they queue up on it (or on the
        // advisory lock behind each other), then go through one at a time once it lets go.
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
        const both = Promise.all([migrate(a, MIGRATIONS), migrate(b, MIGRATIONS)]);
        await waitingOnLocks(fresh, 2);
        await holder.query('ROLLBACK');
        const reports = await both;
        expect(reports.map((r) => r.applied.length).sort()).toEqual([0, LABELS.length]);
        expect(reports.find((r) => r.applied.length > 0)).toEqual({ applied: LABELS, alreadyApplied: [] });
        expect(reports.find((r) => r.applied.length === 0)).toEqual({ applied: [], alreadyApplied: LABELS });
        expect(await tables(a)).toEqual(TABLES);
      } finally {
        await Promise.all([holder.release(), a.release(), b.release()]);
      }
    } finally {
      await fresh.dispose();
    }
  });

  // Two migrators starting together on an empty database would race on `CREATE TABLE IF NOT EXISTS
  // schema_migrations` (23505 in pg_type, which IF NOT EXISTS does not cover) unless the bootstrap runs
  // under the lock. Here the other migrator is held inside its bootstrap (lock taken, the table created,
  // not yet committed), so the race is deterministic.
  it('a migrator that starts while another creates schema_migrations waits for it instead of failing', async (ctx) => {
    if (database.kind === 'pglite') ctx.skip();
    const fresh = await createTestDatabase();
    try {
      const other = fresh.open();
      const db = fresh.open();
      try {
        await other.query('BEGIN');
        await other.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
        await other.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        const mine = migrate(db, MIGRATIONS).then(
          (report) => ({ report }),
          (err: unknown) => ({ err }),
        );
        await waitingOnLocks(fresh, 1);
        await other.query('COMMIT');
        const outcome = await mine;
        if ('err' in outcome) throw new Error(`migrate failed: ${String((outcome.err as Error).cause ?? outcome.err)}`);
        expect(outcome.report).toEqual({ applied: LABELS, alreadyApplied: [] });
      } finally {
        await Promise.all([other.release(), db.release()]);
      }
    } finally {
      await fresh.dispose();
    }
  });
});

describe('migrationsFrom, loadMigrations and checksum', () => {
  it.each([
    ['1_fund_schema.sql'],
    ['00001_fund_schema.sql'],
    ['0001-fund_schema.sql'],
    ['0001_Fund_Schema.sql'],
    ['0001_fund-schema.sql'],
    ['0001_.sql'],
    ['0001_fund_schema.SQL'],
    ['0001_fund_schema.sql.bak'],
    ['fund_schema.sql'],
  ])('rejects the file name %s', (file) => {
    expect(() => migrationsFrom([{ file, sql: 'SELECT 1' }])).toThrow(`Migration file names look like 0001_name.sql: ${file}`);
  });

  it('rejects two files with one version', () => {
    expect(() =>
      migrationsFrom([
        { file: '0002_b.sql', sql: '' },
        { file: '0001_a.sql', sql: '' },
        { file: '0002_c.sql', sql: '' },
      ]),
    ).toThrow('Two migrations have version 2.');
  });

  it('sorts by version (numerically), keeping name and text', () => {
    expect(
      migrationsFrom([
        { file: '0010_ten.sql', sql: 'ten' },
        { file: '0002_two.sql', sql: 'two' },
        { file: '0001_one.sql', sql: 'one' },
      ]),
    ).toEqual([
      { version: 1, name: 'one', sql: 'one' },
      { version: 2, name: 'two', sql: 'two' },
      { version: 10, name: 'ten', sql: 'ten' },
    ]);
  });

  it('loadMigrations reads only the .sql files of a directory, in order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fund-edge-migrations-'));
    try {
      writeFileSync(join(dir, '0002_second.sql'), 'SELECT 2;');
      writeFileSync(join(dir, '0001_first.sql'), 'SELECT 1;');
      writeFileSync(join(dir, 'README.md'), '# not a migration');
      expect(loadMigrations(dir)).toEqual([
        { version: 1, name: 'first', sql: 'SELECT 1;' },
        { version: 2, name: 'second', sql: 'SELECT 2;' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checksum is the hex SHA-256 of the text', async () => {
    expect(await checksum('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await checksum('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await checksum('SELECT 1;')).not.toBe(await checksum('SELECT 1; '));
  });
});

describe('seeding', () => {
  const sample = generateFund(fundSpec(SAMPLE_FUND.fundId));
  const demo = generateFund(fundSpec(DEMO_FUND.fundId));
  let firstSeed: SeedReport;
  let firstCounts: Record<string, number>;

  beforeAll(async () => {
    await withDb(async (db) => {
      firstSeed = await seedFund(db, sample);
      firstCounts = await rowCounts(db, SAMPLE_FUND.fundId);
    });
  }, 120_000);

  it('writes every row of the dataset', () => {
    expect(firstSeed).toEqual({
      funds: 1,
      share_classes: sample.shareClasses.length,
      fee_terms: sample.shareClasses.length,
      nav_runs: sample.runs.length,
      positions: sample.positions.length,
      prices: sample.prices.length,
      accounts: sample.accounts.length,
      ledger_lines: sample.ledger.length,
      investors: sample.investors.length,
      capital_accounts: sample.capital.length,
      expenses: sample.expenses.length,
    });
    // And the derived sums: a running balance per account and date with lines, a sum per run, asset class and
    // sign, and the fund's one row of versions.
    const live = sample.positions.filter((p) => p.book === 'live');
    expect(firstCounts).toEqual({
      ...firstSeed,
      fund_versions: 1,
      // VaR's moments of the latest usable run: both methods, every window 20..1000.
      var_moments: 2 * (VAR_WINDOW.max - VAR_WINDOW.min + 1),
      // The identity set compiled from the investors just written.
      identity_sets: 1,
      asset_closes: new Set(sample.prices.map((p) => p.asset)).size,
      ledger_balances: new Set(sample.ledger.map((l) => `${l.accountCode} ${l.entryDate}`)).size,
      position_sums: new Set(live.map((p) => `${p.navDate} ${p.assetClass} ${p.marketValue.startsWith('-')}`)).size,
    });
  });

  it('seeding the same fund again replaces its rows (same counts) and leaves another fund alone', async () => {
    await withDb(async (db) => {
      await seedFund(db, demo);
      const demoCounts = await rowCounts(db, DEMO_FUND.fundId);
      expect(demoCounts.positions).toBe(demo.positions.length);

      expect(await seedFund(db, sample)).toEqual(firstSeed);
      expect(await rowCounts(db, SAMPLE_FUND.fundId)).toEqual(firstCounts);
      expect(await rowCounts(db, DEMO_FUND.fundId)).toEqual(demoCounts);
      await expectCleanSession(db);
    });
  });

  it('NUMERIC values read back with the scale they were written with', async () => {
    const position =
      sample.positions.find((p) => /\.\d*0$/.test(p.marketValue) && p.quantity.startsWith('-')) ??
      sample.positions.find((p) => /\.\d*0$/.test(p.marketValue))!;
    const capital = sample.capital.find((c) => c.withdrawals === '0.00' && c.capital.endsWith('00'))!;
    await withDb(async (db) => {
      const p = await db.query<{ market_value: string; quantity: string; price: string }>(
        `SELECT market_value::text, quantity::text, price::text FROM positions
          WHERE fund_id = $1 AND nav_date = $2 AND book = $3 AND asset = $4 AND venue = $5`,
        [SAMPLE_FUND.fundId, position.navDate, position.book, position.asset, position.venue],
      );
      expect(p.rows).toEqual([{ market_value: position.marketValue, quantity: position.quantity, price: position.price }]);

      const c = await db.query<{ capital: string; withdrawals: string }>(
        'SELECT capital::text, withdrawals::text FROM capital_accounts WHERE fund_id = $1 AND nav_date = $2 AND investor_id = $3',
        [SAMPLE_FUND.fundId, capital.navDate, capital.investorId],
      );
      expect(c.rows).toEqual([{ capital: capital.capital, withdrawals: '0.00' }]);

      const f = await db.query<{ aum_target: string }>('SELECT aum_target::text FROM funds WHERE fund_id = $1', [SAMPLE_FUND.fundId]);
      expect(f.rows).toEqual([{ aum_target: sample.fund.aumTarget }]);
    });
  });
});

/**
 * A fund's versions (`fund_versions`, db/migrations/0003_fund_versions.sql) when two transactions write the
 * fund at once: a hand-written correction of an investor while an import's transaction holds a new run. The
 * one that commits last must leave versions made from both: a version computed from a snapshot taken before
 * the other committed (the index without the new run) would be kept by every isolate as current.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase, sql } from '../support/database.ts';

const FUND = SAMPLE_FUND.fundId;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND]);
}, 120_000);
afterAll(() => database?.dispose());

/** The first row of a statement on the test database. */
const one = async <R>(text: string, params: unknown[] = []): Promise<R> => (await sql<R>(database, text, params))[0]!;

const stored = () =>
  one<{ v: string }>(`SELECT index_version || ' ' || identity_version AS v FROM fund_versions WHERE fund_id = $1`, [FUND]);

it('are made from both writes when a correction waits for an import of the same fund', async () => {
  const importing = database.open();
  const correcting = database.open();
  try {
    await importing.query('BEGIN');
    await importing.query(`INSERT INTO nav_runs VALUES ($1, '2031-01-02', 'complete', 1, 1, 'matched', 0)`, [FUND]);
    const correction = correcting.query(
      `UPDATE investors SET legal_name = legal_name || ' Jr' WHERE fund_id = $1 AND investor_id = (SELECT min(investor_id) FROM investors WHERE fund_id = $1)`,
      [FUND],
    );
    // The correction's trigger waits for the import's transaction, which holds the fund's versions row.
    for (let i = 0; i < 100; i++) {
      const { n } = await one<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await importing.query('COMMIT');
    await correction;
  } finally {
    await importing.release();
    await correcting.release();
  }
  const after = (await stored()).v;
  await one(`SELECT fund_versions_refresh($1)`, [FUND]);
  expect(after).toBe((await stored()).v);
}, 60_000);

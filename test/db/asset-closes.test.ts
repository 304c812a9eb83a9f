/**
 * VaR's series read from the assets' arrays of closes (`asset_closes`, db/migrations/0002_derived_data.sql):
 * the arrays equal the closes they are made from, after a seed and after closes are restated through
 * `fund_derive`; the Postgres store reads VaR from them when every held asset shares the window's dates
 * (a change to the arrays alone changes its answer), and from the closes themselves otherwise (with the
 * arrays gone, the same answer). Both give the embedded store's answer to the bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestUsableRun } from '../../lib/fund/analytics/runs.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import type { FundReadRequest } from '../../lib/fund/store.ts';
import { SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase, sql as sharedSql } from '../support/database.ts';

const FUND = SAMPLE_FUND.fundId;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND]);
}, 120_000);
afterAll(async () => {
  await database?.dispose();
});

/** A statement on the test database (the shared helper, bound to this file's database). */
const sql = <R>(text: string, params: unknown[] = []): Promise<R[]> => sharedSql<R>(database, text, params);

/** Rows of `asset_closes` that differ from the arrays made afresh from `prices`. */
const mismatches = async () =>
  (
    await sql<{ n: number }>(
      `WITH made AS (SELECT asset, array_agg(price_date ORDER BY price_date) AS dates, array_agg(price::float8 ORDER BY price_date) AS closes
         FROM prices WHERE fund_id = $1 GROUP BY asset),
       stored AS (SELECT asset, dates, closes FROM asset_closes WHERE fund_id = $1)
       SELECT count(*)::int AS n FROM ((TABLE made EXCEPT TABLE stored) UNION ALL (TABLE stored EXCEPT TABLE made)) x`,
      [FUND],
    )
  )[0]!.n;

async function varRequests(): Promise<FundReadRequest[]> {
  const index = (await embeddedStore([SAMPLE_FUND]).index(FUND))!;
  const run = latestUsableRun(index.runs);
  return [20, 250].map((returns) => ({ varMoments: { heldAt: run.navDate, through: run.navDate, returns, method: 'sample' as const } }));
}

async function moments(request: FundReadRequest) {
  const db = database.open();
  try {
    return (await postgresStore(db).read(FUND, request)).varMoments;
  } finally {
    await db.release();
  }
}

describe('the assets’ arrays of closes', () => {
  it('equal the closes they are made from, after a seed and after a restated close', async () => {
    expect(await mismatches()).toBe(0);
    const [one] = await sql<{ asset: string; d: string }>(
      `SELECT asset, to_char(max(price_date), 'YYYY-MM-DD') AS d FROM prices WHERE fund_id = $1 GROUP BY asset ORDER BY asset LIMIT 1`,
      [FUND],
    );
    await sql(`UPDATE prices SET price = price * 2 WHERE fund_id = $1 AND asset = $2 AND price_date = $3`, [FUND, one!.asset, one!.d]);
    expect(await mismatches()).toBe(2); // its row as stored and as made
    await sql(`SELECT fund_derive($1, $2::date)`, [FUND, one!.d]);
    expect(await mismatches()).toBe(0);
    await sql(`UPDATE prices SET price = price / 2 WHERE fund_id = $1 AND asset = $2 AND price_date = $3`, [FUND, one!.asset, one!.d]);
    await sql(`SELECT fund_derive($1, $2::date)`, [FUND, one!.d]);
    expect(await mismatches()).toBe(0);
  });

  it('serve VaR when the held assets share the dates, and the closes do when the arrays are not there: the embedded answer either way', async () => {
    const embedded = embeddedStore([SAMPLE_FUND]);
    // Without the moments the seed stored (db/migrations/0004_var_moments.sql), which a request reads first.
    await sql(`DELETE FROM var_moments WHERE fund_id = $1`, [FUND]);
    for (const request of await varRequests()) {
      const expected = (await embedded.read(FUND, request)).varMoments;
      expect(await moments(request)).toEqual(expected);
      // The arrays alone changed: the answer changes, so it was read from them.
      await sql(
        `UPDATE asset_closes SET closes = (SELECT array_agg(c * (1 + 0.01 * (i % 7)) ORDER BY i) FROM unnest(closes) WITH ORDINALITY u (c, i)) WHERE fund_id = $1`,
        [FUND],
      );
      expect(await moments(request)).not.toEqual(expected);
      // No arrays: read from the closes, the same answer.
      await sql(`DELETE FROM asset_closes WHERE fund_id = $1`, [FUND]);
      expect(await moments(request)).toEqual(expected);
      await sql(`SELECT fund_derive($1, NULL)`, [FUND]);
      expect(await mismatches()).toBe(0);
    }
  });
});

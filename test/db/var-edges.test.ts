/**
 * VaR's moments in the Postgres store against the analytics the embedded store runs (`varMoments`), on a
 * hand-written fund whose closes have the shapes a real price file has: a held asset with no close at all,
 * a held asset without a close on the run's date, an asset whose closes stop and start again, and closes
 * restated in the middle of history and then appended to (the assets' arrays made by `fund_derive` each time).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../lib/fund/analytics/runs.ts';
import { varMoments } from '../../lib/fund/analytics/var.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import type { PositionRow, PriceRow } from '../../lib/fund/rows.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase, sql as sharedSql } from '../support/database.ts';

const NAV_DATE = '2026-03-31';
const DAYS = Array.from({ length: 60 }, (_, i) => addDays(NAV_DATE, i - 59));
const close = (k: number, i: number) => (100 + k * 7 + 3 * Math.sin(i * (1.3 + k)) + i / 10).toFixed(4);
const position = (asset: string, marketValue: string): PositionRow => ({
  navDate: NAV_DATE,
  asset,
  assetClass: 'crypto',
  sourceType: 'exchange',
  venue: 'X',
  book: 'live',
  quantity: '1',
  price: marketValue,
  marketValue,
});
const pricesOf = (asset: string, k: number, priced: (i: number) => boolean): PriceRow[] =>
  DAYS.flatMap((priceDate, i) => (priced(i) ? [{ asset, priceDate, price: close(k, i) }] : []));
const BASE = [...pricesOf('AAA', 0, () => true), ...pricesOf('BBB', 1, () => true)];

/** Each fund: its positions on the run's date and its closes. */
const FUNDS: Record<string, { positions: PositionRow[]; prices: PriceRow[] }> = {
  // DDD is held but has never had a close: no return can be computed for the portfolio.
  'no-closes': { positions: [position('AAA', '1000.00'), position('DDD', '500.00')], prices: BASE },
  // BBB has no close on the run's date.
  'gap-on-date': {
    positions: [position('AAA', '1000.00'), position('BBB', '-400.00')],
    prices: [...pricesOf('AAA', 0, () => true), ...pricesOf('BBB', 1, (i) => i !== DAYS.length - 1)],
  },
  // BBB's closes stop for ten days (it was not held) and start again.
  'held-again': {
    positions: [position('AAA', '1000.00'), position('BBB', '-400.00')],
    prices: [...pricesOf('AAA', 0, () => true), ...pricesOf('BBB', 1, (i) => i < 30 || i >= 40)],
  },
  'restated-then-appended': { positions: [position('AAA', '1000.00'), position('BBB', '-400.00')], prices: BASE },
};

let database: TestDatabase;
/** A statement on the test database (the shared helper, bound to this file's database). */
const sql = <R>(text: string, params: unknown[] = []): Promise<R[]> => sharedSql<R>(database, text, params);

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, []);
  for (const [fundId, { positions, prices }] of Object.entries(FUNDS)) {
    await sql(`INSERT INTO funds VALUES ($1, 'Edge fund', 'USD', '2025-01-01', 0, 5)`, [fundId]);
    await sql(`INSERT INTO nav_runs VALUES ($1, $2, 'complete', 1000, 1000, 'matched', 0)`, [fundId, NAV_DATE]);
    for (const p of positions)
      await sql(
        `INSERT INTO positions (fund_id, nav_date, book, asset, venue, asset_class, source_type, quantity, price, market_value)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [fundId, p.navDate, p.book, p.asset, p.venue, p.assetClass, p.sourceType, p.quantity, p.price, p.marketValue],
      );
    await sql(
      `INSERT INTO prices (fund_id, asset, price_date, price) SELECT $1, a, d, p FROM unnest($2::text[], $3::date[], $4::numeric[]) AS t(a, d, p)`,
      [fundId, prices.map((p) => p.asset), prices.map((p) => p.priceDate), prices.map((p) => p.price)],
    );
    await sql(`SELECT fund_derive($1, NULL)`, [fundId]);
  }
}, 120_000);
afterAll(() => database?.dispose());

async function postgresMoments(fundId: string, returns: number, through = NAV_DATE) {
  const db = database.open();
  try {
    const request = { varMoments: { heldAt: NAV_DATE, through, returns, method: 'sample' as const } };
    return (await postgresStore(db).read(fundId, request)).varMoments;
  } finally {
    await db.release();
  }
}

const embeddedMoments = (fundId: string, returns: number, prices = FUNDS[fundId]!.prices) =>
  varMoments(NAV_DATE, FUNDS[fundId]!.positions, prices, returns, 'sample');

describe('VaR moments: the Postgres store gives the embedded answer', () => {
  for (const fundId of ['no-closes', 'gap-on-date', 'held-again']) {
    it(fundId, async () => {
      for (const returns of [20, 40, 1000]) expect(await postgresMoments(fundId, returns)).toEqual(embeddedMoments(fundId, returns));
    });
  }

  it('after closes restated in the middle of history, then an appended day', async () => {
    const fundId = 'restated-then-appended';
    const middle = DAYS[25]!;
    await sql(`UPDATE prices SET price = price * 1.5 WHERE fund_id = $1 AND price_date = $2`, [fundId, middle]);
    await sql(`SELECT fund_derive($1, $2::date)`, [fundId, middle]);
    const next = addDays(NAV_DATE, 1);
    await sql(`INSERT INTO prices (fund_id, asset, price_date, price) VALUES ($1, 'AAA', $2, 111), ($1, 'BBB', $2, 99)`, [fundId, next]);
    await sql(`SELECT fund_derive($1, $2::date)`, [fundId, next]);
    const prices = BASE.map((p) => (p.priceDate === middle ? { ...p, price: String(Number(p.price) * 1.5) } : p));
    for (const returns of [20, 40]) expect(await postgresMoments(fundId, returns)).toEqual(embeddedMoments(fundId, returns, prices));
  });
});

/**
 * VaR's window counts daily returns, not calendar days: on a fund whose prices skip weekends (every equity
 * or bond book, most administrators' price files), `windowDays = 20` uses exactly the last 20 returns on the
 * dates every held asset has a close. Both stores make that selection: the embedded store with
 * `completeCloses` (lib/fund/store.ts), tested here on the same calendar, and the Postgres store in SQL,
 * tested on a hand-written fund in a real database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFundTool } from '../../lib/fund/definition.ts';
import { addDays } from '../../lib/fund/analytics/runs.ts';
import { valueAtRisk } from '../../lib/fund/analytics/var.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import type { PositionRow, PriceRow } from '../../lib/fund/rows.ts';
import { completeCloses, guardedStore } from '../../lib/fund/store.ts';
import { valueAtRiskTool } from '../../lib/fund/tools/risk-var.ts';
import type { Database } from '../../lib/db/sql.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';

const FUND_ID = 'weekday-fund';
const MONDAY_FUND_ID = 'monday-fund';
const NAV_DATE = '2026-03-31'; // a Tuesday
/** 400 calendar days back from the run: AAA prices on weekdays, BBB also on Saturdays, CCC on Mondays only. */
const DAYS = Array.from({ length: 400 }, (_, i) => addDays(NAV_DATE, i - 399));
const dayOf = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const weekday = (date: string) => ![0, 6].includes(dayOf(date));
const CALENDARS: Record<string, (date: string) => boolean> = {
  AAA: weekday,
  BBB: (date) => weekday(date) || dayOf(date) === 6,
  CCC: (date) => dayOf(date) === 1,
};
const close = (k: number, i: number) => (100 + k * 7 + 3 * Math.sin(i * (1.3 + k)) + i / 10).toFixed(4);
const PRICES: PriceRow[] = Object.entries(CALENDARS).flatMap(([asset, priced], k) =>
  DAYS.flatMap((priceDate, i) => (priced(priceDate) ? [{ asset, priceDate, price: close(k, i) }] : [])),
);
const POSITIONS: PositionRow[] = [
  {
    navDate: NAV_DATE,
    asset: 'AAA',
    assetClass: 'crypto',
    sourceType: 'exchange',
    venue: 'X',
    book: 'live',
    quantity: '1000',
    price: '100',
    marketValue: '100000.00',
  },
  {
    navDate: NAV_DATE,
    asset: 'BBB',
    assetClass: 'perpetual',
    sourceType: 'exchange',
    venue: 'X',
    book: 'live',
    quantity: '-500',
    price: '100',
    marketValue: '-50000.00',
  },
  // Cash has no prices: it must not take the dates away from the risky assets.
  {
    navDate: NAV_DATE,
    asset: 'USDC',
    assetClass: 'stablecoin',
    sourceType: 'custodian',
    venue: 'C',
    book: 'live',
    quantity: '25000',
    price: '1',
    marketValue: '25000.00',
  },
];
const RUN = {
  navDate: NAV_DATE,
  status: 'complete',
  shadowNav: '75000.00',
  adminNav: '75000.00',
  reconStatus: 'matched',
  netFlows: '0.00',
} as const;
/** The second fund: AAA long, CCC (Mondays only) short, so that few of AAA's newest closes are common dates. */
const MONDAY_POSITIONS = POSITIONS.map((p) => (p.asset === 'BBB' ? { ...p, asset: 'CCC' } : p));
/** The weekdays (AAA's and BBB's common dates), oldest first. */
const COMMON = DAYS.filter(weekday);
const MONDAYS = DAYS.filter((d) => dayOf(d) === 1);

/** VaR over exactly the last `n` returns of `common`, from the analytics alone. */
function expectedVar(n: number, common = COMMON, positions = POSITIONS) {
  const dates = new Set(common.slice(-(n + 1)));
  return valueAtRisk(
    RUN,
    positions,
    PRICES.filter((p) => dates.has(p.priceDate)),
    { confidence: 0.95, horizonDays: 1, method: 'ewma', windowDays: n },
    'USD',
  );
}

describe("the embedded store's selection of closes (completeCloses)", () => {
  const series = new Map(['AAA', 'BBB'].map((a) => [a, PRICES.filter((p) => p.asset === a)]));
  const mondays = new Map(['AAA', 'CCC'].map((a) => [a, PRICES.filter((p) => p.asset === a)]));

  it('keeps the last `closes` dates on which every asset has a close, whatever the calendar', () => {
    const rows = completeCloses(series, 21);
    const dates = [...new Set(rows.map((r) => r.priceDate))];
    expect(dates).toEqual(COMMON.slice(-21));
    expect(rows.map((r) => r.asset)).toEqual([...Array(21).fill('AAA'), ...Array(21).fill('BBB')]);
    expect(valueAtRisk(RUN, POSITIONS, rows, { confidence: 0.95, horizonDays: 1, method: 'ewma', windowDays: 20 }, 'USD')).toEqual(
      expectedVar(20),
    );
  });

  it('keeps every complete date when the history holds fewer', () => {
    expect(new Set(completeCloses(series, 1000).map((r) => r.priceDate)).size).toBe(COMMON.length);
    expect([...new Set(completeCloses(mondays, 21).map((r) => r.priceDate))]).toEqual(MONDAYS.slice(-21));
    expect(completeCloses(new Map(), 21)).toEqual([]);
  });
});

describe('the Postgres store on a weekday-only price calendar', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateAndSeed(database, []);
    const db = database.open();
    try {
      await insertFund(db, FUND_ID, POSITIONS);
      await insertFund(db, MONDAY_FUND_ID, MONDAY_POSITIONS);
    } finally {
      await db.release();
    }
  }, 60_000);
  afterAll(() => database?.dispose());

  /** A fund of one run, `positions`, and the closes of the assets it holds. */
  async function insertFund(db: Database, fundId: string, positions: readonly PositionRow[]) {
    await db.query(`INSERT INTO funds VALUES ($1, 'Weekday fund', 'USD', '2025-01-01', 0, 5)`, [fundId]);
    await db.query(`INSERT INTO nav_runs VALUES ($1, $2, 'complete', 75000, 75000, 'matched', 0)`, [fundId, NAV_DATE]);
    for (const p of positions) {
      await db.query(
        `INSERT INTO positions (fund_id, nav_date, book, asset, venue, asset_class, source_type, quantity, price, market_value)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [fundId, p.navDate, p.book, p.asset, p.venue, p.assetClass, p.sourceType, p.quantity, p.price, p.marketValue],
      );
    }
    await db.query(
      `INSERT INTO prices (fund_id, asset, price_date, price)
         SELECT $1, a, d, p FROM unnest($2::text[], $3::date[], $4::numeric[]) AS t(a, d, p)`,
      [fundId, PRICES.map((p) => p.asset), PRICES.map((p) => p.priceDate), PRICES.map((p) => p.price)],
    );
  }

  const varOf = async (args: Record<string, string>, fundId = FUND_ID) => {
    const db = database.open();
    try {
      return JSON.parse(await callFundTool(valueAtRiskTool, { store: guardedStore(postgresStore(db)), fundId }, {}, args));
    } finally {
      await db.release();
    }
  };

  it('windowDays=20 uses exactly the last 20 returns', async () => {
    const v = await varOf({ windowDays: '20' });
    const expected = expectedVar(20);
    expect(v.observationsUsed).toBe(20);
    expect([v.var, v.componentVar]).toEqual([expected.var, expected.componentVar]);
  });

  it('reads further back when the newest closes hold too few common dates (a Mondays-only asset)', async () => {
    const v = await varOf({ windowDays: '20' }, MONDAY_FUND_ID);
    const expected = expectedVar(20, MONDAYS, MONDAY_POSITIONS);
    expect(v.observationsUsed).toBe(20);
    expect([v.var, v.componentVar]).toEqual([expected.var, expected.componentVar]);
  });

  it('uses every return the history holds when it holds fewer', async () => {
    const v = await varOf({ windowDays: '1000' });
    expect(v.observationsUsed).toBe(COMMON.length - 1);
    expect(v.var).toBe(expectedVar(COMMON.length - 1).var);
  });
});

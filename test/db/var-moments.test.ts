/**
 * VaR's stored moments (db/migrations/0004_var_moments.sql, operator/db/var-moments.ts) in a real database:
 * - a seed stores every window of both methods for the latest usable run, and a request reads its row in one
 *   round trip (a row changed by hand shows in the answer), giving what the closes' path computes and what
 *   the embedded store gives, to the bit; not for another run or another basis;
 * - any statement writing positions, prices or runs deletes the fund's moments (only that fund's; a TRUNCATE
 *   every fund's), and the answer stays the embedded one, now from the closes;
 * - a write while they are being made waits for their writer and then deletes them (never stale);
 * - on a fund whose assets keep different price calendars, the stored windows equal the requests' own;
 * - the importer makes them again: a replace, an append (the new latest run), a restated close.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFundTool } from '../../lib/fund/definition.ts';
import { addDays, latestUsableRun } from '../../lib/fund/analytics/runs.ts';
import { VAR_WINDOW, varMomentsOfSeries } from '../../lib/fund/analytics/var.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import { VAR_MOMENTS_BASIS, varSeries } from '../../lib/fund/postgres-var.ts';
import type { FundReadRequest } from '../../lib/fund/store.ts';
import { guardedStore } from '../../lib/fund/store.ts';
import { DEMO_FUND, SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { valueAtRiskTool } from '../../lib/fund/tools/risk-var.ts';
import { exportEmbedded } from '../../operator/bundle/export.ts';
import { importBundle } from '../../operator/bundle/load.ts';
import { storeVarMoments } from '../../operator/db/var-moments.ts';
import { createTestDatabase, migrateAndSeed, someoneWaitsOnALock, type TestDatabase, sql as sharedSql } from '../support/database.ts';

const FUND = SAMPLE_FUND.fundId;
const OTHER = DEMO_FUND.fundId;
const ALL_WINDOWS = 2 * (VAR_WINDOW.max - VAR_WINDOW.min + 1);
const WINDOWS = [VAR_WINDOW.min, 21, 60, 250, 999, VAR_WINDOW.max];
const METHODS = ['sample', 'ewma'] as const;
let database: TestDatabase;
let navDate: string;
const work = mkdtempSync(join(tmpdir(), 'fund-edge-var-moments-'));

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND, OTHER]);
  navDate = latestUsableRun((await embeddedStore([SAMPLE_FUND]).index(FUND))!.runs).navDate;
}, 120_000);
afterAll(async () => {
  await database?.dispose();
  rmSync(work, { recursive: true, force: true });
});

const sql = <R>(text: string, params: unknown[] = []): Promise<R[]> => sharedSql<R>(database, text, params);
const stored = async (fundId = FUND) =>
  (
    await sql<{ n: number; d: string | null }>(
      `SELECT count(*)::int AS n, to_char(max(nav_date), 'YYYY-MM-DD') AS d FROM var_moments WHERE fund_id = $1`,
      [fundId],
    )
  )[0]!;
const request = (returns: number, method: 'sample' | 'ewma', at = navDate) => ({
  varMoments: { heldAt: at, through: at, returns, method },
});

/** The Postgres store's rows for a request, the round trips it took, and the rows the closes' path computes. */
async function postgresAndCloses(fundId: string, r: ReturnType<typeof request>) {
  const db = database.open();
  try {
    const before = db.roundTrips;
    const rows = (await postgresStore(db).read(fundId, r)).varMoments;
    const roundTrips = db.roundTrips - before;
    const fromCloses = varMomentsOfSeries(await varSeries(db, fundId, r.varMoments), r.varMoments.returns, r.varMoments.method);
    return { rows, roundTrips, fromCloses };
  } finally {
    await db.release();
  }
}

const embeddedRows = async (r: FundReadRequest, fundId = FUND) =>
  (await embeddedStore([SAMPLE_FUND, DEMO_FUND]).read(fundId, r)).varMoments;

/** Makes the fund's moments again, as a seed does (after a test's writes deleted them). */
async function restore(fundId = FUND) {
  const db = database.open();
  try {
    await storeVarMoments(db, fundId);
  } finally {
    await db.release();
  }
}

describe('stored moments after a seed', () => {
  it('are every window of both methods for the latest usable run, on the store’s basis', async () => {
    expect(await stored()).toEqual({ n: ALL_WINDOWS, d: navDate });
    const [row] = await sql<{ basis: string; assets: number }>(
      `SELECT DISTINCT basis, cardinality(assets) AS assets FROM var_moments WHERE fund_id = $1`,
      [FUND],
    );
    expect(row!.basis).toBe(VAR_MOMENTS_BASIS);
    expect(row!.assets).toBe((await embeddedRows(request(250, 'ewma'))).length);
    // Kept as they are when nothing they come from was written since.
    const db = database.open();
    try {
      expect((await storeVarMoments(db, FUND)).rows).toBe(0);
    } finally {
      await db.release();
    }
  });

  it('are what the closes’ path computes and what the embedded store gives, to the bit, read in one round trip', async () => {
    for (const method of METHODS)
      for (const w of WINDOWS) {
        const r = request(w, method);
        const { rows, roundTrips, fromCloses } = await postgresAndCloses(FUND, r);
        expect(roundTrips).toBe(1);
        expect(rows).toEqual(fromCloses);
        expect(rows).toEqual(await embeddedRows(r));
      }
    const db = database.open();
    try {
      const args = { windowDays: '250', method: 'sample', confidence: '0.99', horizonDays: '10' };
      const answer = await callFundTool(valueAtRiskTool, { store: guardedStore(postgresStore(db)), fundId: FUND }, {}, args);
      const embedded = await callFundTool(valueAtRiskTool, { store: guardedStore(embeddedStore([SAMPLE_FUND])), fundId: FUND }, {}, args);
      expect(answer).toBe(embedded);
    } finally {
      await db.release();
    }
  });

  it('are what a request reads (a row changed by hand shows), only for their run and basis', async () => {
    await sql(`UPDATE var_moments SET variance = '12345.5' WHERE fund_id = $1 AND method = 'sample' AND window_days = 250`, [FUND]);
    const hand = await postgresAndCloses(FUND, request(250, 'sample'));
    expect(hand.roundTrips).toBe(1);
    expect(new Set(hand.rows.map((r) => r.variance))).toEqual(new Set(['12345.5']));
    // Another window, and an earlier run: not that row.
    expect((await postgresAndCloses(FUND, request(251, 'sample'))).rows).toEqual(await embeddedRows(request(251, 'sample')));
    const earlier = request(250, 'sample', addDays(navDate, -7));
    expect((await postgresAndCloses(FUND, earlier)).rows).toEqual(await embeddedRows(earlier));
    // Another basis (the arithmetic changed since they were made): computed from the closes.
    await sql(`UPDATE var_moments SET basis = 'older' WHERE fund_id = $1`, [FUND]);
    expect((await postgresAndCloses(FUND, request(250, 'sample'))).rows).toEqual(await embeddedRows(request(250, 'sample')));
    await sql(`DELETE FROM var_moments WHERE fund_id = $1`, [FUND]);
    await restore();
    expect((await postgresAndCloses(FUND, request(250, 'sample'))).rows).toEqual(await embeddedRows(request(250, 'sample')));
  });
});

/** A condition naming one row of `table` of the fund `$1`. */
const oneRow = (table: string) => `ctid = (SELECT ctid FROM ${table} WHERE fund_id = $1 LIMIT 1)`;

describe('a write to what the moments come from', () => {
  const TEST_PRICE = `INSERT INTO prices SELECT fund_id, 'ZZZ-TEST', price_date, price FROM prices WHERE fund_id = $1 LIMIT 1
    ON CONFLICT DO NOTHING`;
  /** Each write: a statement made before the moments are stored again (if any), then the write. */
  const writes: { name: string; before?: string; write: string }[] = [
    { name: 'UPDATE prices', write: `UPDATE prices SET price = price WHERE ${oneRow('prices')}` },
    { name: 'UPDATE positions', write: `UPDATE positions SET quantity = quantity WHERE ${oneRow('positions')}` },
    { name: 'UPDATE nav_runs', write: `UPDATE nav_runs SET net_flows = net_flows WHERE ${oneRow('nav_runs')}` },
    { name: 'INSERT prices', before: `DELETE FROM prices WHERE fund_id = $1 AND asset = 'ZZZ-TEST'`, write: TEST_PRICE },
    { name: 'DELETE prices', before: TEST_PRICE, write: `DELETE FROM prices WHERE fund_id = $1 AND asset = 'ZZZ-TEST'` },
  ];
  for (const { name, before, write } of writes)
    it(`${name} deletes that fund's moments and no other's; the answer is still the embedded one`, async () => {
      if (before) await sql(before, [FUND]);
      await restore();
      expect((await stored()).n).toBe(ALL_WINDOWS);
      const other = await stored(OTHER);
      expect(other.n).toBe(ALL_WINDOWS);
      await sql(write, [FUND]);
      expect((await stored()).n).toBe(0);
      expect(await stored(OTHER)).toEqual(other);
      for (const method of METHODS) {
        const { rows } = await postgresAndCloses(FUND, request(250, method));
        expect(rows).toEqual(await embeddedRows(request(250, method)));
      }
    });

  it('a TRUNCATE deletes every fund’s moments', async () => {
    await restore();
    const db = database.open();
    try {
      await db.query('BEGIN');
      await db.query('TRUNCATE nav_runs CASCADE');
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM var_moments');
      expect(rows[0]!.n).toBe(0);
    } finally {
      await db.query('ROLLBACK');
      await db.release();
    }
    expect((await stored()).n).toBe(ALL_WINDOWS);
  });
});

describe('a write while the moments are being made', () => {
  it('waits for their writer, then deletes what it wrote: they are never left stale', async (ctx) => {
    if (database.kind !== 'postgres') ctx.skip(); // two sessions, one waiting on the other's lock
    const writer = database.open();
    let write: Promise<unknown> | undefined;
    try {
      await writer.query('BEGIN');
      await writer.query('DELETE FROM var_moments WHERE fund_id = $1', [FUND]);
      expect((await storeVarMoments(writer, FUND)).rows).toBe(ALL_WINDOWS);
      write = sql(`UPDATE prices SET price = price WHERE ${oneRow('prices')}`, [FUND]);
      await someoneWaitsOnALock(database);
      await writer.query('COMMIT');
      await write;
    } finally {
      await writer.release();
    }
    expect((await stored()).n).toBe(0);
    await restore();
    expect((await stored()).n).toBe(ALL_WINDOWS);
  });
});

describe('a fund whose assets keep different price calendars', () => {
  it('stores, for every window, the moments its requests compute from the closes', async () => {
    const fund = 'calendars-fund';
    const end = '2026-03-31';
    const days = Array.from({ length: 300 }, (_, i) => addDays(end, i - 299));
    const dow = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay();
    const calendars: Record<string, (d: string) => boolean> = {
      AAA: (d) => ![0, 6].includes(dow(d)),
      BBB: () => true,
      CCC: (d) => dow(d) !== 3,
    };
    await sql(`INSERT INTO funds VALUES ($1, 'Calendars', 'USD', '2025-01-01', 0, 5)`, [fund]);
    await sql(`INSERT INTO nav_runs VALUES ($1, $2, 'complete', 1000, 1000, 'matched', 0)`, [fund, end]);
    for (const [k, asset] of Object.keys(calendars).entries()) {
      await sql(
        `INSERT INTO positions (fund_id, nav_date, book, asset, venue, asset_class, source_type, quantity, price, market_value)
           VALUES ($1, $2, 'live', $3, 'X', 'crypto', 'exchange', 1, $4, $4)`,
        [fund, end, asset, (k - 1) * 700 + 50],
      );
      const dates = days.filter(calendars[asset]!);
      await sql(
        `INSERT INTO prices (fund_id, asset, price_date, price) SELECT $1, $2, d, 100 + $3 * 5 + 3 * sin(i * (1.1 + $3)) + i / 10.0
        FROM unnest($4::date[]) WITH ORDINALITY AS t(d, i)`,
        [fund, asset, k, dates],
      );
    }
    await sql('SELECT fund_derive($1, NULL)', [fund]);
    await restore(fund);
    expect(await stored(fund)).toEqual({ n: ALL_WINDOWS, d: end });
    for (const method of METHODS)
      for (const w of [20, 40, 41, 199, 250, 1000]) {
        const { rows, fromCloses } = await postgresAndCloses(fund, request(w, method, end));
        expect(rows).toEqual(fromCloses);
      }
  });
});

describe('the importer', () => {
  /** The stored moments of the latest usable run against the closes' path, for a few windows. */
  async function expectCurrent(fundId: string, at: string) {
    expect(await stored(fundId)).toEqual({ n: ALL_WINDOWS, d: at });
    for (const method of METHODS)
      for (const w of [20, 250, 1000]) {
        const { rows, fromCloses } = await postgresAndCloses(fundId, request(w, method, at));
        expect(rows).toEqual(fromCloses);
      }
  }

  it('makes them again on a replace, an append and a restated close', async (ctx) => {
    if (database.kind !== 'postgres') ctx.skip(); // COPY FROM STDIN: PostgreSQL itself
    const runs = (await embeddedStore([SAMPLE_FUND]).index(FUND))!.runs;
    const cut = runs[runs.length - 31]!.navDate;
    const first = join(work, 'first');
    const last = join(work, 'last');
    await exportEmbedded(FUND, first, { through: cut });
    await exportEmbedded(FUND, last, { from: runs[runs.length - 30]!.navDate });
    const run = (dir: string, mode: 'append' | 'replace', allowRestatement = false) =>
      importBundle({ dir, fundId: FUND, mode, allowRestatement, dryRun: false, url: database.url });

    expect((await run(first, 'replace')).outcome).toBe('imported');
    await expectCurrent(FUND, latestUsableRun(runs.filter((r) => r.navDate <= cut)).navDate);
    expect((await run(last, 'append')).outcome).toBe('imported');
    await expectCurrent(FUND, navDate);
    expect((await postgresAndCloses(FUND, request(250, 'ewma'))).rows).toEqual(await embeddedRows(request(250, 'ewma')));

    // A close of a held asset restated ten runs back: the 20-return window's moments change with it.
    const before = await postgresAndCloses(FUND, request(20, 'sample'));
    const held = before.rows[0]!.asset;
    const day = runs[runs.length - 10]!.navDate;
    const file = join(last, 'prices.csv');
    const lines = readFileSync(file, 'utf8').split('\r\n');
    const at = lines.findIndex((l) => l.startsWith(`${held},${day},`));
    expect(at).toBeGreaterThan(0);
    const cells = lines[at]!.split(',');
    cells[2] = (Number(cells[2]) * 1.05).toFixed(2);
    lines[at] = cells.join(',');
    writeFileSync(file, lines.join('\r\n'));
    expect((await run(last, 'append')).outcome).toBe('refused');
    expect((await stored()).n).toBe(ALL_WINDOWS);
    expect((await run(last, 'append', true)).outcome).toBe('imported');
    await expectCurrent(FUND, navDate);
    expect((await postgresAndCloses(FUND, request(20, 'sample'))).rows).not.toEqual(before.rows);

    // A replace with the whole fund: the embedded answer again.
    const whole = join(work, 'whole');
    await exportEmbedded(FUND, whole);
    expect((await run(whole, 'replace')).outcome).toBe('imported');
    await expectCurrent(FUND, navDate);
    for (const method of METHODS)
      expect((await postgresAndCloses(FUND, request(20, method))).rows).toEqual(await embeddedRows(request(20, method)));
  }, 120_000);
});

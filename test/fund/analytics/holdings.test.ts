/**
 * The pure fund analytics (`lib/fund/analytics/*.ts`), on the demo fund's rows as the embedded store serves
 * them and on small hand-made inputs whose figures are worked out in the comments:
 * - holdings: every breakdown sums exactly to NAV; exposure identities (net, gross, NAV) hold;
 * - runs: time-weighted return, usable-run lookups and their errors, NAV history, reconciliation difference;
 * - fast-check properties: breakdowns and exposures for random positions; the integer-cents path gives
 *   exactly what decimal.js gives, ties, amounts past 2^53 cents and texts that are not cents included.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dec, sum as total, toMoney as money } from '../../../lib/decimal.ts';
import {
  OTHER_ASSETS_LESS_LIABILITIES,
  breakdownBy,
  breakdownByInDecimals,
  exposureOf,
  exposureSeries,
  exposureSnapshot,
  exposureSnapshotInDecimals,
  positionsView,
  positionsViewInDecimals,
} from '../../../lib/fund/analytics/holdings.ts';
import {
  addDays,
  differenceBps,
  isUsable,
  navHistory,
  previousUsableRun,
  timeWeightedReturnPct,
  usableRunOn,
} from '../../../lib/fund/analytics/runs.ts';
import type { PositionRow, PositionSumRow } from '../../../lib/fund/rows.ts';
import { FUND, USD, apiError, latest, ledgerThrough, loadDemoFund, position, positionsAt, runRow, runs, store } from './support.ts';
import { thrown } from '../../support/thrown.ts';
import { FundFactsProblem } from '../../../lib/fund/facts-problem.ts';

beforeAll(loadDemoFund);

// ---------------------------------------------------------------------------------------------------------

describe('holdings', () => {
  it('the latest usable run is not the latest run (which is a break)', () => {
    expect(isUsable(latest)).toBe(true);
    expect(latest.navDate < runs.at(-1)!.navDate).toBe(true);
  });

  it.each([
    ['asset', (p: PositionRow) => p.asset],
    ['sourceType', (p: PositionRow) => p.sourceType],
    ['venue', (p: PositionRow) => p.venue],
  ] as const)('breakdown by %s sums exactly to NAV, the last row reconciling to it', async (_name, key) => {
    const positions = await positionsAt(latest.navDate);
    const rows = breakdownBy(latest, positions, key);
    expect(money(total(rows.map((r) => r.marketValue)))).toBe(latest.shadowNav);

    const other = rows.at(-1)!;
    expect(other.key).toBe(OTHER_ASSETS_LESS_LIABILITIES);
    // "Other assets less liabilities" are the fees and expenses payable per the ledger, as a negative figure.
    const ledger = await ledgerThrough(latest.navDate);
    const payables = total(ledger.filter((l) => ['2100', '2110', '2200'].includes(l.accountCode)).map((l) => dec(l.credit).minus(l.debit)));
    expect(payables.isPositive() && !payables.isZero()).toBe(true);
    expect(other.marketValue).toBe(money(payables.neg()));

    const groups = rows.slice(0, -1);
    expect(new Set(groups.map((r) => r.key))).toEqual(new Set(positions.map(key)));
    for (const g of groups) expect(g.marketValue).toBe(money(total(positions.filter((p) => key(p) === g.key).map((p) => p.marketValue))));
    // Largest first.
    for (let i = 1; i < groups.length; i++) expect(dec(groups[i - 1]!.marketValue).gte(groups[i]!.marketValue)).toBe(true);
  });

  it('exposure snapshot: long − short = net, long + short = gross, net + cash + other = NAV', async () => {
    const positions = await positionsAt(latest.navDate);
    const s = exposureSnapshot(latest, positions);
    expect(s.nav).toBe(latest.shadowNav);
    expect(money(dec(s.long).minus(s.short))).toBe(s.net);
    expect(money(dec(s.long).plus(s.short))).toBe(s.gross);
    const other = dec(latest.shadowNav!).minus(total(positions.map((p) => p.marketValue)));
    expect(money(dec(s.long).minus(s.short).plus(s.cash).plus(other))).toBe(latest.shadowNav);

    // The figures themselves, from the rows: longs are crypto, shorts the perpetuals, cash fiat and stablecoins.
    const byClass = (classes: string[]) => total(positions.filter((p) => classes.includes(p.assetClass)).map((p) => p.marketValue));
    expect(s.long).toBe(money(byClass(['crypto'])));
    expect(s.short).toBe(money(byClass(['perpetual']).neg()));
    expect(s.cash).toBe(money(byClass(['fiat', 'stablecoin'])));
    expect(dec(s.short).gt(0)).toBe(true);
    expect(dec(s.cash).gt(0)).toBe(true);
    // Percentages of NAV.
    expect(s.grossPct).toBe(dec(s.gross).div(s.nav).times(100).toDecimalPlaces(4).toNumber());
  });

  it('exposure series: the same identities at each usable run, oldest first, equal to the snapshots', async () => {
    const window = runs.filter(isUsable).slice(-12);
    const dates = window.map((r) => r.navDate).reverse();
    const positions = await positionsAt(...dates);
    // The store's sums per run, class and sign are the positions' sums, and give the same series.
    const sums = (await store.read(FUND, { positionSums: { navDates: dates } })).positionSums;
    expect(sortSums(sums)).toEqual(positionSumsOf(positions));
    expect(sums.length).toBeLessThan(positions.length / 3);
    const series = exposureSeries(window, sums, USD);
    expect(series).toEqual(exposureSeries(window, positions, USD));
    expect(series.map((p) => p.date)).toEqual(window.map((r) => r.navDate));
    for (let i = 1; i < series.length; i++) expect(series[i - 1]!.date < series[i]!.date).toBe(true);
    for (const [i, point] of series.entries()) {
      const run = window[i]!;
      const own = positions.filter((p) => p.navDate === run.navDate);
      expect(point.currency).toBe(USD);
      expect(point.nav).toBe(run.shadowNav);
      expect(money(dec(point.long).minus(point.short))).toBe(point.net);
      expect(money(dec(point.long).plus(point.short))).toBe(point.gross);
      const other = dec(run.shadowNav!).minus(total(own.map((p) => p.marketValue)));
      expect(money(dec(point.net).plus(point.cash).plus(other))).toBe(run.shadowNav);
      const snap = exposureSnapshot(run, own);
      expect([point.long, point.short, point.gross, point.net, point.cash]).toEqual([
        snap.long,
        snap.short,
        snap.gross,
        snap.net,
        snap.cash,
      ]);
    }
  });

  it('property: for random positions, breakdowns sum exactly to NAV and the exposure identities hold', () => {
    const positionArb = fc.record({
      asset: fc.constantFrom('BTC', 'ETH', 'SOL', 'USD', 'USDC'),
      assetClass: fc.constantFrom('crypto', 'perpetual', 'stablecoin', 'fiat'),
      sourceType: fc.constantFrom('exchange', 'custodian', 'bank'),
      venue: fc.constantFrom('A', 'B', 'C'),
      cents: fc.integer({ min: -5_000_000_000, max: 5_000_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(positionArb, { maxLength: 12 }),
        fc.integer({ min: -1_000_000_000, max: 100_000_000_000 }),
        (specs, navCents) => {
          const run = runRow('2026-01-02', money(dec(navCents).div(100)));
          const positions = specs.map((s) => position({ ...s, marketValue: money(dec(s.cents).div(100)) }));
          const sumMv = total(positions.map((p) => p.marketValue));
          for (const key of [(p: PositionRow) => p.asset, (p: PositionRow) => p.sourceType, (p: PositionRow) => p.venue]) {
            const rows = breakdownBy(run, positions, key);
            expect(money(total(rows.map((r) => r.marketValue)))).toBe(run.shadowNav);
            expect(rows.at(-1)!.marketValue).toBe(money(dec(run.shadowNav!).minus(sumMv)));
          }
          const e = exposureOf(positions);
          expect(e.long.gte(0) && e.short.gte(0)).toBe(true);
          expect(e.long.minus(e.short).eq(e.net)).toBe(true);
          expect(e.long.plus(e.short).eq(e.gross)).toBe(true);
          expect(e.net.plus(e.cash).eq(sumMv)).toBe(true);
          const s = exposureSnapshot(run, positions);
          expect(money(dec(s.net).plus(s.cash).plus(dec(run.shadowNav!).minus(sumMv)))).toBe(run.shadowNav);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Positions summed per run, asset class and sign in decimal.js (a store's `positionSums`), in a fixed order. */
function positionSumsOf(positions: readonly PositionRow[]): PositionSumRow[] {
  const sums = new Map<string, PositionSumRow>();
  for (const p of positions) {
    const key = `${p.navDate}|${p.assetClass}|${dec(p.marketValue).isNegative() && !dec(p.marketValue).isZero()}`;
    const prior = sums.get(key);
    const sum = dec(prior?.marketValue ?? 0).plus(p.marketValue);
    // Exact: two decimals as money is written (and as NUMERIC sums of money come out), more when the inputs had more.
    sums.set(key, {
      navDate: p.navDate,
      assetClass: p.assetClass,
      marketValue: sum.decimalPlaces() <= 2 ? sum.toFixed(2) : sum.toString(),
    });
  }
  return sortSums([...sums.values()]);
}

const sortSums = (rows: readonly PositionSumRow[]) =>
  [...rows].sort((a, b) => `${a.navDate}|${a.assetClass}|${a.marketValue}`.localeCompare(`${b.navDate}|${b.assetClass}|${b.marketValue}`));

describe('holdings in integer cents against decimal.js', () => {
  /** A money text of `cents` with two decimals (BigInt: exact past 2^53). */
  const moneyText = (cents: bigint) =>
    `${cents < 0n ? '-' : ''}${(cents < 0n ? -cents : cents) / 100n}.${String((cents < 0n ? -cents : cents) % 100n).padStart(2, '0')}`;
  const amount = fc.oneof(
    { weight: 6, arbitrary: fc.bigInt({ min: -5_000_000_000n, max: 5_000_000_000n }).map(moneyText) },
    // Past the safe integers, near them (sums leave them), and zero of both signs.
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }).map(moneyText) },
    { weight: 1, arbitrary: fc.constantFrom(moneyText(2n ** 53n - 1n), moneyText(-(2n ** 52n)), '0.00', '-0.00') },
    // Texts that are not cents (another number of decimals): the decimal path.
    { weight: 1, arbitrary: fc.constantFrom('12.5', '-0.125', '1000', '3.14159') },
  );
  const positionArb = fc.record({
    asset: fc.constantFrom('BTC', 'ETH', 'SOL', 'USD', 'USDC'),
    assetClass: fc.constantFrom('crypto', 'perpetual', 'stablecoin', 'fiat'),
    sourceType: fc.constantFrom('exchange', 'custodian', 'bank'),
    venue: fc.constantFrom('A', 'B', 'C'),
    marketValue: amount,
  });
  const nav = fc.oneof(
    { weight: 6, arbitrary: fc.bigInt({ min: -1_000_000_000n, max: 100_000_000_000n }).map(moneyText) },
    { weight: 1, arbitrary: fc.constantFrom(null, '0.00', moneyText(2n ** 53n + 2n), '1000.5') },
  );
  /** The same answer, as a client reads it. */
  const same = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  const check = (navText: string | null, positions: PositionRow[]) => {
    const run = runRow('2026-01-02', navText);
    same(positionsView(run, positions), positionsViewInDecimals(run, positions));
    for (const key of [(p: PositionRow) => p.asset, (p: PositionRow) => p.sourceType, (p: PositionRow) => p.venue]) {
      same(breakdownBy(run, positions, key), breakdownByInDecimals(run, positions, key));
    }
    same(exposureSnapshot(run, positions), exposureSnapshotInDecimals(run, positions));
    const [point] = exposureSeries([run], positions, USD);
    // The series from the positions' sums per class and sign (what a store's positionSums read gives).
    same(exposureSeries([run], positionSumsOf(positions), USD), [point]);
    const snap = exposureSnapshotInDecimals(run, positions);
    same(
      [point!.nav, point!.long, point!.short, point!.gross, point!.net, point!.cash],
      [snap.nav, snap.long, snap.short, snap.gross, snap.net, snap.cash],
    );
  };

  it('property: positions, breakdowns and exposure are the same to the character', () => {
    fc.assert(
      fc.property(fc.array(positionArb.map(position), { maxLength: 12 }), nav, (positions, navText) => check(navText, positions)),
      { numRuns: 1_000 },
    );
  });

  it('property: weights on a rounding tie (part / NAV × 10⁶ = k + ½) round half-up, as decimal.js rounds them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: -500_000, max: 500_000 }), (m, k) => {
        // NAV 2·10⁶·m cents; a position of (2k + 1)·m cents weighs (k + ½)·10⁻⁴ percent.
        const navText = moneyText(2_000_000n * BigInt(m));
        const positions = [position({ asset: 'BTC', marketValue: moneyText(BigInt(2 * k + 1) * BigInt(m)) })];
        check(navText, positions);
      }),
      { numRuns: 500 },
    );
  });

  it('the worked example: weights of NAV 1,000.00 with 333.33 and −0.05 held', () => {
    const run = runRow('2026-01-02', '1000.00');
    const rows = positionsView(run, [position({ asset: 'BTC', marketValue: '333.33' }), position({ asset: 'ETH', marketValue: '-0.05' })]);
    // 333.33 / 1,000 × 100 = 33.333 %; −0.05 / 1,000 × 100 = −0.005 %.
    expect(rows.map((r) => [r.asset, r.marketValue, r.weightPct])).toEqual([
      ['BTC', '333.33', 33.333],
      ['ETH', '-0.05', -0.005],
    ]);
    expect(breakdownBy(run, [position({ asset: 'BTC', marketValue: '333.33' })], (p) => p.asset).at(-1)).toEqual({
      key: OTHER_ASSETS_LESS_LIABILITIES,
      marketValue: '666.67',
      weightPct: 66.667,
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('NAV runs', () => {
  /**
   * NAV 100 on day 1 → 110 on day 2 (no flow) → 121 on day 3 with a 10 subscription dealt that day:
   *   (110 / 100) × ((121 − 10) / 110) − 1 = 1.1 × 1.00909… − 1 = 111 / 100 − 1 = 11 % → 11.0000
   */
  it('time-weighted return chain-links usable runs, taking flows out of the closing NAV', () => {
    const chain = [runRow('2026-01-01', '100.00'), runRow('2026-01-02', '110.00'), runRow('2026-01-03', '121.00', { netFlows: '10.00' })];
    expect(timeWeightedReturnPct(chain, chain[2]!, '2026-01-02')).toBe(11);
    // From day 2 on: 111 / 110 − 1 = 0.909090…% → 0.9091.
    expect(timeWeightedReturnPct(chain, chain[2]!, '2026-01-03')).toBe(0.9091);
  });

  /**
   * Non-usable runs between are skipped but their flows count: day 2 failed (flow 5), day 3 a break (flow 3),
   * day 4 usable at 126 with a flow 7: (126 − (5 + 3 + 7)) / 100 − 1 = 111 / 100 − 1 = 11 %.
   */
  it('time-weighted return skips failed and break runs but counts their flows', () => {
    const chain = [
      runRow('2026-01-01', '100.00'),
      runRow('2026-01-02', null, { status: 'failed', reconStatus: null, netFlows: '5.00' }),
      runRow('2026-01-03', '140.00', { reconStatus: 'break', netFlows: '3.00' }),
      runRow('2026-01-04', '126.00', { netFlows: '7.00' }),
    ];
    expect(timeWeightedReturnPct(chain, chain[3]!, '2026-01-02')).toBe(11);
    // No usable run before the period and none in it: null. Launched in the period: the chain starts at the
    // first usable run in it (its own flows are the launch, not a return): 126 − 15 over 100 as above.
    expect(timeWeightedReturnPct([chain[1]!], chain[1]!, '2026-01-01')).toBeNull();
    expect(timeWeightedReturnPct(chain, chain[3]!, '2026-01-01')).toBe(11);
  });

  it('time-weighted return on the demo fund matches the NAV path when no flow is dealt', () => {
    // Within October 2026 up to the latest usable run, flows are dealt only on the 1st.
    const start = previousUsableRun(runs, '2026-10-02')!;
    const flowsAfter = total(runs.filter((r) => r.navDate > start.navDate && r.navDate <= latest.navDate).map((r) => r.netFlows));
    expect(flowsAfter.isZero()).toBe(true);
    const expected = dec(latest.shadowNav!).div(start.shadowNav!).minus(1).times(100).toDecimalPlaces(4).toNumber();
    expect(timeWeightedReturnPct(runs, latest, addDays(start.navDate, 1))).toBe(expected);
  });

  it('usableRunOn: the usable run; 404 not_found for no run that day; 409 not_usable for a partial or break run', () => {
    expect(usableRunOn(runs, latest.navDate)).toBe(latest);
    // No run that day: a 404 quoting the first and last run dates, which callFundTool redacts before it leaves.
    const missing = thrown(() => usableRunOn(runs, '1999-01-01')) as FundFactsProblem<{ firstRunDate: string; lastRunDate: string }>;
    expect(missing).toBeInstanceOf(FundFactsProblem);
    expect(missing.facts).toEqual({ firstRunDate: runs[0]!.navDate, lastRunDate: runs.at(-1)!.navDate });
    const problem = missing.problem(missing.schema.parse(missing.facts));
    expect([problem.code, problem.status]).toEqual(['not_found', 404]);
    expect(problem.detail).toContain(`from ${runs[0]!.navDate} to ${runs.at(-1)!.navDate}`);
    expect(apiError(() => usableRunOn([], '1999-01-01')).code).toBe('not_found');
    const partial = runs.find((r) => r.status === 'partial')!;
    const failed = runs.find((r) => r.status === 'failed')!;
    const breakRun = runs.find((r) => r.status === 'complete' && r.reconStatus === 'break')!;
    for (const run of [partial, failed, breakRun]) {
      const e = apiError(() => usableRunOn(runs, run.navDate));
      expect([e.code, e.status], run.navDate).toEqual(['not_usable', 409]);
    }
    // The latest run is a break; the latest usable is the day before it here.
    expect(apiError(() => usableRunOn(runs, runs.at(-1)!.navDate)).code).toBe('not_usable');
    expect(previousUsableRun(runs, runs.at(-1)!.navDate)).toBe(latest);
    expect(previousUsableRun(runs, runs[0]!.navDate)).toBeNull();
  });

  it('navHistory: the trailing window, newest first, with usable flags', () => {
    for (const days of [1, 30, 90]) {
      const history = navHistory(runs, days);
      expect(history.map((h) => h.navDate)).toEqual(
        runs
          .slice(-days)
          .map((r) => r.navDate)
          .reverse(),
      );
      for (const h of history) {
        const run = runs.find((r) => r.navDate === h.navDate)!;
        expect(h.usable).toBe(run.status === 'complete' && run.reconStatus === 'matched');
        expect([h.status, h.shadowNav, h.adminNav, h.reconStatus]).toEqual([run.status, run.shadowNav, run.adminNav, run.reconStatus]);
        expect(h.differenceBps).toBe(differenceBps(run));
      }
    }
    const ninety = navHistory(runs, 90);
    expect(ninety[0]!.usable).toBe(false); // the latest run is a break
    expect(ninety.some((h) => h.status === 'partial' || h.status === 'failed')).toBe(true);
    expect(navHistory(runs, 10_000).length).toBe(runs.length);
    expect(navHistory([], 30)).toEqual([]);
  });

  it('differenceBps: (shadow − admin) / admin × 10,000 to 2 dp; null without both NAVs', () => {
    // 1,000,500 vs 1,000,000: 500 / 1,000,000 × 10,000 = 5 bps.
    expect(differenceBps(runRow('2026-01-01', '1000500.00', { adminNav: '1000000.00' }))).toBe(5);
    // 1,000 vs 1,003: −3 / 1,003 × 10,000 = −29.910269… → −29.91.
    expect(differenceBps(runRow('2026-01-01', '1000.00', { adminNav: '1003.00' }))).toBe(-29.91);
    // 100.01 vs 99.99: 0.02 / 99.99 × 10,000 = 2.000200… → 2.
    expect(differenceBps(runRow('2026-01-01', '100.01', { adminNav: '99.99' }))).toBe(2);
    expect(differenceBps(runRow('2026-01-01', null, { status: 'failed', reconStatus: null, adminNav: '100.00' }))).toBeNull();
    expect(differenceBps(runRow('2026-01-01', '100.00', { adminNav: null }))).toBeNull();
    expect(differenceBps(runRow('2026-01-01', '100.00', { adminNav: '0.00' }))).toBeNull();
  });
});

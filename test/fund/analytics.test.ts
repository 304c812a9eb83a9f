/**
 * The pure fund analytics (`lib/fund/analytics/*.ts`), on the demo fund's rows as the embedded store serves
 * them and on small hand-made inputs whose figures are worked out in the comments:
 * - holdings: every breakdown sums exactly to NAV; exposure identities (net, gross, NAV) hold;
 * - P&L attribution: for every usable run of the demo fund, components sum exactly to totalPnl with a nil
 *   residual, including spans over failed, partial and break runs; a hand example to the cent;
 * - VaR: hand-computed sample and EWMA cases; square-root-of-time and confidence scaling, component VaR
 *   summing exactly to VaR and window lengths on the demo fund; not_usable without history;
 * - trial balance: balanced at every month end; ledger net assets equal NAV;
 * - capital accounts: roll-forward per investor, totals tie to NAV at the opening and closing runs;
 * - runs: time-weighted return, usable-run lookups and their errors, NAV history, reconciliation difference;
 * - fast-check properties: breakdowns and exposures for random positions; component VaR sums to VaR.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dec, sum as total, toMoney as money, type Dec } from '../../lib/decimal.ts';
import { ApiError } from '../../lib/errors.ts';
import { pnlAttribution } from '../../lib/fund/analytics/attribution.ts';
import { capitalAccounts, openingRunDate } from '../../lib/fund/analytics/capital-accounts.ts';
import {
  OTHER_ASSETS_LESS_LIABILITIES,
  breakdownBy,
  exposureOf,
  exposureSeries,
  exposureSnapshot,
} from '../../lib/fund/analytics/holdings.ts';
import {
  addDays,
  differenceBps,
  isUsable,
  latestCompleteRun,
  latestUsableRun,
  navHistory,
  previousUsableRun,
  timeWeightedReturnPct,
  usableRunOn,
} from '../../lib/fund/analytics/runs.ts';
import { trialBalance } from '../../lib/fund/analytics/trial-balance.ts';
import { EWMA_LAMBDA, Z_SCORES, valueAtRisk, type VarOptions } from '../../lib/fund/analytics/var.ts';
import { callFundTool } from '../../lib/fund/definition.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { pnlAttributionTool } from '../../lib/fund/tools/pnl-attribution.ts';
import type { AccountRow, LedgerLineRow, NavRunRow, PositionRow, PriceRow } from '../../lib/fund/rows.ts';
import type { FundStore } from '../../lib/fund/store.ts';
import { ACCOUNTS, DEMO_FUND } from '../../lib/fund/synthetic.ts';
import { thrown } from '../support/thrown.ts';

/** Net assets per the ledger (Σ asset balances − Σ liability balances), which equals NAV on a complete run date. */
function netAssets(accounts: readonly AccountRow[], ledger: readonly LedgerLineRow[]): Dec {
  const type = new Map(accounts.map((a) => [a.code, a.type]));
  let total = dec(0);
  for (const line of ledger) {
    const t = type.get(line.accountCode);
    if (t === 'asset' || t === 'liability') total = total.plus(dec(line.debit).minus(line.credit));
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

const FUND = DEMO_FUND.fundId;
const USD = 'USD';

/** A complete, reconciled run (override any field). */
function runRow(navDate: string, shadowNav: string | null, extra: Partial<NavRunRow> = {}): NavRunRow {
  return { navDate, status: 'complete', shadowNav, adminNav: shadowNav, reconStatus: 'matched', netFlows: '0.00', ...extra };
}

/** A live position; quantity and price default to the market value at 1.00. */
function position(p: Partial<PositionRow> & Pick<PositionRow, 'asset' | 'marketValue'>): PositionRow {
  return {
    navDate: '2026-01-02',
    assetClass: 'crypto',
    sourceType: 'exchange',
    venue: 'Venue',
    book: 'live',
    quantity: p.marketValue,
    price: '1.00',
    ...p,
  };
}

/** A ledger line dated 2026-01-02; `amount` > 0 is a debit, < 0 a credit. */
function line(
  entryId: string,
  accountCode: string,
  amount: string,
  asset: string | null = null,
  venue: string | null = null,
): LedgerLineRow {
  const a = dec(amount);
  return {
    entryId,
    entryDate: '2026-01-02',
    accountCode,
    asset,
    venue,
    debit: a.isPositive() ? a.toFixed(2) : '0.00',
    credit: a.isNegative() ? a.neg().toFixed(2) : '0.00',
  };
}

/** Daily closes of `asset` from `start`, one per day. */
function priceSeries(asset: string, start: string, closes: readonly (number | string)[]): PriceRow[] {
  return closes.map((c, i) => ({ asset, priceDate: addDays(start, i), price: String(c) }));
}

/** What `fn` threw, as an ApiError (fails the test otherwise). */
function apiError(fn: () => unknown): ApiError {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

// ---------------------------------------------------------------------------------------------------------
// The demo fund, generated once for the file

let store: FundStore;
let runs: NavRunRow[];
let latest: NavRunRow;
let accounts: AccountRow[];

beforeAll(async () => {
  store = embeddedStore([DEMO_FUND]);
  const index = await store.index(FUND);
  if (!index) throw new Error('demo fund missing from the embedded store');
  runs = index.runs;
  latest = latestUsableRun(runs);
  accounts = (await store.read(FUND, { ledger: { after: null, through: runs[0]!.navDate } })).accounts;
});

async function positionsAt(...dates: string[]): Promise<PositionRow[]> {
  return (await store.read(FUND, { positions: { navDates: dates } })).positions;
}

async function ledgerThrough(date: string, after: string | null = null): Promise<LedgerLineRow[]> {
  return (await store.read(FUND, { ledger: { after, through: date } })).ledger;
}

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
    const positions = await positionsAt(...window.map((r) => r.navDate).reverse());
    const series = exposureSeries(window, positions, USD);
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

// ---------------------------------------------------------------------------------------------------------

describe('P&L attribution', () => {
  it('ties for every usable run of the demo fund, against the usable run before it (through the endpoint)', async () => {
    const failures: string[] = [];
    let covered = 0;
    let overGaps = 0;
    for (const run of runs.filter(isUsable)) {
      const previous = previousUsableRun(runs, run.navDate);
      if (!previous) continue;
      covered++;
      if (addDays(previous.navDate, 1) !== run.navDate) overGaps++;
      // Through the endpoint's own path (store read, analytics, redaction), as a client receives it.
      const a = JSON.parse(await callFundTool(pnlAttributionTool, { store, fundId: FUND }, {}, { date: run.navDate })) as ReturnType<
        typeof pnlAttribution
      >;
      const fail = (what: string) => failures.push(`${run.navDate} (from ${previous.navDate}): ${what}`);
      const assetTotal = total(a.byAsset.map((r) => r.total));
      if (a.openingNav !== previous.shadowNav || a.closingNav !== run.shadowNav) fail('opening/closing NAV');
      if (a.date !== run.navDate || a.previousDate !== previous.navDate) fail('dates');
      if (a.residual !== '0.00') fail(`residual ${a.residual}`);
      if (money(assetTotal.plus(a.fees).plus(a.expenses).plus(a.residual)) !== a.totalPnl) fail('components ≠ totalPnl');
      if (money(dec(a.closingNav).minus(a.openingNav).minus(a.flows)) !== a.totalPnl) fail('totalPnl ≠ ΔNAV − flows');
      if (!total(a.bySourceType.map((r) => r.total)).eq(assetTotal) || !total(a.byVenue.map((r) => r.total)).eq(assetTotal))
        fail('lists differ');
      for (const r of [...a.byAsset, ...a.bySourceType, ...a.byVenue]) {
        if (!dec(r.priceEffect).plus(r.quantityEffect).eq(r.total)) fail(`price + quantity ≠ total in ${JSON.stringify(r)}`);
      }
      const flows = total(runs.filter((r) => r.navDate > previous.navDate && r.navDate <= run.navDate).map((r) => r.netFlows));
      if (a.flows !== money(flows)) fail(`flows ${a.flows} ≠ ${money(flows)}`);
      if (a.byAsset.some((r) => ['USD', 'USDC', 'USDT'].includes(r.asset))) fail('cash attributed');
      if (dec(a.expenses).gt(0)) fail(`expenses ${a.expenses} > 0`); // operating expenses only accrue
    }
    expect(failures).toEqual([]);
    expect(covered).toBe(runs.filter(isUsable).length - 1);
    // Spans over failed, partial and break runs were covered.
    expect(overGaps).toBeGreaterThanOrEqual(3);
  });

  /**
   * Hand example (accounts by role, with codes of its own so that only the roles can be read):
   *   BTC at Coinbase (exchange):  q0 = 2, p0 = 100 → q1 = 3, p1 = 110; bought 1 at 105 (debit 105.00 to an
   *     asset account carrying BTC / Coinbase; the cash leg carries USD / Coinbase, which is cash, not P&L)
   *     MV0 = 200.00, MV1 = 330.00, total = 330 − 200 − 105 = 25.00,
   *     priceEffect = 2 × (110 − 100) = 20.00, quantityEffect = 25 − 20 = 5.00
   *   ETH at Anchorage (custodian): q = 10, p 10 → 9.50: MV 100.00 → 95.00, total = −5.00 = priceEffect, qty 0.00
   *   management fee 3.00 (fee_expense), administration 2.00 (operating_expense),
   *   subscription 50.00 (capital_contributions), redemption 20.00 (capital_withdrawals) → flows 30.00
   *   opening NAV = 200 + 100 + 700 cash = 1,000.00; closing = 330 + 95 + 595 + 30 bank − 5 payables = 1,045.00
   *   totalPnl = 1,045 − 1,000 − 30 = 15.00 = 25 − 5 − 3 − 2, residual 0.00
   */
  const HAND_ACCOUNTS: AccountRow[] = [
    { code: 'INV', name: 'Investments', type: 'asset', role: 'other' },
    { code: 'CASH', name: 'Cash', type: 'asset', role: 'other' },
    { code: 'PAY', name: 'Payables', type: 'liability', role: 'other' },
    { code: 'MGMT', name: 'Management fee', type: 'expense', role: 'fee_expense' },
    { code: 'ADMIN', name: 'Administration', type: 'expense', role: 'operating_expense' },
    { code: 'SUBS', name: 'Subscriptions', type: 'equity', role: 'capital_contributions' },
    { code: 'REDS', name: 'Redemptions', type: 'equity', role: 'capital_withdrawals' },
  ];
  const previous = runRow('2026-01-01', '1000.00');
  const opening = [
    position({ navDate: '2026-01-01', asset: 'BTC', venue: 'Coinbase', quantity: '2', price: '100', marketValue: '200.00' }),
    position({
      navDate: '2026-01-01',
      asset: 'ETH',
      venue: 'Anchorage',
      sourceType: 'custodian',
      quantity: '10',
      price: '10',
      marketValue: '100.00',
    }),
    position({ navDate: '2026-01-01', asset: 'USD', assetClass: 'fiat', venue: 'Coinbase', marketValue: '700.00' }),
  ];
  const closing = [
    position({ asset: 'BTC', venue: 'Coinbase', quantity: '3', price: '110', marketValue: '330.00' }),
    position({ asset: 'ETH', venue: 'Anchorage', sourceType: 'custodian', quantity: '10', price: '9.50', marketValue: '95.00' }),
    position({ asset: 'USD', assetClass: 'fiat', venue: 'Coinbase', marketValue: '595.00' }),
    position({ asset: 'USD', assetClass: 'fiat', venue: 'Bank', sourceType: 'bank', marketValue: '30.00' }),
  ];
  const handLedger = [
    line('JE1', 'INV', '105.00', 'BTC', 'Coinbase'),
    line('JE1', 'CASH', '-105.00', 'USD', 'Coinbase'),
    line('JE2', 'MGMT', '3.00'),
    line('JE2', 'PAY', '-3.00'),
    line('JE3', 'ADMIN', '2.00'),
    line('JE3', 'PAY', '-2.00'),
    line('JE4', 'CASH', '50.00', 'USD', 'Bank'),
    line('JE4', 'SUBS', '-50.00'),
    line('JE5', 'REDS', '20.00'),
    line('JE5', 'CASH', '-20.00', 'USD', 'Bank'),
  ];

  it('a hand example, to the cent', () => {
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1045.00'),
      previous,
      opening,
      closing,
      accounts: HAND_ACCOUNTS,
      ledger: handLedger,
      currency: USD,
    });
    expect(a).toEqual({
      date: '2026-01-02',
      previousDate: '2026-01-01',
      currency: USD,
      openingNav: '1000.00',
      closingNav: '1045.00',
      totalPnl: '15.00',
      byAsset: [
        { asset: 'BTC', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { asset: 'ETH', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      bySourceType: [
        { key: 'exchange', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { key: 'custodian', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      byVenue: [
        { key: 'Coinbase', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
        { key: 'Anchorage', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
      ],
      fees: '-3.00',
      expenses: '-2.00',
      flows: '30.00',
      residual: '0.00',
    });
  });

  /**
   * The same span with a SOL position at Kraken closed between the runs (q0 = 5 at 20 = 100.00, sold for
   * 105.00: credit 105.00 to INV carrying SOL / Kraken) and a closing NAV 0.50 higher than the books explain:
   *   SOL total = 0 − 100 − (−105) = 5.00, all quantity effect (no closing price)
   *   closing NAV 1,045.50 + 105 Kraken cash proceeds = 1,150.50, opening 1,000 + 100 SOL = 1,100.00
   *   totalPnl = 1,150.50 − 1,100.00 − 30 = 20.50; explained 25 − 5 + 5 − 3 − 2 = 20.00; residual 0.50
   */
  it('a position closed between the runs is all quantity effect; what the books leave unexplained is the residual', () => {
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1150.50'),
      previous: runRow('2026-01-01', '1100.00'),
      opening: [
        ...opening,
        position({ navDate: '2026-01-01', asset: 'SOL', venue: 'Kraken', quantity: '5', price: '20', marketValue: '100.00' }),
      ],
      closing: [...closing, position({ asset: 'USD', assetClass: 'fiat', venue: 'Kraken', marketValue: '105.00' })],
      accounts: HAND_ACCOUNTS,
      ledger: [...handLedger, line('JE6', 'INV', '-105.00', 'SOL', 'Kraken'), line('JE6', 'CASH', '105.00', 'USD', 'Kraken')],
      currency: USD,
    });
    expect(a.byAsset).toEqual([
      { asset: 'BTC', priceEffect: '20.00', quantityEffect: '5.00', total: '25.00' },
      { asset: 'SOL', priceEffect: '0.00', quantityEffect: '5.00', total: '5.00' },
      { asset: 'ETH', priceEffect: '-5.00', quantityEffect: '0.00', total: '-5.00' },
    ]);
    expect(a.byVenue.map((r) => [r.key, r.total])).toEqual([
      ['Coinbase', '25.00'],
      ['Kraken', '5.00'],
      ['Anchorage', '-5.00'],
    ]);
    expect([a.totalPnl, a.fees, a.expenses, a.flows, a.residual]).toEqual(['20.50', '-3.00', '-2.00', '30.00', '0.50']);
  });

  /**
   * The price effect is rounded half-up (away from zero) to cents, and the quantity effect takes the rest:
   *   long  q0 = 0.5,  p 100.01 → 100.02: MV 50.005 → 50.01 both days, total 0.00;
   *         priceEffect = 0.5 × 0.01 = 0.005 → 0.01, quantityEffect = −0.01
   *   short q0 = −0.5, same prices: MV −50.01 both days, total 0.00; priceEffect −0.005 → −0.01, quantity 0.01
   */
  it('rounds the price effect half-up to cents', () => {
    const at = (navDate: string, asset: string, assetClass: string, quantity: string, price: string, marketValue: string) =>
      position({ navDate, asset, assetClass, quantity, price, marketValue });
    const a = pnlAttribution({
      run: runRow('2026-01-02', '1000.00'),
      previous: runRow('2026-01-01', '1000.00'),
      opening: [
        at('2026-01-01', 'LINK', 'crypto', '0.5', '100.01', '50.01'),
        at('2026-01-01', 'LINK-PERP', 'perpetual', '-0.5', '100.01', '-50.01'),
      ],
      closing: [
        at('2026-01-02', 'LINK', 'crypto', '0.5', '100.02', '50.01'),
        at('2026-01-02', 'LINK-PERP', 'perpetual', '-0.5', '100.02', '-50.01'),
      ],
      accounts: HAND_ACCOUNTS,
      ledger: [],
      currency: USD,
    });
    expect(a.byAsset).toEqual([
      { asset: 'LINK', priceEffect: '0.01', quantityEffect: '-0.01', total: '0.00' },
      { asset: 'LINK-PERP', priceEffect: '-0.01', quantityEffect: '0.01', total: '0.00' },
    ]);
    expect(a.bySourceType).toEqual([{ key: 'exchange', priceEffect: '0.00', quantityEffect: '0.00', total: '0.00' }]);
    expect([a.totalPnl, a.residual]).toEqual(['0.00', '0.00']);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('value at risk', () => {
  const Z95 = Z_SCORES[0.95];
  const Z99 = Z_SCORES[0.99];
  const options = (o: Partial<VarOptions> = {}): VarOptions => ({
    confidence: 0.95,
    horizonDays: 1,
    method: 'sample',
    windowDays: 250,
    ...o,
  });

  /**
   * One asset, exposure 1,000,000.00, closes 100, 101, 99.99, 101.9898, 99.950004 (2026-01-01 .. 05):
   *   returns +1 %, −1 %, +2 %, −2 %  →  P&L x = 10,000, −10,000, 20,000, −20,000, mean 0
   *   sample σ² = (1e8 + 1e8 + 4e8 + 4e8) / (4 − 1) = 1e9 / 3 = 333,333,333.33…, σ = 18,257.418583…
   *   VaR95 1d = 1.6448536269514722 × 18,257.418583 = 30,030.781175… → 30,030.78
   *   VaR95 10d = √10 × 30,030.781175… = 94,965.668429… → 94,965.67
   *   VaR99 1d = 2.3263478740408408 × 18,257.418583 = 42,473.106907… → 42,473.11
   *   sigmaDailyPct = 18,257.418584 / 2,000,000 × 100 = 0.912871 → 0.9129; varPct = 30,030.78 / 2e6 = 1.5015 %
   *   window 2: the last two returns only: x = 20,000, −20,000, σ² = 8e8 / 1, σ = 28,284.271247…,
   *     VaR = 1.6448536269514722 × 28,284.271247 = 46,523.486147… → 46,523.49
   *   EWMA (zero mean), weights newest first 1, 0.94, 0.8836, 0.830584 (Σ 3.654184):
   *     σ² = (0.830584 × 1e8 + 0.8836 × 1e8 + 0.94 × 4e8 + 1 × 4e8) / 3.654184 = 9.474184e8 / 3.654184
   *        = 259,269,483.97, σ = 16,101.847…, VaR = 1.6448536269514722 × σ = 26,485.181804… → 26,485.18
   */
  const oneAssetRun = runRow('2026-01-05', '2000000.00');
  const oneAsset = [position({ navDate: '2026-01-05', asset: 'AAA', marketValue: '1000000.00' })];
  const oneAssetPrices = priceSeries('AAA', '2026-01-01', ['100', '101', '99.99', '101.9898', '99.950004']);

  it('one asset, sample method: VaR = z × σ of daily P&L (demeaned, n − 1), by hand', () => {
    const v = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options(), USD);
    expect(v).toEqual({
      asOf: '2026-01-05',
      currency: USD,
      confidence: 0.95,
      horizonDays: 1,
      method: 'sample',
      lambda: null,
      windowDays: 250,
      observationsUsed: 4,
      z: 1.644854,
      sigmaDailyPct: 0.9129,
      portfolioValue: '2000000.00',
      var: '30030.78',
      varPct: 1.5015,
      componentVar: [{ asset: 'AAA', var: '30030.78' }],
    });
    expect(valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options({ horizonDays: 10 }), USD).var).toBe('94965.67');
    expect(valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options({ confidence: 0.99 }), USD).var).toBe('42473.11');
    const twoReturns = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options({ windowDays: 2 }), USD);
    expect([twoReturns.observationsUsed, twoReturns.var]).toEqual([2, '46523.49']);
    const ewma = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options({ method: 'ewma' }), USD);
    expect([ewma.lambda, ewma.var]).toEqual([0.94, '26485.18']);
  });

  it('ignores prices after the run date and cash positions', () => {
    const later = priceSeries('AAA', '2026-01-06', ['150', '50']);
    const cash = position({ navDate: '2026-01-05', asset: 'USDC', assetClass: 'stablecoin', marketValue: '500000.00' });
    const v = valueAtRisk(
      oneAssetRun,
      [...oneAsset, cash],
      [...oneAssetPrices, ...later, ...priceSeries('USDC', '2026-01-01', [1, 1, 1, 1, 1])],
      options(),
      USD,
    );
    expect([v.observationsUsed, v.var, v.componentVar]).toEqual([4, '30030.78', [{ asset: 'AAA', var: '30030.78' }]]);
  });

  /**
   * Two assets, EWMA, three returns (2026-01-01 .. 04):
   *   AAA long 1,000,000.00: closes 100, 101, 99.99, 101.9898 → +1 %, −1 %, +2 % → x_A = 10,000, −10,000, 20,000
   *   BBB short −500,000.00: closes 50, 51, 51, 49.98 → +2 %, 0 %, −2 %  → x_B = −10,000, 0, 10,000
   *   portfolio x = 0, −10,000, 30,000
   *   weights oldest → newest λ², λ, 1 = 0.8836, 0.94, 1; Σ = 2.8236 (normalised by it)
   *   σ² = (0.8836 × 0 + 0.94 × 1e8 + 1 × 9e8) / 2.8236 = 9.94e8 / 2.8236 = 352,032,865.85, σ = 18,762.538897
   *   VaR = 1.6448536269514722 × 18,762.538897 = 30,861.630155 → 30,861.63
   *   c_A = (0 + 0.94 × (−1e4)(−1e4) + 1 × 2e4 × 3e4) / 2.8236 = 6.94e8 / 2.8236
   *   c_B = (0 + 0 + 1 × 1e4 × 3e4) / 2.8236 = 3e8 / 2.8236            (c_A + c_B = σ²)
   *   component_A = VaR × 6.94 / 9.94 = 21,547.2548566 → 2,154,725.49 cents
   *   component_B = VaR × 3 / 9.94   =  9,314.3752982 →   931,437.53 cents
   *   floors 2,154,725 + 931,437 = 3,086,162, one cent short of 3,086,163: it goes to the larger remainder
   *   (0.53, B) → 21,547.25 + 9,314.38 = 30,861.63
   */
  it('two assets, EWMA (λ = 0.94, normalised weights, zero mean), with Euler components, by hand', () => {
    const run = runRow('2026-01-04', '1500000.00');
    const positions = [
      position({ navDate: '2026-01-04', asset: 'AAA', marketValue: '1000000.00' }),
      position({ navDate: '2026-01-04', asset: 'BBB', assetClass: 'perpetual', marketValue: '-500000.00' }),
    ];
    const prices = [
      ...priceSeries('AAA', '2026-01-01', ['100', '101', '99.99', '101.9898']),
      ...priceSeries('BBB', '2026-01-01', ['50', '51', '51', '49.98']),
    ];
    const v = valueAtRisk(run, positions, prices, options({ method: 'ewma' }), USD);
    expect(v.lambda).toBe(EWMA_LAMBDA);
    expect(v.observationsUsed).toBe(3);
    expect(v.var).toBe('30861.63');
    expect(v.componentVar).toEqual([
      { asset: 'AAA', var: '21547.25' },
      { asset: 'BBB', var: '9314.38' },
    ]);
  });

  it('throws 409 not_usable with fewer than two returns', () => {
    const onePrice = priceSeries('AAA', '2026-01-04', ['100', '101']);
    const e = apiError(() => valueAtRisk(runRow('2026-01-05', '2000000.00'), oneAsset, onePrice, options(), USD));
    expect([e.code, e.status]).toEqual(['not_usable', 409]);
    const e2 = apiError(() => valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, options({ windowDays: 1 }), USD));
    expect(e2.code).toBe('not_usable');
    const e3 = apiError(() => valueAtRisk(oneAssetRun, oneAsset, [], options(), USD));
    expect(e3.code).toBe('not_usable');
  });

  it.each(['sample', 'ewma'] as const)('%s: an all-cash portfolio carries no price risk: VaR 0.00, no components', (method) => {
    const cash = [
      position({ navDate: '2026-01-05', asset: 'USD', assetClass: 'fiat', marketValue: '750000.00' }),
      position({ navDate: '2026-01-05', asset: 'USDC', assetClass: 'stablecoin', marketValue: '250000.00' }),
    ];
    const prices = [...priceSeries('USD', '2026-01-01', [1, 1, 1, 1, 1]), ...priceSeries('USDC', '2026-01-01', [1, 1, 1, 1, 1])];
    const v = valueAtRisk(runRow('2026-01-05', '1000000.00'), cash, prices, options({ method }), USD);
    expect([v.var, v.varPct, v.componentVar, v.observationsUsed]).toEqual(['0.00', 0, [], 0]);
  });

  describe('on the demo fund', () => {
    let positions: PositionRow[];
    const pricesFor = new Map<number, PriceRow[]>();
    beforeAll(async () => {
      positions = await positionsAt(latest.navDate);
      for (const windowDays of [20, 250, 500, 1000]) {
        const read = await store.read(FUND, {
          prices: { heldAt: latest.navDate, from: addDays(latest.navDate, -windowDays), through: latest.navDate },
        });
        pricesFor.set(windowDays, read.prices);
      }
    });
    const demoVar = (o: Partial<VarOptions>) => {
      const opts = options(o);
      return valueAtRisk(latest, positions, pricesFor.get(opts.windowDays)!, opts, USD);
    };

    it.each(['sample', 'ewma'] as const)('%s: components sum exactly to VaR; every window is filled', (method) => {
      const riskAssets = new Set(positions.filter((p) => !['fiat', 'stablecoin'].includes(p.assetClass)).map((p) => p.asset));
      for (const windowDays of [20, 250, 500, 1000]) {
        for (const confidence of [0.95, 0.99] as const) {
          for (const horizonDays of [1, 10] as const) {
            const v = demoVar({ method, windowDays, confidence, horizonDays });
            expect(v.lambda).toBe(method === 'ewma' ? 0.94 : null);
            expect(v.observationsUsed).toBe(windowDays);
            expect(v.portfolioValue).toBe(latest.shadowNav);
            expect(v.asOf).toBe(latest.navDate);
            expect(dec(v.var).gt(0)).toBe(true);
            expect(money(total(v.componentVar.map((c) => c.var)))).toBe(v.var);
            expect(new Set(v.componentVar.map((c) => c.asset))).toEqual(riskAssets);
          }
        }
      }
    });

    it.each(['sample', 'ewma'] as const)('%s: VaR(10 days) = √10 × VaR(1 day), and VaR99 / VaR95 = z99 / z95', (method) => {
      for (const windowDays of [20, 250, 1000]) {
        const one = dec(demoVar({ method, windowDays }).var);
        const ten = dec(demoVar({ method, windowDays, horizonDays: 10 }).var);
        // Each VaR is rounded to cents on its own: |VaR10 − √10 VaR1| ≤ 0.005 (1 + √10) ≈ 0.0208.
        expect(
          ten
            .minus(one.times(dec(10).sqrt()))
            .abs()
            .toNumber(),
        ).toBeLessThanOrEqual(0.005 * (1 + Math.sqrt(10)));
        const v99 = dec(demoVar({ method, windowDays, confidence: 0.99 }).var);
        const ratio = dec(Z99).div(Z95);
        const slack = 1e-6 * v99.toNumber() + 0.005 * (1 + ratio.toNumber());
        expect(v99.minus(one.times(ratio)).abs().toNumber()).toBeLessThanOrEqual(slack);
      }
    });
  });

  it('property: component VaR sums exactly to VaR for random portfolios and price paths', () => {
    const assetArb = (days: number) =>
      fc.record({
        cents: fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }),
        assetClass: fc.constantFrom('crypto', 'perpetual', 'crypto', 'stablecoin'),
        // Closes 50.00 .. 200.00: daily moves of −75 % .. +300 %, wild but within what money in cents (and the
        // doubles VaR computes with, exact to 2^53 cents) can carry.
        closes: fc.array(fc.integer({ min: 5_000, max: 20_000 }), { minLength: days, maxLength: days }),
      });
    // At least one asset with price risk (an all-cash portfolio has its own test above).
    const portfolioArb = fc
      .integer({ min: 3, max: 15 })
      .chain((days) => fc.array(assetArb(days), { minLength: 1, maxLength: 5 }))
      .filter((assets) => assets.some((a) => a.assetClass !== 'stablecoin'));
    fc.assert(
      fc.property(
        portfolioArb,
        fc.constantFrom('sample', 'ewma'),
        fc.constantFrom(0.95, 0.99),
        fc.constantFrom(1, 10),
        (assets, method, confidence, horizonDays) => {
          const run = runRow('2026-03-01', '100000000.00');
          const positions = assets.map((a, i) =>
            position({ navDate: run.navDate, asset: `A${i}`, assetClass: a.assetClass, marketValue: money(dec(a.cents).div(100)) }),
          );
          const start = addDays(run.navDate, -(assets[0]!.closes.length - 1));
          const prices = assets.flatMap((a, i) =>
            priceSeries(
              `A${i}`,
              start,
              a.closes.map((c) => dec(c).div(100).toFixed(2)),
            ),
          );
          const v = valueAtRisk(run, positions, prices, { method, confidence, horizonDays, windowDays: 20 }, USD);
          expect(dec(v.var).gte(0)).toBe(true);
          expect(money(total(v.componentVar.map((c) => c.var)))).toBe(v.var);
          expect(v.componentVar.length).toBe(positions.filter((p) => p.assetClass !== 'stablecoin').length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('trial balance', () => {
  it('balances at every month end, each account on one side', async () => {
    const monthEnds = runs.map((r) => r.navDate).filter((d) => addDays(d, 1).endsWith('-01'));
    expect(monthEnds.length).toBeGreaterThanOrEqual(13);
    for (const date of monthEnds) {
      const ledger = await ledgerThrough(date);
      const tb = trialBalance(accounts, ledger, date, USD);
      expect(tb.asOf).toBe(date);
      expect(tb.totalDebit).toBe(tb.totalCredit);
      expect(tb.balanced).toBe(true);
      expect(money(total(tb.accounts.map((a) => a.debit)))).toBe(tb.totalDebit);
      expect(money(total(tb.accounts.map((a) => a.credit)))).toBe(tb.totalCredit);
      for (const row of tb.accounts) {
        expect(row.debit === '0.00' || row.credit === '0.00', `${date} ${row.code}`).toBe(true);
        expect(dec(row.debit).gte(0) && dec(row.credit).gte(0)).toBe(true);
      }
      // Codes ascending, each posted account once.
      expect(tb.accounts.map((a) => a.code)).toEqual([...new Set(ledger.map((l) => l.accountCode))].sort());
    }
  });

  it('reports an unbalanced ledger as such', () => {
    const tb = trialBalance(ACCOUNTS, [line('JE1', '3000', '-9.99'), line('JE1', '1000', '10.00')], '2026-01-02', USD);
    expect(tb).toMatchObject({ asOf: '2026-01-02', currency: USD, totalDebit: '10.00', totalCredit: '9.99', balanced: false });
    expect(tb.accounts).toEqual([
      { code: '1000', name: 'Cash at bank', type: 'asset', debit: '10.00', credit: '0.00' },
      { code: '3000', name: 'Capital contributions', type: 'equity', debit: '0.00', credit: '9.99' },
    ]);
    // A posted account whose balance nets to nil is listed with zeros.
    const nil = trialBalance(ACCOUNTS, [line('JE1', '1000', '5.00'), line('JE2', '1000', '-5.00')], '2026-01-02', USD);
    expect(nil.accounts).toEqual([{ code: '1000', name: 'Cash at bank', type: 'asset', debit: '0.00', credit: '0.00' }]);
    expect(nil.balanced).toBe(true);
  });

  it('net assets per the ledger equal the shadow NAV at usable runs (and exceed a partial run’s)', async () => {
    const usable = runs.filter(isUsable);
    const sample = [...usable.filter((_, i) => i % 20 === 0), latest];
    for (const run of sample) {
      expect(money(netAssets(accounts, await ledgerThrough(run.navDate))), run.navDate).toBe(run.shadowNav);
    }
    const partial = runs.find((r) => r.status === 'partial')!;
    expect(netAssets(accounts, await ledgerThrough(partial.navDate)).gt(partial.shadowNav!)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('capital accounts', () => {
  const refOf = (i: number) => `inv_${i.toString(16).padStart(16, '0')}`;

  async function accountsFor(run: NavRunRow) {
    const openingDate = openingRunDate(runs, run);
    const data = await store.read(FUND, { capital: { navDates: openingDate ? [openingDate, run.navDate] : [run.navDate] } });
    const refs = new Map(data.investors.map((inv, i) => [inv.investorId, refOf(i)]));
    return {
      openingDate,
      data,
      result: capitalAccounts({ run, openingDate, investors: data.investors, rows: data.capital, refs, currency: USD }),
    };
  }

  it('the latest complete run: closing capital sums to NAV, each investor rolls forward, ownership sums to 100 %', async () => {
    const run = latestCompleteRun(runs);
    expect(run).toBe(runs.at(-1)); // a complete run that did not reconcile: capital accounts still strike at it
    const { openingDate, result } = await accountsFor(run);

    const monthStart = `${run.navDate.slice(0, 8)}01`;
    const expectedOpening = runs.filter((r) => r.status === 'complete' && r.navDate < monthStart).at(-1)!;
    expect(openingDate).toBe(expectedOpening.navDate);
    expect(result.openingNavDate).toBe(expectedOpening.navDate);
    expect(result.navRunDate).toBe(run.navDate);

    expect(result.totals.closingCapital).toBe(run.shadowNav);
    expect(result.totals.openingCapital).toBe(expectedOpening.shadowNav);
    expect(result.investors.length).toBeGreaterThanOrEqual(30);
    for (const inv of result.investors) {
      expect(inv.investorRef).toMatch(/^inv_[0-9a-f]{16}$/);
      const rolled = dec(inv.openingCapital)
        .plus(inv.contributions)
        .minus(inv.withdrawals)
        .plus(inv.pnlAllocation)
        .minus(inv.mgmtFee)
        .minus(inv.perfFee);
      expect(money(rolled), inv.investorRef).toBe(inv.closingCapital);
    }
    for (const f of ['openingCapital', 'contributions', 'withdrawals', 'pnlAllocation', 'mgmtFee', 'perfFee', 'closingCapital'] as const) {
      expect(money(total(result.investors.map((i) => i[f]))), f).toBe(result.totals[f]);
    }
    const ownership = result.investors.reduce((s, i) => s + (i.ownershipPct ?? 0), 0);
    expect(Math.abs(ownership - 100)).toBeLessThanOrEqual(0.01);
    // Largest closing capital first.
    for (let i = 1; i < result.investors.length; i++) {
      expect(dec(result.investors[i - 1]!.closingCapital).gte(result.investors[i]!.closingCapital)).toBe(true);
    }
  });

  it("in the fund's first month there is no opening run: opening capital 0, closing = contributions + P&L − fees", async () => {
    const firstMonthEnd = runs.find((r) => r.status === 'complete' && addDays(r.navDate, 1).endsWith('-01'))!;
    expect(firstMonthEnd.navDate.slice(0, 7)).toBe(runs[0]!.navDate.slice(0, 7));
    const { openingDate, result } = await accountsFor(firstMonthEnd);
    expect(openingDate).toBeNull();
    expect(result.totals.openingCapital).toBe('0.00');
    expect(result.totals.closingCapital).toBe(firstMonthEnd.shadowNav);
    const flows = total(runs.filter((r) => r.navDate <= firstMonthEnd.navDate).map((r) => r.netFlows));
    expect(money(dec(result.totals.contributions).minus(result.totals.withdrawals))).toBe(money(flows));
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
    const missing = apiError(() => usableRunOn(runs, '1999-01-01'));
    expect([missing.code, missing.status]).toEqual(['not_found', 404]);
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

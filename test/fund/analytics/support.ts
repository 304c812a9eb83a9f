/**
 * Shared helpers of the fund analytics tests (`test/fund/analytics/*.test.ts`): hand-made rows, the error
 * catcher, and the demo fund as the embedded store serves it (live bindings filled by {@link loadDemoFund}).
 */
import { expect } from 'vitest';
import { dec, type Dec } from '../../../lib/decimal.ts';
import { ApiError } from '../../../lib/errors.ts';
import { addDays, latestUsableRun } from '../../../lib/fund/analytics/runs.ts';
import type { VarOptions } from '../../../lib/fund/analytics/var.ts';
import { embeddedStore } from '../../../lib/fund/embedded-store.ts';
import type {
  AccountBalanceRow,
  AccountRow,
  LedgerLineRow,
  LedgerSumRow,
  NavRunRow,
  PositionRow,
  PriceRow,
} from '../../../lib/fund/rows.ts';
import type { FundStore } from '../../../lib/fund/store.ts';
import { DEMO_FUND } from '../../../lib/fund/synthetic.ts';
import { thrown } from '../../support/thrown.ts';

/** Net assets per the ledger (Σ asset balances − Σ liability balances), which equals NAV on a complete run date. */
export function netAssets(accounts: readonly AccountRow[], ledger: readonly LedgerSumRow[]): Dec {
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

export const FUND = DEMO_FUND.fundId;
export const USD = 'USD';

/** A complete, reconciled run (override any field). */
export function runRow(navDate: string, shadowNav: string | null, extra: Partial<NavRunRow> = {}): NavRunRow {
  return { navDate, status: 'complete', shadowNav, adminNav: shadowNav, reconStatus: 'matched', netFlows: '0.00', ...extra };
}

/** VaR options of the tests: 95 % confidence, one day, the sample method over 250 days (override any field). */
export function varOptions(o: Partial<VarOptions> = {}): VarOptions {
  return { confidence: 0.95, horizonDays: 1, method: 'sample', windowDays: 250, ...o };
}

/** A live position; quantity and price default to the market value at 1.00. */
export function position(p: Partial<PositionRow> & Pick<PositionRow, 'asset' | 'marketValue'>): PositionRow {
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
export function line(
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
export function priceSeries(asset: string, start: string, closes: readonly (number | string)[]): PriceRow[] {
  return closes.map((c, i) => ({ asset, priceDate: addDays(start, i), price: String(c) }));
}

/** What `fn` threw, as an ApiError (fails the test otherwise). */
export function apiError(fn: () => unknown): ApiError {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

// ---------------------------------------------------------------------------------------------------------
// The demo fund, generated once for the file

export let store: FundStore;
export let runs: NavRunRow[];
export let latest: NavRunRow;
export let accounts: AccountRow[];

/** Loads the demo fund into the bindings above; each file that reads them runs it in `beforeAll`. */
export async function loadDemoFund(): Promise<void> {
  store = embeddedStore([DEMO_FUND]);
  const index = await store.index(FUND);
  if (!index) throw new Error('demo fund missing from the embedded store');
  // Every run of the fund: the index holds the last year's, a read from the first run's date all of them.
  runs = (await store.read(FUND, { runs: { from: index.firstRunDate! } })).runs;
  latest = latestUsableRun(runs);
  accounts = (await store.read(FUND, { ledger: { after: null, through: runs[0]!.navDate } })).accounts;
}

export async function positionsAt(...dates: string[]): Promise<PositionRow[]> {
  return (await store.read(FUND, { positions: { navDates: dates } })).positions;
}

/** The store's `ledger` read: the lines dated after `after` through `date`, summed per account, asset and venue. */
export async function ledgerThrough(date: string, after: string | null = null): Promise<LedgerSumRow[]> {
  return (await store.read(FUND, { ledger: { after, through: date } })).ledger;
}

/** The store's `balances` read: each account's debits and credits summed through `date`. */
export async function balancesThrough(date: string): Promise<AccountBalanceRow[]> {
  return (await store.read(FUND, { balances: { through: date } })).balances;
}

/** Ledger lines summed per account in decimal.js, by code: what a store's `balances` read gives for them. */
export function balancesOf(lines: readonly LedgerSumRow[]): AccountBalanceRow[] {
  const sums = new Map<string, [Dec, Dec]>();
  for (const l of lines) {
    const [d, c] = sums.get(l.accountCode) ?? [dec(0), dec(0)];
    sums.set(l.accountCode, [d.plus(l.debit), c.plus(l.credit)]);
  }
  return [...sums]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([accountCode, [d, c]]) => ({ accountCode, debit: d.toFixed(2), credit: c.toFixed(2) }));
}

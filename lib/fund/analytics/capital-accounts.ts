/**
 * Investors' capital accounts for a NAV run, month to date (spec §2: the latest complete run).
 *
 * Stores keep each investor's account cumulatively since inception at every complete run; the period's
 * figures are the difference between the run and the opening run (the latest complete run before the first
 * day of the run's month; none in the fund's first month, when opening capital is 0):
 *   closingCapital = openingCapital + contributions − withdrawals + pnlAllocation − mgmtFee − perfFee
 * pnlAllocation is the investor's share of trading P&L less fund expenses; perfFee is the change in the
 * accrued performance fee (negative when an accrual reverses). ownershipPct = closing / Σ closing × 100.
 * Σ closingCapital equals the run's NAV when the store's allocations tie to it (they do for the synthetic
 * funds; the test suite checks it). Investors leave only as their pseudonymous `investorRef`.
 */
import { D, dec, percentOf, sum, toMoney, type Dec } from '../../decimal.ts';
import type { CapitalRow, InvestorRow, NavRunRow } from '../rows.ts';

const FIGURES = ['openingCapital', 'contributions', 'withdrawals', 'pnlAllocation', 'mgmtFee', 'perfFee', 'closingCapital'] as const;
type Figure = (typeof FIGURES)[number];

/** One investor's capital account for the period. Money as decimal strings. */
export type CapitalAccountView = { investorRef: string; shareClass: string } & Record<Figure, string> & { ownershipPct: number | null };

/** The date capital accounts of a run open at: the latest complete run before the run's month, or null. */
export function openingRunDate(runs: readonly NavRunRow[], run: NavRunRow): string | null {
  const monthStart = `${run.navDate.slice(0, 8)}01`;
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]!;
    if (r.navDate < monthStart && r.status === 'complete' && r.shadowNav !== null) return r.navDate;
  }
  return null;
}

/**
 * Capital accounts of `run`.
 * @param rows cumulative capital rows at the run and at `openingDate`
 * @param refs investorId → investorRef (pseudonyms; see `lib/redaction.ts`)
 */
export function capitalAccounts(input: {
  run: NavRunRow;
  openingDate: string | null;
  investors: readonly InvestorRow[];
  rows: readonly CapitalRow[];
  refs: ReadonlyMap<string, string>;
  currency: string;
}) {
  const classOf = new Map(input.investors.map((i) => [i.investorId, i.shareClassId]));
  const opening = new Map(input.rows.filter((r) => r.navDate === input.openingDate).map((r) => [r.investorId, r]));
  const closing = input.rows.filter((r) => r.navDate === input.run.navDate);
  const zero = new D(0);
  const accounts = closing.map((close) => {
    const open = opening.get(close.investorId);
    const delta = (field: 'contributions' | 'withdrawals' | 'pnlAllocation' | 'mgmtFee' | 'perfFee') =>
      dec(close[field]).minus(open ? open[field] : 0);
    const figures: Record<Figure, Dec> = {
      openingCapital: open ? dec(open.capital) : zero,
      contributions: delta('contributions'),
      withdrawals: delta('withdrawals'),
      pnlAllocation: delta('pnlAllocation'),
      mgmtFee: delta('mgmtFee'),
      perfFee: delta('perfFee'),
      closingCapital: dec(close.capital),
    };
    return { ref: input.refs.get(close.investorId)!, shareClass: classOf.get(close.investorId) ?? 'unknown', figures };
  });
  const active = accounts.filter((a) => FIGURES.some((f) => !a.figures[f].isZero()));
  const totals = Object.fromEntries(FIGURES.map((f) => [f, sum(active.map((a) => a.figures[f]))])) as Record<Figure, Dec>;
  return {
    navRunDate: input.run.navDate,
    openingNavDate: input.openingDate,
    currency: input.currency,
    investors: active
      .sort((a, b) => b.figures.closingCapital.cmp(a.figures.closingCapital) || (a.ref < b.ref ? -1 : 1))
      .map((a) => ({
        investorRef: a.ref,
        shareClass: a.shareClass,
        ...(Object.fromEntries(FIGURES.map((f) => [f, toMoney(a.figures[f])])) as Record<Figure, string>),
        ownershipPct: percentOf(a.figures.closingCapital, totals.closingCapital),
      })),
    totals: Object.fromEntries(FIGURES.map((f) => [f, toMoney(totals[f])])) as Record<Figure, string>,
  };
}

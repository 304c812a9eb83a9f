/**
 * Investors' capital accounts for a NAV run, month to date (docs/fund-data.md#nav-runs-and-which-one-an-endpoint-reads: the latest complete run).
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
import { D, addCents, centsOf, dec, moneyOfCents, percentOf, percentOfCentsNear, sum, toMoney, type Dec } from '../../decimal.ts';
import type { CapitalRow, InvestorClassRow, NavRunRow } from '../rows.ts';

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

/** What {@link capitalAccounts} computes from. */
export interface CapitalAccountsInput {
  run: NavRunRow;
  openingDate: string | null;
  investors: readonly InvestorClassRow[];
  rows: readonly CapitalRow[];
  refs: ReadonlyMap<string, string>;
  currency: string;
}

/**
 * Capital accounts of `run`. Computed in integer cents when every amount has two decimals and every sum
 * stays a safe integer (ownership: round-half-up of closing × 10^6 / Σ closing, in BigInt, which is what
 * decimal.js gives for any denominator below 10^35), else in decimal.js; both give the same answer.
 * @param input.rows cumulative capital rows at the run and at `openingDate`
 * @param input.refs investorId → investorRef (pseudonyms; see `lib/redaction.ts`)
 */
export function capitalAccounts(input: CapitalAccountsInput) {
  return capitalAccountsInCents(input) ?? capitalAccountsInDecimals(input);
}

/**
 * `round(part × 100 / whole, 4 dp)` half away from zero, as a JSON number (a zero as +0); null when `whole`
 * is 0. In doubles when {@link percentOfCentsNear} proves the rounding (any share not within reach of a
 * half-way point), else in BigInt.
 */
function percentOfCents(part: number, whole: number): number | null {
  if (whole === 0) return null;
  const near = percentOfCentsNear(part, whole);
  if (near !== null) return near === 0 ? 0 : near;
  const n = BigInt(part) * 1_000_000n;
  const d = BigInt(whole);
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return Number(neg && q !== 0n ? -q : q) / 10_000;
}

/** Cumulative fields of a capital row, in the order of {@link FIGURES} 1–5 (contributions … perfFee). */
const FLOWS = ['contributions', 'withdrawals', 'pnlAllocation', 'mgmtFee', 'perfFee'] as const;

/**
 * {@link capitalAccounts} in integer cents; null when an amount has another shape or a sum passes 2^53 cents.
 * Linear in the rows: the figures go to one Float64Array (7 per investor, no object per figure), investors
 * are ordered by sorting their indices, and each answer row is one object literal.
 */
function capitalAccountsInCents(input: CapitalAccountsInput) {
  const openingRows: CapitalRow[] = [];
  const closing: CapitalRow[] = [];
  for (const r of input.rows) {
    if (r.navDate === input.run.navDate) closing.push(r);
    if (r.navDate === input.openingDate) openingRows.push(r);
  }
  // Investors and opening rows usually come sorted by investor id, as the closing rows do (the stores read
  // them so): they are merge-joined, or else matched by position and through a Map only where they do not
  // line up ({@link aligned}). Building Maps of every investor grew faster than linearly (16× the investors:
  // 70× the time).
  const closingSorted = ascendingIds(closing);
  const investorOf = aligned(input.investors, closingSorted);
  const openingOf = aligned(openingRows, closingSorted);
  const figures = new Float64Array(closing.length * 7);
  const active: number[] = [];
  // Every lookup by investor id happens here, in row order; the answer, built in sorted order, reads these
  // arrays by index (Map lookups in sorted order missed the cache: most of the time at 32,000 investors).
  const refs = new Array<string>(closing.length);
  const classes = new Array<string>(closing.length);
  for (let k = 0; k < closing.length; k++) {
    const close = closing[k]!;
    const open = openingOf(close.investorId);
    refs[k] = input.refs.get(close.investorId)!;
    classes[k] = investorOf(close.investorId)?.shareClassId ?? 'unknown';
    const base = k * 7;
    const openCap = open ? centsOf(open.capital) : 0;
    const closeCap = centsOf(close.capital);
    if (openCap === null || closeCap === null) return null;
    figures[base] = openCap;
    figures[base + 6] = closeCap;
    let nonZero = openCap !== 0 || closeCap !== 0;
    for (let f = 0; f < 5; f++) {
      const c = centsOf(close[FLOWS[f]!]);
      const o = open ? centsOf(open[FLOWS[f]!]) : 0;
      if (c === null || o === null) return null;
      const d = c - o;
      if (!Number.isSafeInteger(d)) return null;
      figures[base + 1 + f] = d;
      if (d !== 0) nonZero = true;
    }
    if (nonZero) active.push(k);
  }
  const totals = new Array<number>(7).fill(0);
  for (const k of active) {
    for (let f = 0; f < 7; f++) {
      const t = addCents(totals[f]!, figures[k * 7 + f]!);
      if (t === null) return null;
      totals[f] = t;
    }
  }
  // Sort keys in flat arrays read by index (a Map lookup per comparison cost n log n hash lookups).
  const closingCents = new Float64Array(closing.length);
  for (const k of active) closingCents[k] = figures[k * 7 + 6]!;
  active.sort((a, b) => closingCents[b]! - closingCents[a]! || (refs[a]! < refs[b]! ? -1 : 1));
  const m = (k: number, f: number) => moneyOfCents(figures[k * 7 + f]!);
  return {
    navRunDate: input.run.navDate,
    openingNavDate: input.openingDate,
    currency: input.currency,
    investors: active.map((k) => ({
      investorRef: refs[k]!,
      shareClass: classes[k]!,
      openingCapital: m(k, 0),
      contributions: m(k, 1),
      withdrawals: m(k, 2),
      pnlAllocation: m(k, 3),
      mgmtFee: m(k, 4),
      perfFee: m(k, 5),
      closingCapital: m(k, 6),
      ownershipPct: percentOfCents(figures[k * 7 + 6]!, totals[6]!),
    })),
    totals: Object.fromEntries(FIGURES.map((f, i) => [f, moneyOfCents(totals[i]!)])) as Record<Figure, string>,
  };
}

/** True when the rows' investor ids strictly ascend (so they are also unique). */
function ascendingIds(rows: readonly { investorId: string }[]): boolean {
  for (let i = 1; i < rows.length; i++) if (!(rows[i - 1]!.investorId < rows[i]!.investorId)) return false;
  return true;
}

/**
 * A lookup by investor id over `rows`, for ids asked in the order of the closing rows. When both the rows'
 * ids and the asked ids strictly ascend (the stores read rows sorted by investor), a merge join: the pointer
 * moves past smaller ids, and an id it does not stop on is absent. Otherwise the next row when its id
 * matches, else a Map of all rows by id, built on the first miss (ids are unique per run and fund, the
 * stores' primary keys, so both find the row a Map would).
 * @param askedAscending the asked ids strictly ascend (checked by the caller)
 */
function aligned<R extends { investorId: string }>(rows: readonly R[], askedAscending: boolean): (investorId: string) => R | undefined {
  let next = 0;
  if (askedAscending && ascendingIds(rows)) {
    return (investorId) => {
      while (next < rows.length && rows[next]!.investorId < investorId) next++;
      const row = rows[next];
      return row !== undefined && row.investorId === investorId ? row : undefined;
    };
  }
  let byId: Map<string, R> | undefined;
  return (investorId) => {
    const row = rows[next];
    if (row !== undefined && row.investorId === investorId) {
      next++;
      return row;
    }
    byId ??= new Map(rows.map((r) => [r.investorId, r]));
    return byId.get(investorId);
  };
}

/** {@link capitalAccounts} in decimal.js (any decimal strings); exported as the reference of its property test. */
export function capitalAccountsInDecimals(input: CapitalAccountsInput) {
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

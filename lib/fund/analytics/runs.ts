/**
 * NAV runs: which are usable, which one an endpoint reads, and the run-level figures (reconciliation
 * difference, NAV history, month- and year-to-date returns).
 *
 * A run is usable when it is complete and its shadow NAV matched the administrator's within tolerance
 * (docs/fund-data.md). "Current" figures come from the latest usable run.
 */
import * as z from 'zod';
import { lazy } from '../../validation.ts';
import { D, addCents, centsOf, dec, moneyOfCents, pct4, pct4Near, toMoney, type Dec } from '../../decimal.ts';
import { NotFoundError, NotUsableError } from '../../errors.ts';
import { FundFactsProblem } from '../facts-problem.ts';
import type { NavRunRow } from '../rows.ts';
import { date as isoDate, type NavHistoryRow } from '../schemas.ts';

/** True when the run is complete and reconciled (matched). */
export function isUsable(run: NavRunRow): boolean {
  return run.status === 'complete' && run.reconStatus === 'matched' && run.shadowNav !== null;
}

/**
 * The latest usable run.
 * @param runs oldest first
 * @throws {NotFoundError} 404 when the fund has no usable run yet
 */
export function latestUsableRun(runs: readonly NavRunRow[]): NavRunRow {
  for (let i = runs.length - 1; i >= 0; i--) if (isUsable(runs[i]!)) return runs[i]!;
  throw new NotFoundError('The fund has no usable NAV run yet.');
}

/**
 * The latest complete run (reconciled or not): the run capital accounts are struck at (docs/fund-data.md#nav-runs-and-which-one-an-endpoint-reads).
 * @throws {NotFoundError} 404 when no run has completed
 */
export function latestCompleteRun(runs: readonly NavRunRow[]): NavRunRow {
  for (let i = runs.length - 1; i >= 0; i--) if (runs[i]!.status === 'complete' && runs[i]!.shadowNav !== null) return runs[i]!;
  throw new NotFoundError('The fund has no complete NAV run yet.');
}

/** How far before the latest usable run a fund's index holds its runs: a year and a day, in calendar days. */
export const INDEX_RUN_DAYS = 366;

/**
 * Where a fund's index starts its runs: {@link INDEX_RUN_DAYS} before the latest usable run, so that the
 * index holds every run an answer about the latest year needs (the latest usable and complete runs, the
 * chains of the month- and year-to-date returns, a capital account's opening run, an exposure series or a
 * NAV history of up to a year, a P&L attribution of a day in it) and not the fund's whole history.
 * @param runs every run of the fund, oldest first
 * @returns null when the index holds every run: no usable run, or none before that day
 */
export function indexRunsFrom(runs: readonly NavRunRow[]): string | null {
  let latest: NavRunRow | undefined;
  for (let i = runs.length - 1; i >= 0 && !latest; i--) if (isUsable(runs[i]!)) latest = runs[i];
  if (!latest) return null;
  const from = addDays(latest.navDate, -INDEX_RUN_DAYS);
  return runs.some((r) => r.navDate < from && isUsable(r)) ? from : null;
}

/**
 * The runs an answer about the days from `from` on reads: every run dated on or after the latest usable run
 * dated before `from` (which starts a return's chain or precedes a span), or every run when none is.
 * @param runs oldest first
 * @returns oldest first
 */
export function runsFrom(runs: readonly NavRunRow[], from: string): NavRunRow[] {
  for (let i = runs.length - 1; i >= 0; i--) if (runs[i]!.navDate < from && isUsable(runs[i]!)) return runs.slice(i);
  return runs.slice();
}

/** The allow-list of the run dates a 404 quotes (fund data: they leave through the redaction step). */
export const runRangeSchema = lazy(() => z.strictObject({ firstRunDate: isoDate(), lastRunDate: isoDate() }));

/**
 * The usable run on `date`.
 * @param runs oldest first, through the fund's last run
 * @param firstRunDate the date of the fund's first run, when `runs` starts later (a window of {@link runsFrom})
 * @throws {FundFactsProblem} 404 when no run is dated `date`, giving the dates of the first and last run
 *   (the caller asks again within them; the NAV history lists each run) once they passed the redaction
 * @throws {NotFoundError} 404 when the fund has no run at all
 * @throws {NotUsableError} 409 when that run is not complete or not reconciled
 */
export function usableRunOn(runs: readonly NavRunRow[], date: string, firstRunDate: string | null = runs[0]?.navDate ?? null): NavRunRow {
  const run = runs.find((r) => r.navDate === date);
  if (!run) {
    if (runs.length === 0 || firstRunDate === null) throw new NotFoundError('The fund has no NAV run yet.');
    throw new FundFactsProblem(
      { firstRunDate, lastRunDate: runs[runs.length - 1]!.navDate },
      runRangeSchema(),
      ({ firstRunDate, lastRunDate }) =>
        new NotFoundError(
          `No NAV run is dated on that day. This fund's NAV runs are dated from ${firstRunDate} to ${lastRunDate}; the NAV history lists each one and whether it is usable.`,
        ),
    );
  }
  if (!isUsable(run)) {
    throw new NotUsableError(
      run.status !== 'complete'
        ? `The NAV run of that day is ${run.status}, not complete.`
        : 'The NAV run of that day did not reconcile with the administrator.',
    );
  }
  return run;
}

/** The latest usable run dated before `date`, or null. */
export function previousUsableRun(runs: readonly NavRunRow[], date: string): NavRunRow | null {
  for (let i = runs.length - 1; i >= 0; i--) if (runs[i]!.navDate < date && isUsable(runs[i]!)) return runs[i]!;
  return null;
}

/** The shadow NAV of a run that has one (usable and complete runs always do). */
export function navOf(run: NavRunRow): Dec {
  return dec(run.shadowNav ?? '0');
}

/**
 * (shadow − administrator) / administrator in basis points, 2 dp (half away from zero); null when either NAV
 * is missing or the administrator's is zero. Exact in integers (doubles, or BigInt past 2^53) when both are
 * two-decimal money texts (every stored NAV), else in decimal.js ({@link differenceBpsInDecimals}); both give the same number.
 */
export function differenceBps(run: NavRunRow): number | null {
  if (run.shadowNav === null || run.adminNav === null) return null;
  const shadow = centsOf(run.shadowNav);
  const admin = centsOf(run.adminNav);
  if (shadow === null || admin === null) return differenceBpsInDecimals(run);
  if (admin === 0) return null;
  // Hundredths of a basis point: |s − a| × 10⁶ / |a|, rounded half up, then signed. In doubles while every
  // product is a safe integer (the two NAVs differ by less than about 90 million), else in BigInt: the NAV
  // history makes one per run, and the BigInts each one allocated were garbage.
  const diff = shadow - admin;
  const scaled = Math.abs(diff) * 1_000_000;
  const base = Math.abs(admin);
  if (Number.isSafeInteger(diff) && scaled + base <= Number.MAX_SAFE_INTEGER) {
    // The rounded quotient's floor is the true one or one more; the remainder, exact, says which.
    let q = Math.floor(scaled / base);
    let r = scaled - q * base;
    if (r < 0) {
      q--;
      r += base;
    }
    if (2 * r >= base) q++;
    return (diff < 0 !== admin < 0 ? -q : q) / 100;
  }
  const num = BigInt(shadow - admin) * 1_000_000n;
  const den = BigInt(admin);
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  let q = n / d;
  if ((n % d) * 2n >= d) q++;
  if (q > BigInt(Number.MAX_SAFE_INTEGER)) return differenceBpsInDecimals(run);
  const hundredths = Number(q);
  return (num < 0n !== den < 0n ? -hundredths : hundredths) / 100;
}

/** {@link differenceBps} in decimal.js (40 digits); the reference of its property test. */
export function differenceBpsInDecimals(run: NavRunRow): number | null {
  if (run.shadowNav === null || run.adminNav === null) return null;
  const admin = dec(run.adminNav);
  if (admin.isZero()) return null;
  return dec(run.shadowNav).minus(admin).div(admin).times(10_000).toDecimalPlaces(2, D.ROUND_HALF_UP).toNumber();
}

/**
 * A money text as the answers give it (2 dp): the text itself when it already is (a stored NAV always is:
 * no leading zero, no negative zero), else through integer cents when it has that shape, else decimal.js.
 */
function moneyText(text: string): string {
  const cents = centsOf(text);
  if (cents === null) return toMoney(dec(text));
  const start = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const canonical = (start === 0 || cents !== 0) && (text.charCodeAt(start) !== 48 /* 0 */ || text.length - start === 4);
  return canonical ? text : moneyOfCents(cents);
}

/** `date` shifted by `days` calendar days (UTC). */
export function addDays(date: string, days: number): string {
  const t = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * Time-weighted return (percent, 4 dp) of the fund from the last usable run before `periodStart` to `run`,
 * chain-linking usable runs: r = Π (NAV_t − F_t) / NAV_(t−1) − 1, where F_t are the net flows dealt in
 * (t−1, t] (flows are dealt at the day's NAV, so they are in NAV_t). When no usable run precedes the period
 * (the fund launched in it), the chain starts at the first usable run in it. Source: CFA Program, GIPS
 * (2020) time-weighted return with daily valuation.
 *
 * Computed in integer cents and doubles when every amount is a two-decimal money text and the error bound
 * proves the 4-dp rounding ({@link twrInDoubles}), else in decimal.js ({@link timeWeightedReturnPctInDecimals});
 * both give the same figure.
 * @param runs oldest first; `run` among them
 * @returns null when no usable run starts the chain
 */
export function timeWeightedReturnPct(runs: readonly NavRunRow[], run: NavRunRow, periodStart: string): number | null {
  const fast = twrInDoubles(runs, run, periodStart);
  return fast === undefined ? timeWeightedReturnPctInDecimals(runs, run, periodStart) : fast;
}

/**
 * Walks the chain of {@link timeWeightedReturnPct}: `flow(row)` for each run after the chain's start up to
 * `run`, then `link(prev, row)` when that run is the next usable one (after its own flow).
 * @returns false when no usable run starts the chain
 */
function walkChain(
  runs: readonly NavRunRow[],
  run: NavRunRow,
  periodStart: string,
  flow: (row: NavRunRow) => void,
  link: (prev: NavRunRow, row: NavRunRow) => void,
): boolean {
  const usable = runs.filter((r) => isUsable(r) && r.navDate <= run.navDate);
  let startIndex = -1;
  for (let i = usable.length - 1; i >= 0; i--) {
    if (usable[i]!.navDate < periodStart) {
      startIndex = i;
      break;
    }
  }
  if (startIndex === -1) startIndex = usable.findIndex((r) => r.navDate >= periodStart);
  if (startIndex === -1) return false;
  let r = startIndex + 1;
  let prev = usable[startIndex]!;
  for (const row of runs) {
    if (row.navDate <= prev.navDate) continue;
    if (row.navDate > run.navDate) break;
    flow(row);
    if (row.navDate === usable[r]?.navDate) {
      link(prev, row);
      prev = row;
      r++;
    }
  }
  return true;
}

/** {@link timeWeightedReturnPct} in decimal.js (40 digits); the reference of its property test. */
export function timeWeightedReturnPctInDecimals(runs: readonly NavRunRow[], run: NavRunRow, periodStart: string): number | null {
  let growth = new D(1);
  let flows = new D(0);
  const started = walkChain(
    runs,
    run,
    periodStart,
    (row) => {
      flows = flows.plus(row.netFlows);
    },
    (prev, row) => {
      const opening = navOf(prev);
      if (!opening.isZero()) growth = growth.times(navOf(row).minus(flows).div(opening));
      flows = new D(0);
    },
  );
  return started ? pct4(growth.minus(1).times(100)) : null;
}

/**
 * {@link timeWeightedReturnPct} with the NAVs and flows in exact integer cents and the chain's product in
 * doubles: each link's quotient and product is rounded once (relative error ≤ 2⁻⁵³ each, so ≤ (2n + 2)·2⁻⁵³
 * over n links, taken 4 times over), and {@link pct4Near} keeps the result only when that bound proves its
 * 4-dp rounding; decimal.js's own rounding at 40 digits is far below it.
 * @returns the figure (null: no chain start), or undefined when the decimal.js path must decide (another
 *   money shape, a sum past 2^53 cents, a result within the bound of a rounding tie)
 */
export function twrInDoubles(runs: readonly NavRunRow[], run: NavRunRow, periodStart: string): number | null | undefined {
  let growth = 1;
  let flows = 0;
  let links = 0;
  let exact = true;
  const started = walkChain(
    runs,
    run,
    periodStart,
    (row) => {
      const f = centsOf(row.netFlows);
      const sum = f === null ? null : addCents(flows, f);
      if (sum === null) exact = false;
      else flows = sum;
    },
    (prev, row) => {
      const opening = prev.shadowNav === null ? 0 : centsOf(prev.shadowNav);
      const closing = row.shadowNav === null ? 0 : centsOf(row.shadowNav);
      const numerator = opening === null || closing === null ? null : addCents(closing, -flows);
      if (opening === null || numerator === null) exact = false;
      else if (opening !== 0) {
        growth *= numerator / opening;
        links++;
      }
      flows = 0;
    },
  );
  if (!started) return null;
  if (!exact || !Number.isFinite(growth)) return undefined;
  const value = (growth - 1) * 100;
  const error = 100 * Math.abs(growth) * 4 * (2 * links + 2) * 2 ** -53 + Math.abs(value) * 2 ** -51 + 1e-30;
  return pct4Near(value, error) ?? undefined;
}

/**
 * Runs of the trailing `days` calendar days ending at the latest run (any status), newest first.
 * @param runs oldest first
 */
export function navHistory(runs: readonly NavRunRow[], days: number): NavHistoryRow[] {
  const last = runs[runs.length - 1];
  if (!last) return [];
  const after = addDays(last.navDate, -days);
  const out: NavHistoryRow[] = [];
  for (let i = runs.length - 1; i >= 0 && runs[i]!.navDate > after; i--) {
    const r = runs[i]!;
    out.push({
      navDate: r.navDate,
      status: r.status,
      shadowNav: r.shadowNav === null ? null : moneyText(r.shadowNav),
      adminNav: r.adminNav === null ? null : moneyText(r.adminNav),
      differenceBps: differenceBps(r),
      reconStatus: r.reconStatus,
      usable: isUsable(r),
    });
  }
  return out;
}

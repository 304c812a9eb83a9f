/**
 * The generator: the day-by-day simulation of prices, trading, ledger entries, investors and capital
 * accounts, expenses and fees, and NAV runs with reconciliation. {@link simulateParts} runs its named steps
 * over one explicit state (state.ts): what is known before the first day (calendar.ts), each day's steps
 * (day.ts), then the day's books checked and its NAV run struck (here).
 */
import { ACCOUNT, ACCOUNTS, SHARE_CLASSES } from './accounts.ts';
import { money } from './arithmetic.ts';
import { markSpecialDays, scheduleExpenses } from './calendar.ts';
import {
  type Day,
  accrueExpenses,
  allocate,
  balanceTreasury,
  capitalSum,
  crystallize,
  deal,
  incept,
  markToMarket,
  payDues,
  trade,
} from './day.ts';
import { type FundParts, SyntheticFund } from './lazy.ts';
import { FLAKY_VENUES } from './market.ts';
import { pick, uniform } from './random.ts';
import { type Simulation, absorb, dateOf, startSimulation } from './state.ts';
import type { FundDataset, SyntheticFundSpec } from './spec.ts';

/** Shadow vs administrator NAV tolerance the generator reconciles with, and the fund row states (`reconToleranceBps`). */
export const RECON_TOLERANCE_BPS = 5;

/**
 * Generates a fund's whole dataset (what the database seed loads). Deterministic: the same spec gives the
 * same dataset, byte for byte, in any engine. It is {@link simulateFund} with every row made.
 * @throws {Error} if the generated books fail their own consistency check (a generator bug; never at run time
 *   for the two bundled specs, which the test suite generates)
 */
export function generateFund(spec: SyntheticFundSpec): FundDataset {
  return simulateFund(spec).dataset();
}

/**
 * Simulates a fund: the whole deterministic simulation, with its results kept compact (integers: prices
 * in typed arrays, snapshots in plain arrays) and its bulk rows (positions, prices, ledger lines, capital accounts) made only when asked for,
 * per date, by {@link SyntheticFund}. The build runs it once per bundled spec and stores the results
 * (scripts/build-fund.ts, codec.ts); the embedded store runs it only when it has no usable asset (tests,
 * scripts, a deployment fault): it costs tens of milliseconds of CPU.
 * @throws {Error} as {@link generateFund}
 */
export function simulateFund(spec: SyntheticFundSpec): SyntheticFund {
  return new SyntheticFund(simulateParts(spec));
}

/**
 * The simulation itself ({@link simulateFund}), returning the compact results rather than the fund: what the
 * build stores as the fund's static asset (scripts/build-fund.ts, codec.ts). The steps draw from one random
 * stream in a fixed order (prices, expenses, special days, then each day's steps), which the SHA-256 pins of
 * the generated datasets hold (test/fund/synthetic-lazy.test.ts).
 * @throws {Error} as {@link generateFund}
 */
export function simulateParts(spec: SyntheticFundSpec): FundParts {
  const sim = startSimulation(spec);
  scheduleExpenses(sim);
  markSpecialDays(sim);
  for (let t = 0; t < sim.n; t++) simulateDay(sim, t);
  return partsOf(sim);
}

/** One day: its trading and accounting steps (day.ts), then its books checked and its NAV run struck. */
function simulateDay(sim: Simulation, t: number): void {
  const day: Day = { t, date: dateOf(sim, t), contributions: 0, withdrawals: 0 };
  const from = sim.ledger.entry.length;
  if (t === 0) incept(sim, day);
  else {
    payDues(sim, day);
    const nav = capitalSum(sim);
    balanceTreasury(sim, day, nav);
    const gross = markToMarket(sim, day, trade(sim, day, nav));
    const active = allocate(sim, day, gross, accrueExpenses(sim, day));
    deal(sim, day, active);
    crystallize(sim, day);
  }
  absorb(sim, from);
  strikeRun(sim, day, checkBooks(sim, day));
}

/**
 * The day's books, checked: NAV from the live positions less the payables equals the investors' capital,
 * and the ledger's payables equal the ones the simulation keeps.
 * @returns the NAV, cents
 * @throws {Error} when they do not tie (a generator bug)
 */
function checkBooks(sim: Simulation, day: Day): number {
  const { holdings, investors, balances } = sim;
  const liveMv = holdings.filter((h) => h.spec.book === 'live').reduce((s, h) => s + h.mv, 0);
  const perfPayable = sim.crystallizedUnpaid + investors.reduce((s, i) => s + i.accrued, 0);
  const expensePayable = -(balances.get(ACCOUNT.accruedExpenses) ?? 0);
  const nav = liveMv - sim.mgmtPayable - perfPayable - expensePayable;
  const capital = capitalSum(sim);
  if (nav !== capital) throw new Error(`synthetic fund: NAV ${nav} ≠ capital ${capital} on ${day.date}`);
  if (-(balances.get(ACCOUNT.mgmtFeesPayable) ?? 0) !== sim.mgmtPayable || -(balances.get(ACCOUNT.perfFeesPayable) ?? 0) !== perfPayable) {
    throw new Error(`synthetic fund: payables do not tie on ${day.date}`);
  }
  return nav;
}

/**
 * The day's NAV run: failed, partial (a flaky venue's holdings missing from the shadow NAV) or complete; the
 * administrator's NAV within a few basis points (or well outside on a break day) and the reconciliation at
 * {@link RECON_TOLERANCE_BPS}; the holdings snapshot of a run that struck a NAV, and the capital snapshot
 * of a complete one.
 */
function strikeRun(sim: Simulation, day: Day, nav: number): void {
  const { rand, holdings, investors } = sim;
  const kind = sim.special.get(day.t);
  const status = kind === 'failed' ? 'failed' : kind === 'partial' ? 'partial' : 'complete';
  const flaky = kind === 'partial' ? pick(rand, FLAKY_VENUES) : null;
  let shadow: number | null = null;
  if (status !== 'failed') {
    shadow = nav;
    const qu: number[] = [];
    const mv: number[] = [];
    for (const h of holdings) {
      qu.push(h.qu);
      mv.push(h.mv);
      if (h.spec.venue === flaky && h.spec.book === 'live') shadow -= h.mv;
    }
    sim.snapshots.set(day.date, { day: day.t, flaky, qu, mv });
  }
  const bps = kind === 'break' ? (rand() < 0.5 ? -1 : 1) * uniform(rand, 9, 40) : uniform(rand, -3, 3);
  const admin = Math.round(nav * (1 + bps / 10_000));
  const matched = shadow !== null && Math.abs(shadow - admin) * 10_000 <= RECON_TOLERANCE_BPS * admin;
  sim.runs.push({
    navDate: day.date,
    status,
    shadowNav: shadow === null ? null : money(shadow),
    adminNav: money(admin),
    reconStatus: shadow === null ? null : matched ? 'matched' : 'break',
    netFlows: money(day.contributions - day.withdrawals),
  });
  if (status === 'complete') {
    const values: number[] = [];
    for (const inv of investors)
      values.push(inv.capital, inv.cum.contributions, inv.cum.withdrawals, inv.cum.pnl, inv.cum.mgmt, inv.cum.perf);
    sim.capital.set(day.date, values);
  }
}

/** The compact results of a finished simulation (lazy.ts {@link FundParts}). */
function partsOf(sim: Simulation): FundParts {
  const { spec } = sim;
  return {
    spec,
    calendar: sim.calendar.slice(0, spec.priceDays),
    series: sim.series,
    holdings: sim.holdings.map((h) => h.spec),
    snapshots: sim.snapshots,
    ledger: sim.ledger,
    capital: { investorIds: sim.investors.map((i) => i.row.investorId), snapshots: sim.capital },
    head: {
      fund: {
        fundId: spec.fundId,
        name: spec.name,
        baseCurrency: 'USD',
        inceptionDate: sim.inception,
        aumTarget: money(spec.aumTargetUsd * 100),
        reconToleranceBps: RECON_TOLERANCE_BPS.toFixed(2),
      },
      shareClasses: SHARE_CLASSES.map((c) => ({ ...c })),
      runs: sim.runs,
      accounts: ACCOUNTS.map((a) => ({ ...a })),
      investors: sim.investors.map((i) => i.row),
      expenses: sim.expenses,
    },
    compiledIdentitySet: null,
  };
}

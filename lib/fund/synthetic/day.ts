/**
 * The steps of one simulated day, each over the simulation's state (state.ts) and the day's own figures
 * ({@link Day}): inception, or else payments, treasury, trades, marking to market, expense accruals, the
 * allocation to investors with their fees, dealing, and crystallization. simulate.ts runs them in this order,
 * which is also the order of their random draws.
 */
import { ACCOUNT, EXPENSE_ACCOUNT } from './accounts.ts';
import { marketValueCents, prorate } from './arithmetic.ts';
import { cents } from './calendar.ts';
import { BANK, TRADING_CASH, isCash } from './market.ts';
import { pick, uniform } from './random.ts';
import { type Holding, type Investor, type Simulation, cashOf, dateOf, lotsFor, moveCash, newInvestor, post, priceUnits } from './state.ts';

/** A day being simulated: its index from inception, its date, and its investor flows (cents). */
export interface Day {
  t: number;
  date: string;
  contributions: number;
  withdrawals: number;
}

/** A subscription (> 0) or redemption (< 0) of an investor, cents. */
interface Flow {
  inv: Investor;
  cents: number;
}

/** The capital of every investor, cents: the fund's NAV as the investors' accounts have it. */
export const capitalSum = (sim: Simulation): number => sim.investors.reduce((s, i) => s + i.capital, 0);

/**
 * Day 0: the first investors subscribe, the portfolio is bought at the day's prices, the venues are funded
 * in cash, and the paper book is sized (it never touches the ledger).
 * @throws {Error} when the purchases overdraw the bank (a generator bug)
 */
export function incept(sim: Simulation, day: Day): void {
  const { rand, holdings, bank } = sim;
  const t = day.t;
  const flows: Flow[] = [];
  for (let i = 0; i < sim.spec.initialInvestors; i++) {
    const inv = newInvestor(sim, 0, i < 5 ? 'B' : i < 10 ? 'I' : 'A');
    flows.push({ inv, cents: Math.round(uniform(rand, 500_000, 6_000_000)) * 100 });
  }
  const total = flows.reduce((s, f) => s + f.cents, 0);
  moveCash(bank, total);
  for (const f of flows)
    post(sim, t, `Subscription, ${f.inv.row.legalName}`, [
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
      { account: ACCOUNT.capitalContributions, amount: -f.cents },
    ]);
  for (const h of holdings) {
    if (isCash(h.spec.asset) || h.spec.book === 'paper') continue;
    const price = priceUnits(sim, h.spec.asset, 0);
    h.qu = lotsFor(h.spec.asset, h.spec.weight * total, price);
    h.mv = marketValueCents(h.spec.asset, h.qu, price);
    const cash = h.mv;
    const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
    post(sim, t, `Initial position ${h.spec.asset} at ${h.spec.venue}`, [
      { account, asset: h.spec.asset, venue: h.spec.venue, amount: cash },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -cash },
    ]);
    moveCash(bank, -cash);
  }
  for (const h of holdings) {
    if (!isCash(h.spec.asset) || h.spec.book === 'paper' || h === bank) continue;
    const amount = Math.round(h.spec.weight * total);
    moveCash(h, amount);
    moveCash(bank, -amount);
    post(sim, t, `Transfer to ${h.spec.venue}`, [
      { account: ACCOUNT.cashAtVenues, asset: h.spec.asset, venue: h.spec.venue, amount },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -amount },
    ]);
  }
  for (const h of holdings) {
    if (h.spec.book !== 'paper') continue;
    h.qu = lotsFor(h.spec.asset, h.spec.weight * total, priceUnits(sim, h.spec.asset, 0));
    h.mv = marketValueCents(h.spec.asset, h.qu, priceUnits(sim, h.spec.asset, 0));
  }
  for (const f of flows) {
    f.inv.capital = f.cents;
    f.inv.hwm = f.cents;
    f.inv.cum.contributions += f.cents;
    day.contributions += f.cents;
  }
  if (bank.qu < 0) throw new Error('synthetic fund: bank overdrawn at inception');
}

/** Payments at the start of the day: the fees due to the manager on the first of the month, and the expenses due today. */
export function payDues(sim: Simulation, day: Day): void {
  const { t, date } = day;
  if (date.slice(8) === '01' && sim.mgmtPayable + sim.crystallizedUnpaid > 0) {
    post(sim, t, 'Management fees paid to the investment manager', [
      { account: ACCOUNT.mgmtFeesPayable, amount: sim.mgmtPayable },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -sim.mgmtPayable },
    ]);
    post(sim, t, 'Crystallized performance fees paid to the investment manager', [
      { account: ACCOUNT.perfFeesPayable, amount: sim.crystallizedUnpaid },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -sim.crystallizedUnpaid },
    ]);
    moveCash(sim.bank, -(sim.mgmtPayable + sim.crystallizedUnpaid));
    sim.mgmtPayable = 0;
    sim.crystallizedUnpaid = 0;
  }
  for (const e of sim.paymentsOn.get(date) ?? []) {
    const c = cents(e.amount);
    post(sim, t, `Payment of ${e.id}`, [
      { account: ACCOUNT.accruedExpenses, amount: c },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -c },
    ]);
    moveCash(sim.bank, -c);
  }
}

/** Treasury: keeps the bank between 5 % and 15 % of NAV (`nav`, cents) through Coinbase Prime USDC. */
export function balanceTreasury(sim: Simulation, day: Day, nav: number): void {
  const bank = sim.bank;
  const treasury = cashOf(sim, 'Coinbase Prime');
  const want =
    bank.mv > 0.15 * nav
      ? Math.round(bank.mv - 0.1 * nav)
      : bank.mv < 0.05 * nav
        ? -Math.min(treasury.mv, Math.round(0.08 * nav - bank.mv))
        : 0;
  if (want !== 0) {
    moveCash(bank, -want);
    moveCash(treasury, want);
    post(sim, day.t, 'Treasury transfer between bank and Coinbase Prime', [
      { account: ACCOUNT.cashAtVenues, asset: 'USDC', venue: 'Coinbase Prime', amount: want },
      { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -want },
    ]);
  }
}

/**
 * Trades at exchange venues, settled in the venue's cash, at the close ± slippage: a few random rebalances,
 * and new money swept to Coinbase Prime invested in BTC and ETH there. A buy the venue's cash cannot pay
 * for is skipped.
 * @returns the cash each holding's trades cost (cents; negative for net sales)
 */
export function trade(sim: Simulation, day: Day, nav: number): Map<Holding, number> {
  const { rand, holdings } = sim;
  const t = day.t;
  const treasury = cashOf(sim, 'Coinbase Prime');
  const tradeable = holdings.filter((x) => x.spec.book === 'live' && !isCash(x.spec.asset) && TRADING_CASH.has(x.spec.venue));
  const orders: { h: Holding; dq: number }[] = [];
  for (let k = Math.floor(rand() * 4); k > 0; k--) {
    const h = pick(rand, tradeable);
    orders.push({ h, dq: Math.round(h.qu * uniform(rand, -0.06, 0.06)) });
  }
  if (treasury.mv > 0.08 * nav) {
    for (const asset of ['BTC', 'ETH']) {
      const h = tradeable.find((x) => x.spec.asset === asset && x.spec.venue === 'Coinbase Prime')!;
      orders.push({ h, dq: lotsFor(asset, (treasury.mv - 0.05 * nav) / 2, priceUnits(sim, asset, t)) });
    }
  }
  const tradeCash = new Map<Holding, number>();
  for (const { h, dq } of orders) {
    const cash = cashOf(sim, h.spec.venue);
    if (dq === 0) continue;
    const exec = Math.round(priceUnits(sim, h.spec.asset, t) * (1 + uniform(rand, -0.0008, 0.0008)));
    const c = marketValueCents(h.spec.asset, dq, exec);
    if (c > 0 && c > cash.mv) continue;
    h.qu += dq;
    moveCash(cash, -c);
    tradeCash.set(h, (tradeCash.get(h) ?? 0) + c);
    const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
    post(sim, t, `${dq > 0 ? 'Buy' : 'Sell'} ${h.spec.asset} at ${h.spec.venue}`, [
      { account, asset: h.spec.asset, venue: h.spec.venue, amount: c },
      { account: ACCOUNT.cashAtVenues, asset: cash.spec.asset, venue: h.spec.venue, amount: -c },
    ]);
  }
  return tradeCash;
}

/**
 * Marks every position to the day's close: P&L per position = ΔMV − net purchases, posted for the long
 * positions and the short perpetuals. The paper book is revalued (and now and then resized) off the ledger.
 * @returns the day's gross P&L, cents
 */
export function markToMarket(sim: Simulation, day: Day, tradeCash: Map<Holding, number>): number {
  const { rand, holdings } = sim;
  const t = day.t;
  let pnlLong = 0;
  let pnlShort = 0;
  for (const h of holdings) {
    if (isCash(h.spec.asset)) continue;
    if (h.spec.book === 'paper') {
      if (rand() < 0.05) h.qu = Math.round(h.qu * uniform(rand, 0.8, 1.2));
      h.mv = marketValueCents(h.spec.asset, h.qu, priceUnits(sim, h.spec.asset, t));
      continue;
    }
    const mv = marketValueCents(h.spec.asset, h.qu, priceUnits(sim, h.spec.asset, t));
    const pnl = mv - h.mv - (tradeCash.get(h) ?? 0);
    h.mv = mv;
    if (h.qu >= 0) pnlLong += pnl;
    else pnlShort += pnl;
  }
  post(sim, t, 'Mark to market, long positions', [
    { account: ACCOUNT.digitalAssetsLong, amount: pnlLong },
    { account: ACCOUNT.netGainOnInvestments, amount: -pnlLong },
  ]);
  post(sim, t, 'Mark to market, short perpetuals', [
    { account: ACCOUNT.perpetualsShort, amount: pnlShort },
    { account: ACCOUNT.netGainOnInvestments, amount: -pnlShort },
  ]);
  return pnlLong + pnlShort;
}

/**
 * Accrues the expenses dated today.
 * @returns their total, cents
 */
export function accrueExpenses(sim: Simulation, day: Day): number {
  let expenseTotal = 0;
  for (const e of sim.accrualsOn.get(day.date) ?? []) {
    const c = cents(e.amount);
    expenseTotal += c;
    post(sim, day.t, `Accrual of ${e.id}`, [
      { account: EXPENSE_ACCOUNT[e.category]!, amount: c },
      { account: ACCOUNT.accruedExpenses, amount: -c },
    ]);
  }
  return expenseTotal;
}

/**
 * Allocates the day to the investors: P&L and expenses pro rata to capital, then the management fee
 * (ACT/365) and the performance fee accrued above the high-water mark and the hurdle (hard or soft) of each
 * one's share class; posts both fee accruals.
 * @returns the investors with capital, who took part
 */
export function allocate(sim: Simulation, day: Day, gross: number, expenseTotal: number): Investor[] {
  const t = day.t;
  const active = sim.investors.filter((i) => i.capital > 0);
  const weights = active.map((i) => i.capital);
  const pnlShares = prorate(gross, weights);
  const expenseShares = prorate(expenseTotal, weights);
  let mgmt = 0;
  let perf = 0;
  active.forEach((inv, k) => {
    const m = Math.round((inv.capital * Number(inv.cls.mgmtFeePct)) / 100 / 365);
    const pre = inv.capital + inv.accrued + pnlShares[k]! - expenseShares[k]! - m;
    const rate = Number(inv.cls.perfFeePct) / 100;
    const hurdle = inv.cls.hurdlePct === null ? 0 : Number(inv.cls.hurdlePct) / 100;
    const threshold = Math.round(inv.hwm * (1 + (hurdle * (t - inv.periodStart)) / 365));
    let accrued = 0;
    if (inv.cls.hurdleType === 'soft') accrued = pre > threshold ? Math.round(rate * (pre - inv.hwm)) : 0;
    else accrued = Math.round(rate * Math.max(0, pre - threshold));
    const f = accrued - inv.accrued;
    inv.accrued = accrued;
    inv.capital = pre - accrued;
    inv.cum.pnl += pnlShares[k]! - expenseShares[k]!;
    inv.cum.mgmt += m;
    inv.cum.perf += f;
    mgmt += m;
    perf += f;
  });
  sim.mgmtPayable += mgmt;
  post(sim, t, 'Management fee accrual', [
    { account: ACCOUNT.mgmtFeeExpense, amount: mgmt },
    { account: ACCOUNT.mgmtFeesPayable, amount: -mgmt },
  ]);
  post(sim, t, 'Performance fee accrual', [
    { account: ACCOUNT.perfFeeExpense, amount: perf },
    { account: ACCOUNT.perfFeesPayable, amount: -perf },
  ]);
  return active;
}

/**
 * Dealing on the first of the month: subscriptions (new and existing investors) and redemptions, which
 * crystallize the redeemed share of the accrued performance fee and scale down the high-water mark.
 */
export function deal(sim: Simulation, day: Day, active: Investor[]): void {
  const { rand, bank } = sim;
  const t = day.t;
  const flows: Flow[] = [];
  if (day.date.slice(8) === '01') {
    if (rand() < 0.6)
      flows.push({ inv: newInvestor(sim, t, rand() < 0.75 ? 'A' : 'I'), cents: Math.round(uniform(rand, 500_000, 3_000_000)) * 100 });
    for (let k = Math.floor(rand() * 3); k > 0; k--) {
      flows.push({ inv: pick(rand, active), cents: Math.round(uniform(rand, 200_000, 1_500_000)) * 100 });
    }
    for (let k = Math.floor(rand() * 3); k > 0; k--) {
      const inv = pick(rand, active);
      if (flows.some((f) => f.inv === inv)) continue;
      const amount = Math.min(Math.round(inv.capital * uniform(rand, 0.1, 0.4)), bank.mv - 50_000_000);
      if (amount > 0) flows.push({ inv, cents: -amount });
    }
  }
  for (const f of flows) {
    const inv = f.inv;
    if (f.cents > 0) {
      if (inv.capital === 0) inv.periodStart = t;
      inv.capital += f.cents;
      inv.hwm += f.cents;
      inv.cum.contributions += f.cents;
      day.contributions += f.cents;
      post(sim, t, `Subscription, ${inv.row.legalName}`, [
        { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
        { account: ACCOUNT.capitalContributions, amount: -f.cents },
      ]);
    } else {
      const w = -f.cents;
      const share = w / inv.capital;
      const crystallized = Math.round(inv.accrued * share);
      inv.accrued -= crystallized;
      sim.crystallizedUnpaid += crystallized;
      inv.hwm = Math.round(inv.hwm * (1 - share));
      inv.capital -= w;
      inv.cum.withdrawals += w;
      day.withdrawals += w;
      post(sim, t, `Redemption, ${inv.row.legalName}`, [
        { account: ACCOUNT.capitalWithdrawals, amount: w },
        { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -w },
      ]);
    }
    moveCash(bank, f.cents);
  }
}

/** Crystallization at the end of each investor's period (calendar year, or quarter for quarterly classes). */
export function crystallize(sim: Simulation, day: Day): void {
  const next = dateOf(sim, day.t + 1);
  const yearEnd = next.slice(5) === '01-01';
  const quarterEnd = next.slice(8) === '01' && ['01', '04', '07', '10'].includes(next.slice(5, 7));
  for (const inv of sim.investors) {
    if (!(inv.cls.crystallization === 'annual' ? yearEnd : quarterEnd)) continue;
    sim.crystallizedUnpaid += inv.accrued;
    inv.accrued = 0;
    inv.hwm = Math.max(inv.hwm, inv.capital);
    inv.periodStart = day.t + 1;
  }
}

/**
 * The generator: the day-by-day simulation of prices, trading, ledger entries, investors and capital
 * accounts, expenses and fees, and NAV runs with reconciliation.
 */
import type { ExpenseRow, InvestorRow, NavRunRow, ShareClassRow } from '../rows.ts';
import { addDays } from '../analytics/runs.ts';
import { ACCOUNT, ACCOUNTS, EXPENSE_ACCOUNT, SHARE_CLASSES } from './accounts.ts';
import { marketValueCents, money, prorate } from './arithmetic.ts';
import { type CapitalSnapshot, type FundParts, type Snapshot, SyntheticFund, dateRange } from './lazy.ts';
import { ASSET, BANK, FLAKY_VENUES, POSITIONS, type PositionSpec, TRADING_CASH, isCash } from './market.ts';
import { ENTITY_A, ENTITY_B, FIRST, IBAN_COUNTRIES, LAST, MONTHS, digits, letters } from './names.ts';
import { pick, prng, uniform } from './random.ts';
import { simulatePrices } from './prices.ts';
import type { FundDataset, SyntheticFundSpec } from './spec.ts';

interface Investor {
  row: InvestorRow;
  cls: ShareClassRow;
  /** Capital (net of accrued performance fee), cents. */
  capital: number;
  /** High-water mark in capital terms, cents. */
  hwm: number;
  /** Performance fee accrued this period and not yet crystallized, cents. */
  accrued: number;
  /** Day index the current crystallization period started. */
  periodStart: number;
  cum: { contributions: number; withdrawals: number; pnl: number; mgmt: number; perf: number };
}

interface Holding {
  spec: PositionSpec;
  /** Quantity in lots of 10^-qdp (signed; cash positions: cents). */
  qu: number;
  mv: number;
}

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
 * build stores as the fund's static asset (scripts/build-fund.ts, codec.ts).
 * @throws {Error} as {@link generateFund}
 */
export function simulateParts(spec: SyntheticFundSpec): FundParts {
  const rand = prng(spec.seed);
  const n = spec.runDays;
  const inception = addDays(spec.endDate, -(n - 1));
  const priceStart = addDays(spec.endDate, -(spec.priceDays - 1));
  const offset = spec.priceDays - n; // price index of day 0

  // Calendar: every date from the first price to the day after the last run, computed once.
  const calendar = dateRange(priceStart, spec.priceDays + 1);
  const dateOf = (t: number) => calendar[t + offset]!;

  const series = simulatePrices(rand, spec.priceDays);
  const pu = (asset: string, day: number) => series.get(asset)!.units[day + offset]!;

  // Investors
  const investors: Investor[] = [];
  const usedNames = new Set<string>();
  const newInvestor = (day: number, classId?: string): Investor => {
    let legalName = '';
    let email = '';
    let taxId = '';
    const entity = rand() < 0.45;
    do {
      if (entity) {
        legalName = `${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_B)}`;
      } else {
        legalName = `${pick(rand, FIRST)} ${pick(rand, LAST)}`;
      }
    } while (usedNames.has(legalName) || /^(\w+) \1 /.test(legalName));
    usedNames.add(legalName);
    if (entity) {
      const slug = legalName
        .toLowerCase()
        .replace(/[^a-z ]/g, '')
        .split(' ')
        .slice(0, 2)
        .join('');
      email = `investor.relations@${slug}.example.com`;
      taxId = `${digits(rand, 2)}-${digits(rand, 7)}`;
    } else {
      email = `${legalName.toLowerCase().replace(' ', '.')}@example.net`;
      taxId = `${String(100 + Math.floor(rand() * 560))}-${digits(rand, 2)}-${digits(rand, 4)}`;
    }
    const cls = classId ?? (rand() < 0.7 ? 'A' : rand() < 0.5 ? 'B' : 'I');
    const row: InvestorRow = {
      investorId: `INV-${String(investors.length + 1).padStart(4, '0')}`,
      shareClassId: cls,
      legalName,
      email,
      taxId,
      bankAccount: `${pick(rand, IBAN_COUNTRIES)}${digits(rand, 2)}${letters(rand, 4)}${digits(rand, 14)}`,
    };
    const inv: Investor = {
      row,
      cls: SHARE_CLASSES.find((c) => c.shareClassId === cls)!,
      capital: 0,
      hwm: 0,
      accrued: 0,
      periodStart: day,
      cum: { contributions: 0, withdrawals: 0, pnl: 0, mgmt: 0, perf: 0 },
    };
    investors.push(inv);
    return inv;
  };

  // Ledger, by column (lazy.ts Journal); strings interned.
  const ledger = {
    entry: [] as number[],
    date: [] as number[],
    account: [] as number[],
    asset: [] as number[],
    venue: [] as number[],
    memo: [] as number[],
    amount: [] as number[],
    strings: [] as string[],
  };
  const stringIds = new Map<string, number>();
  const intern = (s: string | null | undefined): number => {
    if (s == null) return -1;
    let k = stringIds.get(s);
    if (k === undefined) {
      k = ledger.strings.push(s) - 1;
      stringIds.set(s, k);
    }
    return k;
  };
  let entrySeq = 0;
  /** Posts an entry on day `t`: amount > 0 debit, < 0 credit; lines of zero are left out. */
  const post = (t: number, memo: string, lines: { account: string; asset?: string | null; venue?: string | null; amount: number }[]) => {
    const total = lines.reduce((s, l) => s + l.amount, 0);
    if (total !== 0) throw new Error('synthetic fund: unbalanced journal entry');
    if (lines.every((l) => l.amount === 0)) return;
    const entry = ++entrySeq;
    const memoId = intern(memo);
    for (const l of lines) {
      if (l.amount === 0) continue;
      ledger.entry.push(entry);
      ledger.date.push(t + offset);
      ledger.account.push(intern(l.account));
      ledger.asset.push(intern(l.asset));
      ledger.venue.push(intern(l.venue));
      ledger.memo.push(memoId);
      ledger.amount.push(l.amount);
    }
  };
  const balances = new Map<string, number>(); // debit-positive running balances by account
  const ledgerStart = () => ledger.entry.length;
  const absorb = (from: number) => {
    for (let i = from; i < ledger.entry.length; i++) {
      const account = ledger.strings[ledger.account[i]!]!;
      balances.set(account, (balances.get(account) ?? 0) + ledger.amount[i]!);
    }
  };

  // Holdings
  const holdings: Holding[] = POSITIONS.map((spec) => ({ spec, qu: 0, mv: 0 }));
  const cashOf = (venue: string) => holdings.find((h) => h.spec.book === 'live' && h.spec.venue === venue && isCash(h.spec.asset))!;
  const bank = cashOf(BANK);
  /** Lots of `asset` worth `cents` at price units `price`. */
  const lotsFor = (asset: string, cents: number, price: number) => Math.round((cents * 10 ** (ASSET.get(asset)!.qdp + 6)) / price);
  const moveCash = (h: Holding, cents: number) => {
    h.qu += cents;
    h.mv += cents;
  };

  // Expenses: known in advance (accrual date, payment date).
  const expenses: ExpenseRow[] = [];
  {
    let seq = 0;
    const add = (date: string, category: string, description: string, cents: number, payAfter: number) => {
      if (date < inception || date > spec.endDate) return;
      const paid = addDays(date, payAfter);
      expenses.push({
        id: `EXP-${String(++seq).padStart(4, '0')}`,
        date,
        category,
        description,
        amount: money(cents),
        status: paid <= spec.endDate ? 'paid' : 'accrued',
        paidDate: paid <= spec.endDate ? paid : null,
      });
    };
    const monthName = (d: string) => `${MONTHS[+d.slice(5, 7) - 1]} ${d.slice(0, 4)}`;
    for (let t = 0; t < n; t++) {
      const date = dateOf(t);
      const next = dateOf(t + 1);
      const monthEnd = next.slice(8) === '01';
      if (date.slice(8) === '01')
        add(
          date,
          'software_data',
          `Market data and portfolio system licences, ${monthName(date)}`,
          345_000 + Math.round(uniform(rand, 0, 40_000)),
          20,
        );
      if (monthEnd) {
        add(date, 'administration', `Fund administration fee, ${monthName(date)}`, 1_250_000, 15);
        add(
          date,
          'custody',
          `Custody fees (Anchorage Digital, BitGo), ${monthName(date)}`,
          380_000 + Math.round(uniform(rand, 0, 220_000)),
          18,
        );
        const month = +date.slice(5, 7);
        if (month % 3 === 0) {
          add(date, 'audit', `Annual audit fee accrual, Q${month / 3} ${date.slice(0, 4)}`, 2_200_000, 45);
          add(date, 'directors', `Independent directors' fees, Q${month / 3} ${date.slice(0, 4)}`, 750_000, 10);
        }
      }
      if (t === Math.floor(n / 3)) {
        // A description as an administrator keys it in, quoting the e-mail it came from: redaction masks it.
        add(date, 'legal', 'Legal review of a side letter; invoice sent by counsel from billing@harbourlegal.example.com', 1_480_000, 30);
      } else if (t > 20 && rand() < 0.01) {
        const description = pick(rand, [
          'Legal counsel: offering memorandum update',
          'Legal counsel: regulatory filing review',
          'Legal counsel: ISDA negotiation',
        ]);
        add(date, 'legal', description, Math.round(uniform(rand, 600_000, 2_500_000)), 30);
      }
    }
  }
  const accrualsOn = new Map<string, ExpenseRow[]>();
  const paymentsOn = new Map<string, ExpenseRow[]>();
  for (const e of expenses) {
    accrualsOn.set(e.date, [...(accrualsOn.get(e.date) ?? []), e]);
    if (e.paidDate) paymentsOn.set(e.paidDate, [...(paymentsOn.get(e.paidDate) ?? []), e]);
  }
  const cents = (s: string) => Math.round(Number(s) * 100);

  // Run statuses: a few failed, partial and break days; the last run is a break so "latest usable" is not "latest".
  const special = new Map<number, 'failed' | 'partial' | 'break'>();
  special.set(n - 1, 'break');
  const mark = (kind: 'failed' | 'partial' | 'break', count: number) => {
    for (let k = 0; k < count; ) {
      const t = 5 + Math.floor(rand() * (n - 8));
      if (!special.has(t) && !special.has(t - 1) && !special.has(t + 1)) {
        special.set(t, kind);
        k++;
      }
    }
  };
  mark('failed', 4);
  mark('partial', 4);
  mark('break', 6);

  const runs: NavRunRow[] = [];
  const snapshots = new Map<string, Snapshot>();
  const capital = new Map<string, CapitalSnapshot>();
  let mgmtPayable = 0;
  let crystallizedUnpaid = 0;

  for (let t = 0; t < n; t++) {
    const date = dateOf(t);
    const from = ledgerStart();
    let contributions = 0;
    let withdrawals = 0;
    const flows: { inv: Investor; cents: number }[] = [];

    if (t === 0) {
      // Inception: subscriptions, then the portfolio bought at the day's prices.
      for (let i = 0; i < spec.initialInvestors; i++) {
        const inv = newInvestor(0, i < 5 ? 'B' : i < 10 ? 'I' : 'A');
        flows.push({ inv, cents: Math.round(uniform(rand, 500_000, 6_000_000)) * 100 });
      }
      const total = flows.reduce((s, f) => s + f.cents, 0);
      moveCash(bank, total);
      for (const f of flows)
        post(t, `Subscription, ${f.inv.row.legalName}`, [
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
          { account: ACCOUNT.capitalContributions, amount: -f.cents },
        ]);
      for (const h of holdings) {
        if (isCash(h.spec.asset) || h.spec.book === 'paper') continue;
        const price = pu(h.spec.asset, 0);
        h.qu = lotsFor(h.spec.asset, h.spec.weight * total, price);
        h.mv = marketValueCents(h.spec.asset, h.qu, price);
        const cash = h.mv;
        const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
        post(t, `Initial position ${h.spec.asset} at ${h.spec.venue}`, [
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
        post(t, `Transfer to ${h.spec.venue}`, [
          { account: ACCOUNT.cashAtVenues, asset: h.spec.asset, venue: h.spec.venue, amount },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -amount },
        ]);
      }
      for (const h of holdings) {
        if (h.spec.book !== 'paper') continue;
        h.qu = lotsFor(h.spec.asset, h.spec.weight * total, pu(h.spec.asset, 0));
        h.mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, 0));
      }
      for (const f of flows) {
        f.inv.capital = f.cents;
        f.inv.hwm = f.cents;
        f.inv.cum.contributions += f.cents;
        contributions += f.cents;
      }
      if (bank.qu < 0) throw new Error('synthetic fund: bank overdrawn at inception');
    } else {
      // Payments at the start of the day.
      if (date.slice(8) === '01' && mgmtPayable + crystallizedUnpaid > 0) {
        post(t, 'Management fees paid to the investment manager', [
          { account: ACCOUNT.mgmtFeesPayable, amount: mgmtPayable },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -mgmtPayable },
        ]);
        post(t, 'Crystallized performance fees paid to the investment manager', [
          { account: ACCOUNT.perfFeesPayable, amount: crystallizedUnpaid },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -crystallizedUnpaid },
        ]);
        moveCash(bank, -(mgmtPayable + crystallizedUnpaid));
        mgmtPayable = 0;
        crystallizedUnpaid = 0;
      }
      for (const e of paymentsOn.get(date) ?? []) {
        const c = cents(e.amount);
        post(t, `Payment of ${e.id}`, [
          { account: ACCOUNT.accruedExpenses, amount: c },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -c },
        ]);
        moveCash(bank, -c);
      }

      // Treasury: keep the bank between 5 % and 15 % of NAV through Coinbase Prime USDC.
      const nav = investors.reduce((s, i) => s + i.capital, 0);
      const treasury = cashOf('Coinbase Prime');
      const want =
        bank.mv > 0.15 * nav
          ? Math.round(bank.mv - 0.1 * nav)
          : bank.mv < 0.05 * nav
            ? -Math.min(treasury.mv, Math.round(0.08 * nav - bank.mv))
            : 0;
      if (want !== 0) {
        moveCash(bank, -want);
        moveCash(treasury, want);
        post(t, 'Treasury transfer between bank and Coinbase Prime', [
          { account: ACCOUNT.cashAtVenues, asset: 'USDC', venue: 'Coinbase Prime', amount: want },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -want },
        ]);
      }

      // Trades at exchange venues, settled in the venue's cash, at the close ± slippage: a few random
      // rebalances, and new money swept to Coinbase Prime invested in BTC and ETH there.
      const tradeable = holdings.filter((x) => x.spec.book === 'live' && !isCash(x.spec.asset) && TRADING_CASH.has(x.spec.venue));
      const orders: { h: Holding; dq: number }[] = [];
      for (let k = Math.floor(rand() * 4); k > 0; k--) {
        const h = pick(rand, tradeable);
        orders.push({ h, dq: Math.round(h.qu * uniform(rand, -0.06, 0.06)) });
      }
      if (treasury.mv > 0.08 * nav) {
        for (const asset of ['BTC', 'ETH']) {
          const h = tradeable.find((x) => x.spec.asset === asset && x.spec.venue === 'Coinbase Prime')!;
          orders.push({ h, dq: lotsFor(asset, (treasury.mv - 0.05 * nav) / 2, pu(asset, t)) });
        }
      }
      const tradeCash = new Map<Holding, number>();
      for (const { h, dq } of orders) {
        const cash = cashOf(h.spec.venue);
        if (dq === 0) continue;
        const exec = Math.round(pu(h.spec.asset, t) * (1 + uniform(rand, -0.0008, 0.0008)));
        const c = marketValueCents(h.spec.asset, dq, exec);
        if (c > 0 && c > cash.mv) continue;
        h.qu += dq;
        moveCash(cash, -c);
        tradeCash.set(h, (tradeCash.get(h) ?? 0) + c);
        const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
        post(t, `${dq > 0 ? 'Buy' : 'Sell'} ${h.spec.asset} at ${h.spec.venue}`, [
          { account, asset: h.spec.asset, venue: h.spec.venue, amount: c },
          { account: ACCOUNT.cashAtVenues, asset: cash.spec.asset, venue: h.spec.venue, amount: -c },
        ]);
      }

      // Mark to market: P&L per position = ΔMV − net purchases.
      let pnlLong = 0;
      let pnlShort = 0;
      for (const h of holdings) {
        if (isCash(h.spec.asset)) continue;
        if (h.spec.book === 'paper') {
          if (rand() < 0.05) h.qu = Math.round(h.qu * uniform(rand, 0.8, 1.2));
          h.mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, t));
          continue;
        }
        const mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, t));
        const pnl = mv - h.mv - (tradeCash.get(h) ?? 0);
        h.mv = mv;
        if (h.qu >= 0) pnlLong += pnl;
        else pnlShort += pnl;
      }
      post(t, 'Mark to market, long positions', [
        { account: ACCOUNT.digitalAssetsLong, amount: pnlLong },
        { account: ACCOUNT.netGainOnInvestments, amount: -pnlLong },
      ]);
      post(t, 'Mark to market, short perpetuals', [
        { account: ACCOUNT.perpetualsShort, amount: pnlShort },
        { account: ACCOUNT.netGainOnInvestments, amount: -pnlShort },
      ]);
      const gross = pnlLong + pnlShort;

      // Expense accruals.
      let expenseTotal = 0;
      for (const e of accrualsOn.get(date) ?? []) {
        const c = cents(e.amount);
        expenseTotal += c;
        post(t, `Accrual of ${e.id}`, [
          { account: EXPENSE_ACCOUNT[e.category]!, amount: c },
          { account: ACCOUNT.accruedExpenses, amount: -c },
        ]);
      }

      // Allocation to investors: P&L and expenses pro rata to capital, then fees by share class.
      const active = investors.filter((i) => i.capital > 0);
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
      mgmtPayable += mgmt;
      post(t, 'Management fee accrual', [
        { account: ACCOUNT.mgmtFeeExpense, amount: mgmt },
        { account: ACCOUNT.mgmtFeesPayable, amount: -mgmt },
      ]);
      post(t, 'Performance fee accrual', [
        { account: ACCOUNT.perfFeeExpense, amount: perf },
        { account: ACCOUNT.perfFeesPayable, amount: -perf },
      ]);

      // Dealing on the first of the month: subscriptions (new and existing investors) and redemptions.
      if (date.slice(8) === '01') {
        if (rand() < 0.6)
          flows.push({ inv: newInvestor(t, rand() < 0.75 ? 'A' : 'I'), cents: Math.round(uniform(rand, 500_000, 3_000_000)) * 100 });
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
          contributions += f.cents;
          post(t, `Subscription, ${inv.row.legalName}`, [
            { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
            { account: ACCOUNT.capitalContributions, amount: -f.cents },
          ]);
        } else {
          const w = -f.cents;
          const share = w / inv.capital;
          const crystallized = Math.round(inv.accrued * share);
          inv.accrued -= crystallized;
          crystallizedUnpaid += crystallized;
          inv.hwm = Math.round(inv.hwm * (1 - share));
          inv.capital -= w;
          inv.cum.withdrawals += w;
          withdrawals += w;
          post(t, `Redemption, ${inv.row.legalName}`, [
            { account: ACCOUNT.capitalWithdrawals, amount: w },
            { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -w },
          ]);
        }
        moveCash(bank, f.cents);
      }

      // Crystallization at the end of each investor's period (calendar year, or quarter for quarterly classes).
      const next = dateOf(t + 1);
      const yearEnd = next.slice(5) === '01-01';
      const quarterEnd = next.slice(8) === '01' && ['01', '04', '07', '10'].includes(next.slice(5, 7));
      for (const inv of investors) {
        if (!(inv.cls.crystallization === 'annual' ? yearEnd : quarterEnd)) continue;
        crystallizedUnpaid += inv.accrued;
        inv.accrued = 0;
        inv.hwm = Math.max(inv.hwm, inv.capital);
        inv.periodStart = t + 1;
      }
    }
    absorb(from);

    // The day's books, checked: NAV from positions and payables equals the investors' capital.
    const liveMv = holdings.filter((h) => h.spec.book === 'live').reduce((s, h) => s + h.mv, 0);
    const perfPayable = crystallizedUnpaid + investors.reduce((s, i) => s + i.accrued, 0);
    const expensePayable = -(balances.get(ACCOUNT.accruedExpenses) ?? 0);
    const nav = liveMv - mgmtPayable - perfPayable - expensePayable;
    const capitalSum = investors.reduce((s, i) => s + i.capital, 0);
    if (nav !== capitalSum) throw new Error(`synthetic fund: NAV ${nav} ≠ capital ${capitalSum} on ${date}`);
    if (-(balances.get(ACCOUNT.mgmtFeesPayable) ?? 0) !== mgmtPayable || -(balances.get(ACCOUNT.perfFeesPayable) ?? 0) !== perfPayable) {
      throw new Error(`synthetic fund: payables do not tie on ${date}`);
    }

    // The NAV run and its snapshot.
    const kind = special.get(t);
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
      snapshots.set(date, { day: t, flaky, qu, mv });
    }
    const bps = kind === 'break' ? (rand() < 0.5 ? -1 : 1) * uniform(rand, 9, 40) : uniform(rand, -3, 3);
    const admin = Math.round(nav * (1 + bps / 10_000));
    const matched = shadow !== null && Math.abs(shadow - admin) * 10_000 <= RECON_TOLERANCE_BPS * admin;
    runs.push({
      navDate: date,
      status,
      shadowNav: shadow === null ? null : money(shadow),
      adminNav: money(admin),
      reconStatus: shadow === null ? null : matched ? 'matched' : 'break',
      netFlows: money(contributions - withdrawals),
    });
    if (status === 'complete') {
      const values: number[] = [];
      for (const inv of investors)
        values.push(inv.capital, inv.cum.contributions, inv.cum.withdrawals, inv.cum.pnl, inv.cum.mgmt, inv.cum.perf);
      capital.set(date, values);
    }
  }

  const investorIds = investors.map((i) => i.row.investorId);
  return {
    spec,
    calendar: calendar.slice(0, spec.priceDays),
    series,
    holdings: holdings.map((h) => h.spec),
    snapshots,
    ledger,
    investorIds,
    capital,
    head: {
      fund: {
        fundId: spec.fundId,
        name: spec.name,
        baseCurrency: 'USD',
        inceptionDate: inception,
        aumTarget: money(spec.aumTargetUsd * 100),
        reconToleranceBps: RECON_TOLERANCE_BPS.toFixed(2),
      },
      shareClasses: SHARE_CLASSES.map((c) => ({ ...c })),
      runs,
      accounts: ACCOUNTS.map((a) => ({ ...a })),
      investors: investors.map((i) => i.row),
      expenses,
    },
  };
}

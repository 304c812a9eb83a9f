/**
 * The large fund of the import bench: a bundle (docs/import.md) streamed to disk day by day, never held
 * whole, from the synthetic generator's parameters and building blocks (lib/fund/synthetic/: the seeded
 * source, exact integer money, the chart of accounts and share classes, the sample fund's end date and
 * tolerance) at the scale of a large real fund: `years` of daily runs, `positions` live positions, `investors`
 * investors. The bundled generator's universe is fixed at 34 live positions, so this one keeps its own
 * simpler market: each position a random walk, a few trades a day, a daily mark to market per position.
 *
 * It is consistent as the import checks (operator/bundle/validate.ts), exactly, in integers:
 * market value = quantity × price to the cent; every journal entry balances; P&L, management fees and
 * expenses are allocated pro rata to capital (largest remainder), so the capital accounts sum to the NAV
 * (Σ market values − fees and expenses payable) at every run; each account adds up; the reconciliation
 * status follows from |shadow − administrator| against the 5 bps tolerance.
 *
 * At the defaults (5 years, 500 positions, 500 investors): 1,826 runs, about 913,000 positions, 913,000
 * prices, 1.9 million journal lines and 913,000 capital accounts — 4.7 million rows, about 330 MB.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { csvLine } from '../operator/bundle/csv.ts';
import { BUNDLE_FILES } from '../operator/bundle/format.ts';
import { addDays } from '../lib/fund/analytics/runs.ts';
import { ACCOUNT, ACCOUNTS, RECON_TOLERANCE_BPS, SAMPLE_FUND, prorate, scaledProduct } from '../lib/fund/synthetic.ts';
import { SHARE_CLASSES } from '../lib/fund/synthetic/accounts.ts';
import { money, scaled } from '../lib/fund/synthetic/arithmetic.ts';
import { prng, uniform } from '../lib/fund/synthetic/random.ts';

/** Size of the generated fund. */
export interface LargeFundSpec {
  fundId: string;
  years: number;
  positions: number;
  investors: number;
}

export const LARGE_FUND: LargeFundSpec = { fundId: 'bench-fund', years: 5, positions: 500, investors: 500 };

/** Quantity decimals and price decimals of every generated asset. */
const QDP = 4;
const PDP = 8;

class Out {
  readonly #s;
  #buf = '';
  rows = 0;
  constructor(path: string, header: string) {
    this.#s = createWriteStream(path);
    this.#buf = header;
  }
  add(values: (string | null)[]): void | Promise<void> {
    this.#buf += csvLine(values);
    this.rows++;
    if (this.#buf.length > 1 << 20) {
      const chunk = this.#buf;
      this.#buf = '';
      if (!this.#s.write(chunk)) return once(this.#s, 'drain').then(() => undefined);
    }
  }
  async close(): Promise<void> {
    this.#s.end(this.#buf);
    await once(this.#s, 'finish');
  }
}

/**
 * Writes the bundle to `dir`.
 * @returns data rows per file
 */
export async function writeLargeFund(dir: string, spec: LargeFundSpec = LARGE_FUND): Promise<Record<string, number>> {
  mkdirSync(dir, { recursive: true });
  const rand = prng(SAMPLE_FUND.seed);
  const days = Math.round(spec.years * 365.25);
  const end = SAMPLE_FUND.endDate;
  const inception = addDays(end, -(days - 1));
  const files = Object.fromEntries(
    BUNDLE_FILES.filter((f) => f.table).map((f) => [f.table!.table, new Out(join(dir, f.file), csvLine(f.columns.map((c) => c.name)))]),
  ) as Record<string, Out>;
  const add = async (table: string, values: (string | null)[]) => {
    const wait = files[table]!.add(values);
    if (wait !== undefined) await wait;
  };

  // Reference data: the synthetic fund's share classes and chart of accounts.
  await add('funds', [
    spec.fundId,
    `${spec.fundId} (bench)`,
    'USD',
    inception,
    money(SAMPLE_FUND.aumTargetUsd * 100),
    RECON_TOLERANCE_BPS.toFixed(2),
  ]);
  for (const c of SHARE_CLASSES) {
    await add('share_classes', [c.shareClassId, c.name]);
    await add('fee_terms', [c.shareClassId, c.mgmtFeePct, c.perfFeePct, c.hurdlePct, c.hurdleType, String(c.hasHwm), c.crystallization]);
  }
  for (const a of [...ACCOUNTS].sort((x, y) => (x.code < y.code ? -1 : 1))) await add('accounts', [a.code, a.name, a.type, a.role]);

  // Investors, subscribing at inception; their classes' management fee per day in parts per 365 × 10^6.
  const investors = Array.from({ length: spec.investors }, (_, i) => {
    const cls = SHARE_CLASSES[i % SHARE_CLASSES.length]!;
    const id = `INV-${String(i + 1).padStart(5, '0')}`;
    return { id, cls: cls.shareClassId, rate: Number(cls.mgmtFeePct), capital: 0, contributions: 0, pnl: 0, mgmt: 0 };
  });
  for (const inv of investors)
    await add('investors', [
      inv.id,
      inv.cls,
      `Investor ${inv.id.slice(4)}`,
      `${inv.id.toLowerCase()}@example.net`,
      `00-${inv.id.slice(4)}00`,
      `GB00BANK${inv.id.slice(4)}0000000000`,
    ]);

  // Positions: `positions − 1` assets, one venue each, plus the bank's USD (cash, price 1).
  const n = spec.positions - 1;
  const venues = ['Binance', 'Coinbase Prime', 'Kraken', 'OKX', 'Anchorage Digital', 'BitGo'];
  const assets = Array.from({ length: n }, (_, i) => ({
    asset: `TKN${String(i + 1).padStart(4, '0')}`,
    venue: venues[i % venues.length]!,
    source: i % venues.length >= 4 ? 'custodian' : 'exchange',
    pu: Math.round(uniform(rand, 0.5, 5_000) * 10 ** PDP),
    qu: 0,
    mv: 0,
  }));
  const sorted = [...assets].sort((a, b) => (a.asset < b.asset ? -1 : 1));
  const BANK = 'Northwind Bank';
  let bank = 0; // cents
  let mgmtPayable = 0;
  let expensesPayable = 0;
  const expenses: { id: string; date: string; amount: number; paid: string }[] = [];
  let entry = 0;
  const je = () => `JE-${String(++entry).padStart(8, '0')}`;
  const line = (
    id: string,
    no: number,
    date: string,
    account: string,
    asset: string | null,
    venue: string | null,
    amount: number,
    memo: string,
  ) =>
    add('ledger_lines', [
      id,
      String(no),
      date,
      account,
      asset,
      venue,
      amount > 0 ? money(amount) : '0.00',
      amount < 0 ? money(-amount) : '0.00',
      memo,
    ]);
  /** A two-line entry: `amount` debited to the first account, credited to the second. */
  const post = async (
    date: string,
    debit: [string, string | null, string | null],
    credit: [string, string | null, string | null],
    amount: number,
    memo: string,
  ) => {
    if (amount === 0) return;
    const id = je();
    await line(id, 1, date, debit[0], debit[1], debit[2], amount, memo);
    await line(id, 2, date, credit[0], credit[1], credit[2], -amount, memo);
  };
  const cash: [string, string, string] = [ACCOUNT.cashAtBank, 'USD', BANK];

  for (let t = 0; t < days; t++) {
    const date = addDays(inception, t);
    let flows = 0;
    // Prices move.
    for (const a of assets) a.pu = Math.max(1_000, Math.round(a.pu * (1 + uniform(rand, -0.03, 0.03))));
    for (const a of sorted) await add('prices', [a.asset, date, scaled(a.pu, PDP)]);
    if (t === 0) {
      // Inception: subscriptions, then the portfolio bought at the day's prices (90 % of the money).
      for (const inv of investors) {
        const c = Math.round(uniform(rand, 100_000, 600_000)) * 100;
        inv.capital = c;
        inv.contributions = c;
        bank += c;
        flows += c;
        await post(date, cash, [ACCOUNT.capitalContributions, null, null], c, `Subscription, ${inv.id}`);
      }
      for (const a of assets) {
        a.qu = Math.round(((0.9 * bank) / n / a.pu) * 10 ** (QDP + PDP - 2));
        a.mv = scaledProduct(a.qu, a.pu, QDP + PDP - 2);
      }
      for (const a of assets) {
        bank -= a.mv;
        await post(date, [ACCOUNT.digitalAssetsLong, a.asset, a.venue], cash, a.mv, `Initial position ${a.asset}`);
      }
    } else {
      // Fees paid on the 1st; expenses paid when due.
      if (date.endsWith('-01') && mgmtPayable > 0) {
        await post(date, [ACCOUNT.mgmtFeesPayable, null, null], cash, mgmtPayable, 'Management fees paid');
        bank -= mgmtPayable;
        mgmtPayable = 0;
      }
      for (const e of expenses)
        if (e.paid === date) {
          await post(date, [ACCOUNT.accruedExpenses, null, null], cash, e.amount, `Payment of ${e.id}`);
          bank -= e.amount;
          expensesPayable -= e.amount;
        }
      // A few trades at the day's price, settled through the bank.
      const cost = new Map<(typeof assets)[number], number>();
      for (let k = 0; k < 20; k++) {
        const a = assets[Math.floor(rand() * n)]!;
        const dq = Math.round(a.qu * uniform(rand, -0.05, 0.05));
        const c = scaledProduct(dq, a.pu, QDP + PDP - 2);
        if (dq === 0 || c === 0 || (c > 0 && c > bank)) continue;
        a.qu += dq;
        bank -= c;
        cost.set(a, (cost.get(a) ?? 0) + c);
        if (c > 0) await post(date, [ACCOUNT.digitalAssetsLong, a.asset, a.venue], cash, c, `Buy ${a.asset}`);
        else await post(date, cash, [ACCOUNT.digitalAssetsLong, a.asset, a.venue], -c, `Sell ${a.asset}`);
      }
      // Mark to market, one entry per position.
      let gross = 0;
      for (const a of assets) {
        const mv = scaledProduct(a.qu, a.pu, QDP + PDP - 2);
        const pnl = mv - a.mv - (cost.get(a) ?? 0);
        a.mv = mv;
        gross += pnl;
        if (pnl > 0)
          await post(
            date,
            [ACCOUNT.digitalAssetsLong, null, null],
            [ACCOUNT.netGainOnInvestments, null, null],
            pnl,
            `Mark to market ${a.asset}`,
          );
        else
          await post(
            date,
            [ACCOUNT.netGainOnInvestments, null, null],
            [ACCOUNT.digitalAssetsLong, null, null],
            -pnl,
            `Mark to market ${a.asset}`,
          );
      }
      // A month-end administration fee, paid 15 days later.
      let expense = 0;
      if (addDays(date, 1).endsWith('-01')) {
        expense = 1_250_000;
        const id = `EXP-${String(expenses.length + 1).padStart(4, '0')}`;
        expenses.push({ id, date, amount: expense, paid: addDays(date, 15) });
        expensesPayable += expense;
        await post(date, [ACCOUNT.administrationFees, null, null], [ACCOUNT.accruedExpenses, null, null], expense, `Accrual of ${id}`);
      }
      // Allocation: P&L less expenses pro rata to capital, then each investor's management fee.
      const weights = investors.map((i) => i.capital);
      const shares = prorate(gross - expense, weights);
      let mgmt = 0;
      investors.forEach((inv, k) => {
        const m = Math.round((inv.capital * inv.rate) / 100 / 365);
        inv.capital += shares[k]! - m;
        inv.pnl += shares[k]!;
        inv.mgmt += m;
        mgmt += m;
      });
      mgmtPayable += mgmt;
      await post(date, [ACCOUNT.mgmtFeeExpense, null, null], [ACCOUNT.mgmtFeesPayable, null, null], mgmt, 'Management fee accrual');
    }

    // The run: NAV from the positions and payables, which the capital accounts sum to.
    const nav = assets.reduce((s, a) => s + a.mv, 0) + bank - mgmtPayable - expensesPayable;
    const capitalSum = investors.reduce((s, i) => s + i.capital, 0);
    if (nav !== capitalSum) throw new Error(`bench fund: NAV ${nav} ≠ capital ${capitalSum} on ${date}`);
    const bps = rand() < 0.01 ? uniform(rand, 9, 40) : uniform(rand, -3, 3);
    const admin = Math.round(nav * (1 + bps / 10_000));
    const matched = Math.abs(nav - admin) * 10_000 <= RECON_TOLERANCE_BPS * admin;
    await add('nav_runs', [date, 'complete', money(nav), money(admin), matched ? 'matched' : 'break', money(flows)]);
    for (const a of sorted) {
      const q = scaled(a.qu, QDP);
      await add('positions', [date, a.asset, 'crypto', a.source, a.venue, 'live', q, scaled(a.pu, PDP), money(a.mv)]);
    }
    await add('positions', [date, 'USD', 'fiat', 'bank', BANK, 'live', money(bank), '1.00', money(bank)]);
    for (const inv of investors)
      await add('capital_accounts', [
        date,
        inv.id,
        money(inv.capital),
        money(inv.contributions),
        '0.00',
        money(inv.pnl),
        money(inv.mgmt),
        '0.00',
      ]);
  }
  for (const e of expenses) {
    const paid = e.paid <= end;
    await add('expenses', [
      e.id,
      e.date,
      'administration',
      'Fund administration fee',
      money(e.amount),
      paid ? 'paid' : 'accrued',
      paid ? e.paid : null,
    ]);
  }
  const rows: Record<string, number> = {};
  for (const [table, out] of Object.entries(files)) {
    await out.close();
    rows[table] = out.rows;
  }
  return rows;
}

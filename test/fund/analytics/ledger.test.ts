/**
 * The pure fund analytics (`lib/fund/analytics/*.ts`), on the demo fund's rows as the embedded store serves
 * them and on small hand-made inputs whose figures are worked out in the comments:
 * - trial balance: balanced at every month end; ledger net assets equal NAV;
 * - capital accounts: roll-forward per investor, totals tie to NAV at the opening and closing runs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { dec, sum as total, toMoney as money } from '../../../lib/decimal.ts';
import { capitalAccounts, openingRunDate } from '../../../lib/fund/analytics/capital-accounts.ts';
import { addDays, isUsable, latestCompleteRun } from '../../../lib/fund/analytics/runs.ts';
import { trialBalance } from '../../../lib/fund/analytics/trial-balance.ts';
import type { NavRunRow } from '../../../lib/fund/rows.ts';
import { ACCOUNTS } from '../../../lib/fund/synthetic.ts';
import {
  FUND,
  USD,
  accounts,
  balancesOf,
  balancesThrough,
  latest,
  ledgerThrough,
  line,
  loadDemoFund,
  netAssets,
  runs,
  store,
} from './support.ts';

beforeAll(loadDemoFund);

// ---------------------------------------------------------------------------------------------------------

describe('trial balance', () => {
  it('balances at every month end, each account on one side', async () => {
    const monthEnds = runs.map((r) => r.navDate).filter((d) => addDays(d, 1).endsWith('-01'));
    expect(monthEnds.length).toBeGreaterThanOrEqual(13);
    for (const date of monthEnds) {
      const ledger = await ledgerThrough(date);
      const balances = await balancesThrough(date);
      // The store's sums are the lines' sums.
      expect(balances).toEqual(balancesOf(ledger));
      const tb = trialBalance(accounts, balances, date, USD);
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
    const tb = trialBalance(ACCOUNTS, balancesOf([line('JE1', '3000', '-9.99'), line('JE1', '1000', '10.00')]), '2026-01-02', USD);
    expect(tb).toMatchObject({ asOf: '2026-01-02', currency: USD, totalDebit: '10.00', totalCredit: '9.99', balanced: false });
    expect(tb.accounts).toEqual([
      { code: '1000', name: 'Cash at bank', type: 'asset', debit: '10.00', credit: '0.00' },
      { code: '3000', name: 'Capital contributions', type: 'equity', debit: '0.00', credit: '9.99' },
    ]);
    // A posted account whose balance nets to nil is listed with zeros.
    const nil = trialBalance(ACCOUNTS, balancesOf([line('JE1', '1000', '5.00'), line('JE2', '1000', '-5.00')]), '2026-01-02', USD);
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
    const refs = new Map(data.investorClasses.map((inv, i) => [inv.investorId, refOf(i)]));
    return {
      openingDate,
      data,
      result: capitalAccounts({ run, openingDate, investors: data.investorClasses, rows: data.capital, refs, currency: USD }),
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

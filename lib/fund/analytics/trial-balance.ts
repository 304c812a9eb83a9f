/**
 * Trial balance as of a date: every account with postings on or before it, its balance in the debit or the
 * credit column (net debit − credit), and the column totals, which equal each other when every journal entry
 * balances (double-entry bookkeeping; CFA Program Level I, Financial Reporting). Income and expense accounts
 * accumulate since inception (no closing entries are posted between fiscal years).
 */
import { D, addCents, centsOf, moneyOfCents, toMoney, type Dec } from '../../decimal.ts';
import type { AccountBalanceRow, AccountRow } from '../rows.ts';

/** One trial balance row; one of `debit` and `credit` is "0.00". */
export interface TrialBalanceRow {
  code: string;
  name: string;
  type: AccountRow['type'];
  debit: string;
  credit: string;
}

/**
 * The trial balance from each account's debits and credits summed through `asOf` (a store's `balances`
 * read: every line on or before `asOf`), by account code. Accounts without postings are left out; a posted
 * account whose balance is nil is listed with zeros.
 * Computed in integer cents when every amount has two decimals and every sum stays a safe integer (always
 * for real ledgers: 2^53 cents is 90 trillion), else in decimal.js; both give the same answer.
 */
export function trialBalance(accounts: readonly AccountRow[], balances: readonly AccountBalanceRow[], asOf: string, currency: string) {
  return trialBalanceInCents(accounts, balances, asOf, currency) ?? trialBalanceInDecimals(accounts, balances, asOf, currency);
}

/** {@link trialBalance} in integer cents; null when an amount has another shape or a sum would pass 2^53 cents. */
function trialBalanceInCents(accounts: readonly AccountRow[], balances: readonly AccountBalanceRow[], asOf: string, currency: string) {
  const net = new Map<string, number>();
  for (const row of balances) {
    const debit = centsOf(row.debit);
    const credit = centsOf(row.credit);
    if (debit === null || credit === null) return null;
    const balance = addCents(net.get(row.accountCode) ?? 0, debit - credit);
    if (balance === null) return null;
    net.set(row.accountCode, balance);
  }
  const known = new Map(accounts.map((a) => [a.code, a]));
  let totalDebit: number | null = 0;
  let totalCredit: number | null = 0;
  const rows: TrialBalanceRow[] = [];
  for (const [code, balance] of [...net].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const debit = Math.max(balance, 0);
    const credit = balance < 0 ? -balance : 0;
    totalDebit = addCents(totalDebit, debit);
    totalCredit = addCents(totalCredit, credit);
    if (totalDebit === null || totalCredit === null) return null;
    const account = known.get(code);
    rows.push({
      code,
      name: account?.name ?? 'Unknown account',
      type: account?.type ?? 'asset',
      debit: moneyOfCents(debit),
      credit: moneyOfCents(credit),
    });
  }
  return {
    asOf,
    currency,
    accounts: rows,
    totalDebit: moneyOfCents(totalDebit),
    totalCredit: moneyOfCents(totalCredit),
    balanced: totalDebit === totalCredit,
  };
}

/** {@link trialBalance} in decimal.js (any decimal strings); exported as the reference of its property test. */
export function trialBalanceInDecimals(
  accounts: readonly AccountRow[],
  balances: readonly AccountBalanceRow[],
  asOf: string,
  currency: string,
) {
  const net = new Map<string, Dec>();
  for (const row of balances) net.set(row.accountCode, (net.get(row.accountCode) ?? new D(0)).plus(row.debit).minus(row.credit));
  const known = new Map(accounts.map((a) => [a.code, a]));
  let totalDebit = new D(0);
  let totalCredit = new D(0);
  const rows: TrialBalanceRow[] = [...net]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([code, balance]) => {
      const debit = balance.isPositive() && !balance.isZero() ? balance : new D(0);
      const credit = balance.isNegative() && !balance.isZero() ? balance.neg() : new D(0);
      totalDebit = totalDebit.plus(debit);
      totalCredit = totalCredit.plus(credit);
      const account = known.get(code);
      return {
        code,
        name: account?.name ?? 'Unknown account',
        type: account?.type ?? 'asset',
        debit: toMoney(debit),
        credit: toMoney(credit),
      };
    });
  return {
    asOf,
    currency,
    accounts: rows,
    totalDebit: toMoney(totalDebit),
    totalCredit: toMoney(totalCredit),
    balanced: totalDebit.eq(totalCredit),
  };
}

/**
 * Integer cents (lib/decimal.ts) and the trial balance computed in them, against decimal.js on random
 * inputs (fast-check): same texts, same sums, same answers; and the fallback to decimal.js for amounts
 * integer cents cannot hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { D, addCents, centsOf, dec, moneyOfCents, percentOf, percentOfCentsNear, toMoney } from '../lib/decimal.ts';
import { trialBalance, trialBalanceInDecimals } from '../lib/fund/analytics/trial-balance.ts';
import { capitalAccounts, capitalAccountsInDecimals, type CapitalAccountsInput } from '../lib/fund/analytics/capital-accounts.ts';
import type { AccountBalanceRow, AccountRow } from '../lib/fund/rows.ts';
import { ACCOUNTS } from '../lib/fund/synthetic.ts';

const safeCents = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });

describe('integer cents', () => {
  it('format as decimal.js does and parse back exactly', () => {
    fc.assert(
      fc.property(safeCents, (c) => {
        const text = moneyOfCents(c);
        expect(text).toBe(toMoney(dec(c).div(100)));
        if (text.replace('-', '').length <= 18) expect(centsOf(text)).toBe(c);
      }),
      { numRuns: 3000 },
    );
    expect(moneyOfCents(-5)).toBe('-0.05');
    expect(moneyOfCents(0)).toBe('0.00');
    expect(centsOf('-0.00')).toBe(0);
    expect(Object.is(centsOf('-0.00'), -0)).toBe(false);
    expect(() => moneyOfCents(0.5)).toThrow(RangeError);
  });

  it('refuse every other shape, and amounts that could pass 2^53 cents', () => {
    for (const text of [
      '1',
      '1.0',
      '1.000',
      '.50',
      '1.5e3',
      ' 1.00',
      '1.00 ',
      '+1.00',
      '--1.00',
      '1,000.00',
      '1234567890123456.00',
      'NaN',
      '',
    ]) {
      expect(centsOf(text), text).toBeNull();
    }
    // 2^53 cents and more are no longer exact in a double: refused, as every caller would refuse them.
    expect(centsOf('123456789012345.99')).toBeNull();
    expect(centsOf('90071992547409.92')).toBeNull();
    expect(centsOf('-90071992547409.92')).toBeNull();
    expect(centsOf('90071992547409.91')).toBe(Number.MAX_SAFE_INTEGER);
    expect(centsOf('-90071992547409.91')).toBe(-Number.MAX_SAFE_INTEGER);
  });

  it('give a percent of a whole as decimal.js does, sign of a zero included, a zero part without it', () => {
    const amount = fc.oneof(fc.constant(0), fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: -100, max: 100 }));
    fc.assert(
      fc.property(
        amount,
        amount.filter((w) => w !== 0),
        (part, whole) => {
          const fast = percentOfCentsNear(part, whole);
          if (part === 0) expect(fast).not.toBeNull();
          if (fast !== null) expect(Object.is(fast, percentOf(new D(part), new D(whole))), `${part} / ${whole}`).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('add only while the sum stays a safe integer', () => {
    fc.assert(
      fc.property(safeCents, safeCents, (a, b) => {
        const s = addCents(a, b);
        const exact = BigInt(a) + BigInt(b);
        if (exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < BigInt(Number.MIN_SAFE_INTEGER)) expect(s).toBeNull();
        else expect(s).toBe(Number(exact));
      }),
    );
  });
});

describe('trial balance in integer cents', () => {
  const codes = ACCOUNTS.map((a) => a.code);
  /** An account's sums as a store's `balances` read gives them, here with one side only. */
  const balance = (amount: string, debitSide: boolean, code: string): AccountBalanceRow => ({
    accountCode: code,
    debit: debitSide ? amount : '0.00',
    credit: debitSide ? '0.00' : amount,
  });
  const amount = fc.oneof(fc.integer({ min: 0, max: 10_000_000_000 }), fc.integer({ min: 0, max: 99 })).map(moneyOfCents);
  // Several rows of one account are summed, as lines were: the answer depends only on each account's sums.
  const balances = fc.array(
    fc.tuple(amount, fc.boolean(), fc.constantFrom(...codes, '9999')).map(([a, d, c]) => balance(a, d, c)),
    { maxLength: 200 },
  );

  it('gives the decimal.js answer on random account sums', () => {
    fc.assert(
      fc.property(balances, (rows) => {
        expect(trialBalance(ACCOUNTS, rows, '2026-01-31', 'USD')).toEqual(trialBalanceInDecimals(ACCOUNTS, rows, '2026-01-31', 'USD'));
      }),
      { numRuns: 300 },
    );
  });

  it('falls back to decimal.js for amounts cents cannot hold, with the same answer', () => {
    const accounts: AccountRow[] = ACCOUNTS.slice(0, 2);
    const fine = [balance('0.005', true, accounts[0]!.code), balance('0.005', false, accounts[1]!.code)];
    const huge = [
      balance('90071992547409.91', true, accounts[0]!.code),
      balance('90071992547409.91', true, accounts[0]!.code),
      balance('180143985094819.82', false, accounts[1]!.code),
    ];
    for (const rows of [fine, huge])
      expect(trialBalance(accounts, rows, '2026-01-31', 'USD')).toEqual(trialBalanceInDecimals(accounts, rows, '2026-01-31', 'USD'));
    expect(trialBalance(accounts, huge, '2026-01-31', 'USD').totalDebit).toBe('180143985094819.82');
  });
});

describe('capital accounts in integer cents', () => {
  const cents = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 50_000_000_000 }));
  const account = fc.record({
    capital: cents,
    contributions: cents,
    withdrawals: cents,
    pnlAllocation: fc.integer({ min: -5e10, max: 5e10 }),
    mgmtFee: cents,
    perfFee: fc.integer({ min: -1e9, max: 1e9 }),
  });
  const input = fc
    .array(fc.tuple(account, fc.option(account, { nil: undefined })), { minLength: 1, maxLength: 40 })
    .map((list): CapitalAccountsInput => {
      const row = (navDate: string, investorId: string, a: Record<string, number>) => ({
        navDate,
        investorId,
        ...(Object.fromEntries(Object.entries(a).map(([k, v]) => [k, moneyOfCents(v)])) as Record<
          'capital' | 'contributions' | 'withdrawals' | 'pnlAllocation' | 'mgmtFee' | 'perfFee',
          string
        >),
      });
      const ids = list.map((_, i) => `INV-${String(i + 1).padStart(4, '0')}`);
      return {
        run: { navDate: '2026-10-30', status: 'complete', shadowNav: '1.00', adminNav: '1.00', reconStatus: 'matched', netFlows: '0.00' },
        openingDate: '2026-09-30',
        investors: ids.map((investorId, i) => ({
          investorId,
          shareClassId: i % 2 ? 'A' : 'B',
          legalName: 'x',
          email: 'x',
          taxId: 'x',
          bankAccount: 'x',
        })),
        rows: list.flatMap(([close, open], i) => [row('2026-10-30', ids[i]!, close), ...(open ? [row('2026-09-30', ids[i]!, open)] : [])]),
        refs: new Map(ids.map((id, i) => [id, `inv_${i.toString(16).padStart(16, '0')}`])),
        currency: 'USD',
      };
    });

  it('gives the decimal.js answer on random accounts, ownership percentages included', () => {
    fc.assert(
      fc.property(input, (i) => {
        expect(capitalAccounts(i)).toEqual(capitalAccountsInDecimals(i));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the decimal.js answer whatever the order of the investors and rows (matched by position or by id)', () => {
    const shuffled = input.chain((i) =>
      fc
        .tuple(
          fc.shuffledSubarray(i.rows as CapitalAccountsInput['rows'][number][], { minLength: i.rows.length, maxLength: i.rows.length }),
          fc.shuffledSubarray(i.investors as CapitalAccountsInput['investors'][number][], {
            minLength: i.investors.length,
            maxLength: i.investors.length,
          }),
        )
        .map(([rows, investors]): CapitalAccountsInput => ({ ...i, rows, investors })),
    );
    fc.assert(
      fc.property(shuffled, (i) => {
        expect(capitalAccounts(i)).toEqual(capitalAccountsInDecimals(i));
      }),
      { numRuns: 300 },
    );
  });

  it('falls back to decimal.js for flows past 2^53 cents whose change between the runs is small', () => {
    // 2^53 + 1 cents is no double: read as one it becomes 2^53, and the change 2 as 1.
    const [i] = fc.sample(input, { seed: 1, numRuns: 1 });
    const closing = i!.rows.filter((r) => r.navDate === '2026-10-30');
    const rows = [
      ...closing.map((r) => ({ ...r, contributions: '90071992547409.93' })),
      ...closing.map((r) => ({ ...r, navDate: '2026-09-30', contributions: '90071992547409.91' })),
    ];
    const big = { ...i!, rows };
    expect(capitalAccountsInDecimals(big).investors[0]!.contributions).toBe('0.02');
    expect(capitalAccounts(big)).toEqual(capitalAccountsInDecimals(big));
  });

  it('falls back to decimal.js for amounts cents cannot hold', () => {
    fc.assert(
      fc.property(input, (i) => {
        const odd = { ...i, rows: i.rows.map((r, k) => (k === 0 ? { ...r, capital: `${r.capital}5` } : r)) };
        expect(capitalAccounts(odd)).toEqual(capitalAccountsInDecimals(odd));
      }),
      { numRuns: 50 },
    );
  });
});

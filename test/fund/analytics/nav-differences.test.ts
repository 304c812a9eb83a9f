/**
 * The shadow-vs-administrator difference in basis points (`differenceBps`, lib/fund/analytics/runs.ts): exact
 * in integers (doubles, BigInt past 2^53) for two-decimal NAVs, against its decimal.js reference (`differenceBpsInDecimals`) on random
 * NAVs, rounding ties by hand, and the NAV history's money texts against `toMoney`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec, toMoney } from '../../../lib/decimal.ts';
import { differenceBps, differenceBpsInDecimals, navHistory } from '../../../lib/fund/analytics/runs.ts';
import { runRow } from './support.ts';

const money = (cents: number) =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const run = (shadow: string | null, admin: string | null) => ({ ...runRow('2026-01-05', shadow), adminNav: admin });

describe('differenceBps', () => {
  it('rounds half away from zero, by hand', () => {
    // 1 cent on 20,000.00 is 0.005 bps: a tie, to 0.01 (and −0.01 below).
    expect(differenceBps(run('20000.01', '20000.00'))).toBe(0.01);
    expect(differenceBps(run('19999.99', '20000.00'))).toBe(-0.01);
    // 1 cent on 30,000.00 is 0.00333… bps: 0.
    expect(differenceBps(run('30000.01', '30000.00'))).toBe(0);
    // 10,050,000.00 against 10,000,000.00: exactly 50 bps.
    expect(differenceBps(run('10050000.00', '10000000.00'))).toBe(50);
    expect(differenceBps(run('1.00', '0.00'))).toBeNull();
    expect(differenceBps(run(null, '1.00'))).toBeNull();
  });

  it('equals its decimal.js reference on any two-decimal NAVs, and on other shapes', () => {
    const cents = fc.oneof(
      fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }),
      fc.integer({ min: 9_000_000_00, max: 11_000_000_00 }),
      fc.integer({ min: -1000, max: 1000 }),
    );
    fc.assert(
      fc.property(cents, cents, (s, a) => {
        const r = run(money(s), money(a));
        expect(Object.is(differenceBps(r), differenceBpsInDecimals(r))).toBe(true);
      }),
      { numRuns: 5000 },
    );
    for (const [s, a] of [
      ['1234.5', '1234.50'],
      ['12345678901234567.89', '12345678901234567.88'],
      ['100.001', '100.00'],
    ] as const) {
      expect(differenceBps(run(s, a))).toBe(differenceBpsInDecimals(run(s, a)));
    }
  });
});

describe('the NAV history', () => {
  it('gives each NAV as toMoney does, whatever its shape', () => {
    const texts = [
      '1234.56',
      '-0.00',
      '0.00',
      '-12.30',
      '1234.5',
      '99999999999999999.99',
      '1.005',
      '0012.50',
      '-0.50',
      '-00.00',
      '0.07',
      '-007.00',
    ];
    const runs = texts.map((t, i) => ({ ...runRow(`2026-01-${String(i + 1).padStart(2, '0')}`, t), adminNav: t }));
    const history = navHistory(runs, 365);
    expect(history.map((h) => h.shadowNav).reverse()).toEqual(texts.map((t) => toMoney(dec(t))));
    expect(history.map((h) => h.adminNav).reverse()).toEqual(texts.map((t) => toMoney(dec(t))));
  });

  it('property: a two-decimal NAV text, with any sign and leading zeros, is given as toMoney gives it', () => {
    const text = fc.tuple(fc.boolean(), fc.nat(3), fc.bigInt({ min: 0n, max: 10n ** 17n })).map(([negative, zeros, cents]) => {
      const units = `${'0'.repeat(zeros)}${cents / 100n}`;
      return `${negative ? '-' : ''}${units}.${String(cents % 100n).padStart(2, '0')}`;
    });
    fc.assert(
      fc.property(text, (t) => {
        const [row] = navHistory([{ ...runRow('2026-01-01', t), adminNav: t }], 365);
        expect(row!.shadowNav).toBe(toMoney(dec(t)));
        expect(row!.adminNav).toBe(toMoney(dec(t)));
      }),
      { numRuns: 2000 },
    );
  });
});

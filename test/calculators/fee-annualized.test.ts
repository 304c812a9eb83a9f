/**
 * The fee calculator's annualized figures in doubles (`annualizedPcts`, lib/calculators/fee-calculator.ts)
 * against their decimal.js reference (`annualizedPctsInDecimals`, 40 digits): random growth factors and
 * horizons, and whole calculator runs, compared exactly (`Object.is`: the sign of a zero too), and
 * `pct4Near` (lib/decimal.ts) refusing what it cannot decide.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { annualizedPcts, annualizedPctsInDecimals, annualizedPctsInDoubles } from '../../lib/calculators/fee-calculator.ts';
import { D, dec, pct4, pct4Near } from '../../lib/decimal.ts';

/** A growth factor as the calculator makes one: a cents amount over a cents amount, at 40 digits. */
const factor = fc
  .tuple(fc.integer({ min: 1, max: 10 ** 13 }), fc.integer({ min: 1, max: 10 ** 11 }))
  .map(([end, start]) => dec(end).div(start));
/** Horizons the API accepts: 0 < h ≤ 50, whole, quarters and arbitrary fractions. */
const horizon = fc.oneof(
  fc.integer({ min: 1, max: 50 }),
  fc.integer({ min: 1, max: 200 }).map((q) => q / 4),
  fc.double({ min: 0.001, max: 50, noNaN: true }),
);

function expectSame(actual: Record<string, number | null>, expected: Record<string, number | null>) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const k of Object.keys(expected)) expect(Object.is(actual[k], expected[k]), `${k}: ${actual[k]} vs ${expected[k]}`).toBe(true);
}

describe('annualizedPcts', () => {
  it('equals decimal.js for random factors and horizons', () => {
    let answered = 0;
    fc.assert(
      fc.property(factor, factor, horizon, (g, n, h) => {
        const fast = annualizedPctsInDoubles(g, n, h);
        if (fast !== null) {
          answered++;
          expectSame({ ...fast }, { ...annualizedPctsInDecimals(g, n, h) });
        }
        expectSame({ ...annualizedPcts(g, n, h) }, { ...annualizedPctsInDecimals(g, n, h) });
      }),
      { numRuns: 2000 },
    );
    // The doubles path decides most cases; the rest are huge powers (factors up to 10^13 over horizons down
    // to 0.001 years) that it leaves to decimal.js.
    expect(answered).toBeGreaterThan(1200);
  });

  it('the doubles path answers the documented defaults and the example', () => {
    expect(annualizedPctsInDoubles(dec('1.61051'), dec('1.4709'), 5)).not.toBeNull();
    expect(annualizedPctsInDoubles(dec('1.404928'), dec('1.29'), 3)).not.toBeNull();
  });

  it('equals decimal.js next to rounding ties, at zero, for a factor of zero and a tiny horizon', () => {
    // (1 + p/100)^h with p on a 4-dp tie (0.01505 %, 0.00505 %, 10.12505 %): the annualized return is the tie
    // itself, which doubles cannot round with certainty, so the fast path must yield to decimal.js.
    for (const [g, n, h] of [
      [dec('1.0001505').pow(3), dec('1.0000505').pow(3), 3],
      [dec('1.1012505').pow(2), dec(1), 2],
    ] as const) {
      expect(annualizedPctsInDoubles(g, n, h)).toBeNull();
    }
    for (const [g, n, h] of [
      [dec('1.0001505').pow(3), dec('1.0000505').pow(3), 3],
      [dec('1.1012505').pow(2), dec(1), 2],
      [dec(1), dec(1), 5],
      [dec(0), dec('0.5'), 1],
      [dec('1.2'), dec('0.999999999'), 0.001],
      [dec('0.99999999'), dec('1.00000001'), 7],
    ] as const) {
      expectSame({ ...annualizedPcts(g, n, h) }, { ...annualizedPctsInDecimals(g, n, h) });
    }
  });
});

describe('pct4Near', () => {
  it('rounds half away from zero as pct4 whenever it answers', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 999_999 }), (negative, whole, frac) => {
        const text = `${negative ? '-' : ''}${whole}.${String(frac).padStart(6, '0')}`;
        const x = Number(text);
        // The text's double is within half an ulp of it.
        const got = pct4Near(x, Math.abs(x) * 2 ** -53);
        if (got !== null) expect(Object.is(got, pct4(new D(text))), text).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses a value within its error of a tie or of zero', () => {
    expect(pct4Near(1.00005, 1e-9)).toBeNull();
    expect(pct4Near(-2.12345, 1e-6)).toBeNull();
    expect(pct4Near(1e-13, 1e-12)).toBeNull();
    expect(pct4Near(Number.NaN, 0)).toBeNull();
    expect(pct4Near(1.23456, 1e-9)).toBe(1.2346);
    expect(Object.is(pct4Near(-0.00001, 1e-12), -0)).toBe(true);
  });
});

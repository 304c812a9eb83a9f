/**
 * Doubles carried with a bound of their error: the arithmetic of the fee calculator's doubles path
 * (lib/calculators/fee-doubles.ts; docs/arithmetic.md#doubles-that-prove-themselves-exact). Each value stands
 * for an exact one (what decimal.js computes) within `e`, absolutely; each operation adds the bounds of its
 * operands as first-order error propagation does, plus its own rounding (IEEE 754 round-to-nearest: at most
 * 2⁻⁵³ of the result, relatively). Sources: N. J. Higham, Accuracy and Stability of Numerical Algorithms
 * (2nd ed., 2002), §2.2 (the standard model of floating-point arithmetic) and §3.1.
 */

/** The unit roundoff of a double, 2⁻⁵³: the largest relative error of one correctly rounded operation. */
export const U = 2 ** -53;

/** A value and a bound of its error: the exact value it stands for is within `e` of `v`. */
export interface Approx {
  v: number;
  e: number;
}

/** A value known exactly (a whole number of cents, a power of two). */
export const exact = (v: number): Approx => ({ v, e: 0 });
/** An input number, which stands for its shortest decimal (as `dec` reads it): within 2⁻⁵³ of it, relatively. */
export const fromInput = (v: number): Approx => ({ v, e: Math.abs(v) * U });

/**
 * A percent input as a rate, x/100: the input stands for its shortest decimal (2⁻⁵³ relative), and 1/100 is
 * not a double (its reading adds 2⁻⁵³ relative more); 0 % is exactly 0.
 */
export function rateOfPct(pct: number): Approx {
  // No fee, no hurdle: exactly nothing, so that what it multiplies stays exactly 0 too.
  if (pct === 0) return exact(0);
  const rate = mul(fromInput(pct), exact(1 / 100));
  // Past the doubles' normal range a product is rounded to a multiple of the least subnormal instead.
  rate.e += Math.abs(rate.v) * U + Number.MIN_VALUE;
  return rate;
}

/** a·b: |a|·e(b) + |b|·e(a) + e(a)·e(b), plus the product's own rounding. */
export function mul(a: Approx, b: Approx): Approx {
  const v = a.v * b.v;
  return { v, e: Math.abs(a.v) * b.e + Math.abs(b.v) * a.e + a.e * b.e + Math.abs(v) * U };
}

/**
 * √a: for x within e of v > e, |√x − √v| ≤ e / √v; `Math.sqrt` is correctly rounded (IEEE 754), 2⁻⁵³ relative.
 * @returns null when the bound reaches zero
 */
export function sqrt(a: Approx): Approx | null {
  if (!(a.v > 2 * a.e)) return null;
  const v = Math.sqrt(a.v);
  return { v, e: (a.e / v) * (1 + 4 * U) + v * U };
}

/**
 * a / b for b bounded away from zero: |a/b − A/B| ≤ (e(a) + |a/b|·e(b)) / (|b| − e(b)), plus the quotient's
 * own rounding.
 * @returns null when the bound of b reaches zero
 */
export function div(a: Approx, b: Approx): Approx | null {
  const room = Math.abs(b.v) - b.e;
  if (!(room > 0)) return null;
  const v = a.v / b.v;
  return { v, e: (a.e + Math.abs(v) * b.e) / room + Math.abs(v) * U };
}

/** a − b: e(a) + e(b), plus the difference's own rounding. */
export function sub(a: Approx, b: Approx): Approx {
  const v = a.v - b.v;
  return { v, e: a.e + b.e + Math.abs(v) * U };
}

/** a + b: e(a) + e(b), plus the sum's own rounding. */
export function add(a: Approx, b: Approx): Approx {
  const v = a.v + b.v;
  return { v, e: a.e + b.e + Math.abs(v) * U };
}

/** max(a, b) is within max(e(a), e(b)) of the maximum of the values they stand for: no decision is needed. */
export const max = (a: Approx, b: Approx): Approx => ({ v: Math.max(a.v, b.v), e: Math.max(a.e, b.e) });

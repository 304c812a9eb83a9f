/**
 * Exact decimal arithmetic for money (decimal.js) and the rounding rules of docs/api.md#conventions:
 * money half-up to cents, `Pct` fields to 4 dp, `Share`/`Weight` fields to 6 dp.
 */
import Decimal from 'decimal.js';

/** A private Decimal constructor: 40 significant digits, ROUND_HALF_UP, never exponent notation in toString. */
export const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
/** An exact decimal value. */
export type Dec = InstanceType<typeof D>;

/** Converts a JSON number or decimal to Decimal without binary noise (0.1 stays 0.1). */
export function dec(x: number | string | Dec): Dec {
  return new D(x);
}

/** Sum of decimals (or decimal strings), exact. */
export function sum(values: Iterable<Dec | string>): Dec {
  let total = new D(0);
  for (const v of values) total = total.plus(v);
  return total;
}

/** Rounds half-up to cents and returns the JSON number (USD). */
export function cents(x: Dec): number {
  return x.toDecimalPlaces(2, D.ROUND_HALF_UP).toNumber();
}

/** Rounds half-up to cents, kept as Decimal for further exact sums. */
export function roundCents(x: Dec): Dec {
  return x.toDecimalPlaces(2, D.ROUND_HALF_UP);
}

/** A percent value (already in percent units) rounded half-up to 4 dp. */
export function pct4(x: Dec): number {
  return x.toDecimalPlaces(4, D.ROUND_HALF_UP).toNumber();
}

/** A fraction 0..1 rounded half-up to 6 dp. */
export function share6(x: Dec): number {
  return x.toDecimalPlaces(6, D.ROUND_HALF_UP).toNumber();
}

/** Percent units → fraction (12.5 → 0.125). */
export function fromPct(x: number | Dec): Dec {
  return new D(x).div(100);
}

/**
 * A money amount as the fund-data endpoints send it: a decimal string rounded half-up to cents, never
 * "-0.00" (docs/api.md#conventions: money as exact decimal strings).
 */
export function toMoney(x: Dec): string {
  const text = x.toFixed(2, D.ROUND_HALF_UP);
  return text === '-0.00' ? '0.00' : text;
}

/** `part` as a percent of `whole`, 4 dp; null when `whole` is zero. */
export function percentOf(part: Dec, whole: Dec): number | null {
  return whole.isZero() ? null : pct4(part.div(whole).times(100));
}

// ---------------------------------------------------------------------------------------------------------
// Integer cents: the hot paths' exact alternative to decimal.js for sums of money

/** A money text with exactly two decimals, as stores and the synthetic fund give money (`-123.45`). */
const MONEY_TEXT = /^-?\d{1,15}\.\d{2}$/;

/**
 * Cents of a money text with exactly two decimals (`"-123.45"` → -12345), exact. Linear in the text (one
 * anchored regular expression without nested quantifiers, at most 19 characters matched).
 * @returns null when the text has another shape or more than 15 integer digits (its cents could then
 *   exceed 2^53; callers fall back to decimal.js)
 */
export function centsOf(text: string): number | null {
  if (text.length > 19 || !MONEY_TEXT.test(text)) return null;
  const cents = Number(text.slice(0, -3) + text.slice(-2));
  return Object.is(cents, -0) ? 0 : cents;
}

/**
 * Cents (a safe integer) as a money text with two decimals (-12345 → `"-123.45"`), never `"-0.00"`; the
 * same text {@link toMoney} gives for the same amount.
 * @throws {RangeError} when `cents` is not a safe integer
 */
export function moneyOfCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError('cents must be a safe integer');
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * Adds cents, checking the result stays a safe integer (so every partial sum is exact).
 * @returns null when it would not
 */
export function addCents(a: number, b: number): number | null {
  const s = a + b;
  return Number.isSafeInteger(s) ? s : null;
}

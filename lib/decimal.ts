/**
 * Exact decimal arithmetic: money in decimal.js with the rounding rules of docs/api.md#conventions (money
 * half-up to cents, `Pct` fields to 4 dp, `Share`/`Weight` fields to 6 dp), integer cents for the hot paths,
 * and scaled BigInt integers ({@link Exact}) for the fund bundle's decimal text, which the operator's
 * importer (operator/bundle/) validates with.
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

/**
 * {@link pct4} of a value known only approximately: `x` is a double within `error` of the exact value
 * (which decimal.js holds to 40 digits). Returns what {@link pct4} gives for the exact value, sign of a zero
 * included, whenever that is certain: the exact value and `x` lie on the same side of every half-way point
 * `(k + ½)·10⁻⁴` and of zero. Otherwise (within `error` of a tie or of zero, not finite, too large for a
 * double's integer part) returns null, and the caller computes in decimal.js.
 * @param x the approximation, percent units
 * @param error a bound of |x − exact| (≥ 0); the rounding of `x × 10⁴` itself is accounted for here
 */
export function pct4Near(x: number, error: number): number | null {
  if (!Number.isFinite(x) || !(error >= 0) || Math.abs(x) <= error) return null;
  const t = Math.abs(x) * 10_000;
  // |t − exact × 10⁴| ≤ tol: the caller's bound scaled, plus the product's rounding (half an ulp of t, doubled).
  const k = halfUpNear(t, error * 10_000 * (1 + 2 ** -50) + t * 2 ** -52);
  // k / 10⁴ is the double nearest the 4-dp decimal, as decimal.js's toNumber gives it.
  return k === null ? null : (x < 0 ? -k : k) / 10_000;
}

/**
 * The whole number a non-negative value rounds to half-up, for a value known only approximately: `t` is
 * within `tol` of the exact value. Returns it when certain (no half-way point `k + ½` lies within `tol` of
 * `t`); null when a tie is within reach, `tol` ≥ ¼, or `t` ≥ 2⁵⁰ (where the fractional part of a double
 * is no longer fine enough to tell). The core of {@link pct4Near} and of the fee projection's cents
 * (lib/calculators/fee-doubles.ts); the caller deals with the sign and with values near zero.
 */
export function halfUpNear(t: number, tol: number): number | null {
  if (!(t >= 0) || !(t < 2 ** 50) || !(tol < 0.25)) return null;
  const whole = Math.floor(t);
  const frac = t - whole; // exact below 2^52
  if (Math.abs(frac - 0.5) <= tol) return null;
  return frac > 0.5 ? whole + 1 : whole;
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

/**
 * Cents of a money text with exactly two decimals, as stores and the synthetic fund give money
 * (`"-123.45"` → -12345; the shape `-?\d{1,15}\.\d{2}`), exact. One pass over at most 19 characters, no
 * regular expression and no substring.
 * @returns null when the text has another shape, more than 15 integer digits, or 2^53 cents or more (no
 *   longer exact in a double): the caller falls back to decimal.js
 */
export function centsOf(text: string): number | null {
  const n = text.length;
  if (n < 4 || n > 19 || text.charCodeAt(n - 3) !== 46 /* . */) return null;
  const negative = text.charCodeAt(0) === 45; /* - */
  const start = negative ? 1 : 0;
  if (n - 3 - start < 1 || n - 3 - start > 15) return null;
  let cents = 0;
  for (let i = start; i < n; i++) {
    if (i === n - 3) continue;
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    cents = cents * 10 + d;
  }
  // Rounding is monotonic: an exact value past 2^53 − 1 leaves the sum above past it too.
  if (cents > Number.MAX_SAFE_INTEGER) return null;
  return negative && cents !== 0 ? -cents : cents;
}

/**
 * Cents (a safe integer) as a money text with two decimals (-12345 → `"-123.45"`), never `"-0.00"`; the
 * same text {@link toMoney} gives for the same amount.
 * @throws {RangeError} when `cents` is not a safe integer
 */
export function moneyOfCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError('cents must be a safe integer');
  // Whole units and the two-digit remainder as numbers: one string built, no padding or slicing.
  const abs = Math.abs(cents);
  const frac = abs % 100;
  return `${cents < 0 ? '-' : ''}${(abs - frac) / 100}.${frac < 10 ? '0' : ''}${frac}`;
}

/**
 * Adds cents, checking the result stays a safe integer (so every partial sum is exact).
 * @returns null when it would not
 */
export function addCents(a: number, b: number): number | null {
  const s = a + b;
  return Number.isSafeInteger(s) ? s : null;
}

/**
 * {@link percentOf} of two amounts in cents: `part / whole × 100` rounded half-up to 4 dp, computed in
 * doubles and kept only when {@link pct4Near} proves it the same (both operands are exact safe integers;
 * the division and the product each round once, a relative error of at most 2⁻⁵³ each, bounded here by
 * 2⁻⁵¹). A zero part is exactly 0 (−0 of a negative whole, as decimal.js signs it). Within reach of a
 * rounding tie returns null: the caller computes in decimal.js.
 * @param part cents, a safe integer
 * @param whole cents, a safe integer other than 0
 */
export function percentOfCentsNear(part: number, whole: number): number | null {
  // A long-only fund's short exposure, a run without cash: common, and exact without any division.
  if (part === 0) return whole < 0 ? -0 : 0;
  const x = (part / whole) * 100;
  return pct4Near(x, Math.abs(x) * 2 ** -51);
}

/**
 * `p / q` rounded half away from zero to `places` decimals, as a JSON number (−0 when a negative quotient
 * rounds to zero, as decimal.js gives it). `q` > 0.
 */
export function roundRatio(p: bigint, q: bigint, places: bigint): number {
  const n = (p < 0n ? -p : p) * 10n ** places;
  const r = Number((2n * n + q) / (2n * q)) / Number(10n ** places);
  return p < 0n ? -r : r;
}

/** True when `p / q` × 10^places is exactly halfway between two integers (a rounding tie). `q` > 0. */
export function isTie(p: bigint, q: bigint, places: bigint): boolean {
  return (2n * p * 10n ** places) % (2n * q) === q;
}

// ---------------------------------------------------------------------------------------------------------
// Scaled integers: exact decimal text as the fund bundle writes it (docs/import.md#values)
//
// The grammar a money, quantity, price or rate cell must match, and the few exact operations the importer's
// validation needs (sums, comparisons, quantity × price rounded half-up to cents) on BigInt units of
// 10^-scale. No value ever passes through a double, and the text as written (its scale) is what is stored
// and exported. Why BigInt and not decimal.js (1,000,000 quantity × price products rounded to cents):
// decimal.js 1.9 s, BigInt scaled integers 0.47 s, four times faster at the import bench's 900,000
// positions, and the operations needed are few and exact.

/** A decimal value: `units` × 10^-`scale`, exactly. */
export interface Exact {
  units: bigint;
  scale: number;
}

/** Longest decimal text accepted (digits and sign): beyond any fund's money, well inside NUMERIC. */
export const MAX_DECIMAL_LENGTH = 40;

/**
 * Whether `text` is a decimal as the bundle writes them: an optional `-`, digits without a superfluous
 * leading zero, an optional `.` and at least one digit after it; no `+`, exponent, spaces or thousands
 * separators. One left-to-right scan: linear in the text's length, which is bounded anyway.
 */
export function isDecimalText(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > MAX_DECIMAL_LENGTH) return false;
  let i = text.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const start = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  const intDigits = i - start;
  if (intDigits === 0 || (intDigits > 1 && text.charCodeAt(start) === 48)) return false;
  if (i === n) return true;
  if (text.charCodeAt(i) !== 46) return false; // '.'
  i++;
  const fracStart = i;
  while (i < n && isDigit(text.charCodeAt(i))) i++;
  return i === n && i > fracStart;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** Parses text that passed {@link isDecimalText}. */
export function exact(text: string): Exact {
  const dot = text.indexOf('.');
  if (dot < 0) return { units: BigInt(text), scale: 0 };
  return { units: BigInt(text.slice(0, dot) + text.slice(dot + 1)), scale: text.length - dot - 1 };
}

const POW = Array.from({ length: 2 * MAX_DECIMAL_LENGTH + 1 }, (_, k) => 10n ** BigInt(k));

/** `a` rescaled to `scale` (≥ its own). */
function at(a: Exact, scale: number): bigint {
  return a.units * POW[scale - a.scale]!;
}

/** a + b, exactly. */
export function add(a: Exact, b: Exact): Exact {
  const scale = Math.max(a.scale, b.scale);
  return { units: at(a, scale) + at(b, scale), scale };
}

/** a − b, exactly. */
export function subtract(a: Exact, b: Exact): Exact {
  return add(a, { units: -b.units, scale: b.scale });
}

/** Sign of a − b: −1, 0 or 1. */
export function compare(a: Exact, b: Exact): number {
  const scale = Math.max(a.scale, b.scale);
  const d = at(a, scale) - at(b, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** |a|. */
export function abs(a: Exact): Exact {
  return a.units < 0n ? { units: -a.units, scale: a.scale } : a;
}

/** Zero at scale 2 (`0.00`), the start of a money sum. */
export const ZERO: Exact = { units: 0n, scale: 2 };

/**
 * a × b rounded half away from zero (decimal.js ROUND_HALF_UP) to `dp` places: what docs/fund-data.md
 * calls a position's market value (quantity × price, to the cent) when `dp` is 2.
 */
export function multiplyRounded(a: Exact, b: Exact, dp: number): Exact {
  return rounded({ units: a.units * b.units, scale: a.scale + b.scale }, dp);
}

/** `a` rounded half away from zero to `dp` places (unchanged when it has no more). */
export function rounded(a: Exact, dp: number): Exact {
  if (a.scale <= dp) return a;
  const d = POW[a.scale - dp]!;
  const neg = a.units < 0n;
  const q = ((neg ? -a.units : a.units) + d / 2n) / d;
  return { units: neg ? -q : q, scale: dp };
}

/** a × 10,000 ≤ limit × |b|, exactly: whether a difference `a` is within `limit` basis points of `b`. */
export function withinBps(a: Exact, b: Exact, limit: Exact): boolean {
  const lhs = { units: abs(a).units * 10_000n, scale: a.scale };
  const rhs = { units: limit.units * abs(b).units, scale: limit.scale + b.scale };
  return compare(lhs, rhs) <= 0;
}

/** Decimal text of `a` at its own scale (`-12.30`). */
export function text(a: Exact): string {
  const neg = a.units < 0n;
  const digits = (neg ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const body = a.scale === 0 ? digits : `${digits.slice(0, -a.scale)}.${digits.slice(-a.scale)}`;
  return neg ? `-${body}` : body;
}

/**
 * The text PostgreSQL's `numeric::text` gives for decimal text that passed {@link isDecimalText}: the same,
 * except that a negative zero (`-0.00`) loses its sign. Used where stored and bundle values are compared.
 */
export function canonical(text: string): string {
  if (text.charCodeAt(0) !== 45) return text;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 48 && c !== 46) return text;
  }
  return text.slice(1);
}

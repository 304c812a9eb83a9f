/**
 * Exact integer money and formatting: scaled integers, exact products and pro-rata splits.
 */
import { ASSET } from './market.ts';

/** Integer division rounding half away from zero (decimal.js ROUND_HALF_UP). */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const q = (a + d / 2n) / d;
  return neg ? -q : q;
}

/** 10^k for k = 0..22, exact doubles. */
export const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/**
 * Cents of quantity × price, rounded half-up: the quantity in lots of 10^-qdp (the asset's smallest unit
 * here), the price in units of 1e-8. cents = lots × priceUnits / 10^(qdp + 6).
 */
export function marketValueCents(asset: string, lots: number, pu: number): number {
  return scaledProduct(lots, pu, ASSET.get(asset)!.qdp + 6);
}

/**
 * round(a × b / 10^e), half away from zero, exactly, for integers a, b (safe) and e in 0..22. Powers of ten
 * common to b and the divisor are cancelled first; when the product is then a safe integer the division is
 * done in doubles and corrected by its exact remainder, else in BigInt. Exported for its property test.
 */
export function scaledProduct(a: number, b: number, e: number): number {
  let m = b;
  let k = e;
  while (k > 0 && m % 10 === 0) {
    m /= 10;
    k--;
  }
  const n = a * m;
  const d = POW10[k]!;
  const half = k === 0 ? 0 : d / 2;
  const x = Math.abs(n) + half;
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(x + d)) return Number(divRound(BigInt(a) * BigInt(b), 10n ** BigInt(e)));
  let q = Math.floor(x / d);
  const r = x - q * d;
  if (r < 0) q--;
  else if (r >= d) q++;
  return n < 0 && q !== 0 ? -q : q;
}

/** An integer scaled by 10^dp as a decimal string, e.g. (-12345, 2) → "-123.45". */
export function scaled(n: number, dp: number): string {
  const neg = n < 0;
  const digits = String(Math.abs(n)).padStart(dp + 1, '0');
  const text = dp === 0 ? digits : `${digits.slice(0, -dp)}.${digits.slice(-dp)}`;
  return neg ? `-${text}` : text;
}
/** Cents as a decimal string with two places, e.g. -12345 → "-123.45". */
export const money = (c: number) => scaled(c, 2);

/** 2^27 + 1: Veltkamp's splitter for doubles. */
const SPLITTER = 134_217_729;

/**
 * a × b as an unevaluated sum p + e of two doubles, exactly (Dekker's TwoProduct with Veltkamp's split;
 * T. J. Dekker, "A floating-point technique for extending the available precision", 1971). Exact for
 * finite products far from overflow and underflow, such as products of integers below 2^53.
 */
function twoProduct(a: number, b: number): [number, number] {
  const p = a * b;
  let c = SPLITTER * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLITTER * b;
  const bh = c - (c - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}

/** Below this, quotients, remainders and their corrections in {@link prorate} stay exact in doubles. */
const PRORATE_EXACT_BELOW = 2 ** 50;

/**
 * Largest-remainder split of `total` cents by non-negative integer weights; the parts sum to `total` exactly.
 * Each weight's share floor(|total| × w / Σw) and its remainder are exact: |total| × w is held as an exact
 * pair of doubles ({@link twoProduct}), the quotient estimated in doubles (within ±2) and corrected by the
 * exact remainder; past 2^50 it is done in BigInt. Exported for its property test.
 */
export function prorate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (total === 0 || sum <= 0) return weights.map(() => 0);
  const abs = Math.abs(total);
  const parts: number[] = new Array(weights.length);
  const remainders: number[] = new Array(weights.length);
  let left = abs;
  const exact = abs < PRORATE_EXACT_BELOW && sum < PRORATE_EXACT_BELOW && Number.isSafeInteger(sum);
  const bigSum = exact ? 0n : BigInt(sum);
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (exact) {
      const [p, e] = twoProduct(abs, w);
      let q = Math.floor(p / sum);
      const [p2, e2] = twoProduct(q, sum);
      let r = p - p2 + (e - e2);
      while (r < 0) {
        q--;
        r += sum;
      }
      while (r >= sum) {
        q++;
        r -= sum;
      }
      parts[i] = q;
      remainders[i] = r;
    } else {
      const product = BigInt(abs) * BigInt(w);
      const q = product / bigSum;
      parts[i] = Number(q);
      remainders[i] = Number(product - q * bigSum);
    }
    left -= parts[i]!;
  }
  const order = weights.map((_, i) => i).sort((p, q) => remainders[q]! - remainders[p]! || p - q);
  for (let k = 0; left > 0; k++, left--) parts[order[k]!]! += 1;
  return total < 0 ? parts.map((p) => -p) : parts;
}

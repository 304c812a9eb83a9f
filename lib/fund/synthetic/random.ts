/**
 * Deterministic randomness: the seeded PRNG and the draws the generator makes from it.
 */

/** sfc32 (Small Fast Counting PRNG, Doty-Humphrey), seeded by splitmix32; uniform in [0, 1). */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** A random source: uniform in [0, 1). */
export type Rand = () => number;
/** Uniform in [lo, hi). */
export const uniform = (r: Rand, lo: number, hi: number) => lo + (hi - lo) * r();
/** One of `items`, uniformly. */
export const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
/** Standard normal by the Irwin–Hall sum of 12 uniforms (additions only, so engine-independent). */
export function normal(r: Rand): number {
  let s = 0;
  for (let i = 0; i < 12; i++) s += r();
  return s - 6;
}

/**
 * Market prices: the daily price path of every asset the fund trades.
 */
import type { PriceSeries } from './lazy.ts';
import { ASSETS, MARKET_VOL } from './market.ts';
import { POW10 } from './arithmetic.ts';
import { normal, type Rand } from './random.ts';

/**
 * Simulates `days` daily prices of every asset: a common market factor (σ = MARKET_VOL) and idiosyncratic
 * noise (each asset's daily volatility `vol` and market beta, a one-factor model), with a mild pull towards
 * the starting level; perpetuals follow their underlying. Draws from `rand` in a fixed order (per day: the
 * market factor, then one normal per volatile asset after the first day), so a seed gives one path.
 * @param rand the fund's random source (advanced)
 * @param days how many daily prices, oldest first
 * @returns each asset's series (perpetuals share their underlying's): integer units of 1e-8 with the decimals
 *   each price is quoted with; the text of a price is made when a row needs it
 */
export function simulatePrices(rand: Rand, days: number): Map<string, PriceSeries> {
  const base = ASSETS.filter((a) => !a.follows);
  const baseUnits = base.map(() => new Float64Array(days));
  const baseDecimals = base.map(() => new Uint8Array(days));
  const floatPrice = base.map((a) => a.price);
  const idio = base.map((a) => Math.sqrt(Math.max(a.vol * a.vol - a.beta * a.beta * MARKET_VOL * MARKET_VOL, 0.0001)));
  for (let t = 0; t < days; t++) {
    const m = MARKET_VOL * normal(rand);
    for (let k = 0; k < base.length; k++) {
      const a = base[k]!;
      let p = floatPrice[k]!;
      if (a.vol > 0 && t > 0) {
        // A mild pull towards the starting level keeps a three-year path plausible for every seed.
        const pull = -0.008 * (p / a.price - 1);
        const r = Math.min(0.5, Math.max(-0.35, a.beta * m + idio[k]! * normal(rand) + pull));
        p = p * (1 + r);
        floatPrice[k] = p;
      }
      // Decimals of a price: max(2, 6 − digits of its integer part), 8 below 1.
      const dp = a.vol === 0 ? 2 : p < 1 ? 8 : p < 10 ? 5 : p < 100 ? 4 : p < 1_000 ? 3 : 2;
      baseUnits[k]![t] = Math.max(1, Math.round(p * POW10[dp]!)) * POW10[8 - dp]!;
      baseDecimals[k]![t] = dp;
    }
  }
  const series = new Map<string, PriceSeries>();
  base.forEach((a, k) => {
    series.set(a.asset, { units: baseUnits[k]!, decimals: baseDecimals[k]!, texts: [] });
  });
  for (const a of ASSETS) if (a.follows) series.set(a.asset, series.get(a.follows)!);
  return series;
}

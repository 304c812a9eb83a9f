/**
 * The pure fund analytics (`lib/fund/analytics/*.ts`), on the demo fund's rows as the embedded store serves
 * them and on small hand-made inputs whose figures are worked out in the comments:
 * - VaR: hand-computed sample and EWMA cases; square-root-of-time and confidence scaling, component VaR
 *   summing exactly to VaR and window lengths on the demo fund; not_usable without history;
 * - fast-check property: component VaR sums to VaR.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dec, sum as total, toMoney as money } from '../../../lib/decimal.ts';
import { addDays } from '../../../lib/fund/analytics/runs.ts';
import { EWMA_LAMBDA, Z_SCORES, valueAtRisk, type VarOptions } from '../../../lib/fund/analytics/var.ts';
import type { PositionRow, PriceRow } from '../../../lib/fund/rows.ts';
import { FUND, USD, apiError, latest, loadDemoFund, position, positionsAt, priceSeries, runRow, store, varOptions } from './support.ts';

beforeAll(loadDemoFund);

// ---------------------------------------------------------------------------------------------------------

describe('value at risk', () => {
  const Z95 = Z_SCORES[0.95];
  const Z99 = Z_SCORES[0.99];

  /**
   * One asset, exposure 1,000,000.00, closes 100, 101, 99.99, 101.9898, 99.950004 (2026-01-01 .. 05):
   *   returns +1 %, −1 %, +2 %, −2 %  →  P&L x = 10,000, −10,000, 20,000, −20,000, mean 0
   *   sample σ² = (1e8 + 1e8 + 4e8 + 4e8) / (4 − 1) = 1e9 / 3 = 333,333,333.33…, σ = 18,257.418583…
   *   VaR95 1d = 1.6448536269514722 × 18,257.418583 = 30,030.781175… → 30,030.78
   *   VaR95 10d = √10 × 30,030.781175… = 94,965.668429… → 94,965.67
   *   VaR99 1d = 2.3263478740408408 × 18,257.418583 = 42,473.106907… → 42,473.11
   *   sigmaDailyPct = 18,257.418584 / 2,000,000 × 100 = 0.912871 → 0.9129; varPct = 30,030.78 / 2e6 = 1.5015 %
   *   window 2: the last two returns only: x = 20,000, −20,000, σ² = 8e8 / 1, σ = 28,284.271247…,
   *     VaR = 1.6448536269514722 × 28,284.271247 = 46,523.486147… → 46,523.49
   *   EWMA (zero mean), weights newest first 1, 0.94, 0.8836, 0.830584 (Σ 3.654184):
   *     σ² = (0.830584 × 1e8 + 0.8836 × 1e8 + 0.94 × 4e8 + 1 × 4e8) / 3.654184 = 9.474184e8 / 3.654184
   *        = 259,269,483.97, σ = 16,101.847…, VaR = 1.6448536269514722 × σ = 26,485.181804… → 26,485.18
   */
  const oneAssetRun = runRow('2026-01-05', '2000000.00');
  const oneAsset = [position({ navDate: '2026-01-05', asset: 'AAA', marketValue: '1000000.00' })];
  const oneAssetPrices = priceSeries('AAA', '2026-01-01', ['100', '101', '99.99', '101.9898', '99.950004']);

  it('one asset, sample method: VaR = z × σ of daily P&L (demeaned, n − 1), by hand', () => {
    const v = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions(), USD);
    expect(v).toEqual({
      asOf: '2026-01-05',
      currency: USD,
      confidence: 0.95,
      horizonDays: 1,
      method: 'sample',
      lambda: null,
      windowDays: 250,
      observationsUsed: 4,
      z: 1.644854,
      sigmaDailyPct: 0.9129,
      portfolioValue: '2000000.00',
      var: '30030.78',
      varPct: 1.5015,
      componentVar: [{ asset: 'AAA', var: '30030.78' }],
    });
    expect(valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions({ horizonDays: 10 }), USD).var).toBe('94965.67');
    expect(valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions({ confidence: 0.99 }), USD).var).toBe('42473.11');
    const twoReturns = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions({ windowDays: 2 }), USD);
    expect([twoReturns.observationsUsed, twoReturns.var]).toEqual([2, '46523.49']);
    const ewma = valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions({ method: 'ewma' }), USD);
    expect([ewma.lambda, ewma.var]).toEqual([0.94, '26485.18']);
  });

  it('ignores prices after the run date and cash positions', () => {
    const later = priceSeries('AAA', '2026-01-06', ['150', '50']);
    const cash = position({ navDate: '2026-01-05', asset: 'USDC', assetClass: 'stablecoin', marketValue: '500000.00' });
    const v = valueAtRisk(
      oneAssetRun,
      [...oneAsset, cash],
      [...oneAssetPrices, ...later, ...priceSeries('USDC', '2026-01-01', [1, 1, 1, 1, 1])],
      varOptions(),
      USD,
    );
    expect([v.observationsUsed, v.var, v.componentVar]).toEqual([4, '30030.78', [{ asset: 'AAA', var: '30030.78' }]]);
  });

  /**
   * Two assets, EWMA, three returns (2026-01-01 .. 04):
   *   AAA long 1,000,000.00: closes 100, 101, 99.99, 101.9898 → +1 %, −1 %, +2 % → x_A = 10,000, −10,000, 20,000
   *   BBB short −500,000.00: closes 50, 51, 51, 49.98 → +2 %, 0 %, −2 %  → x_B = −10,000, 0, 10,000
   *   portfolio x = 0, −10,000, 30,000
   *   weights oldest → newest λ², λ, 1 = 0.8836, 0.94, 1; Σ = 2.8236 (normalised by it)
   *   σ² = (0.8836 × 0 + 0.94 × 1e8 + 1 × 9e8) / 2.8236 = 9.94e8 / 2.8236 = 352,032,865.85, σ = 18,762.538897
   *   VaR = 1.6448536269514722 × 18,762.538897 = 30,861.630155 → 30,861.63
   *   c_A = (0 + 0.94 × (−1e4)(−1e4) + 1 × 2e4 × 3e4) / 2.8236 = 6.94e8 / 2.8236
   *   c_B = (0 + 0 + 1 × 1e4 × 3e4) / 2.8236 = 3e8 / 2.8236            (c_A + c_B = σ²)
   *   component_A = VaR × 6.94 / 9.94 = 21,547.2548566 → 2,154,725.49 cents
   *   component_B = VaR × 3 / 9.94   =  9,314.3752982 →   931,437.53 cents
   *   floors 2,154,725 + 931,437 = 3,086,162, one cent short of 3,086,163: it goes to the larger remainder
   *   (0.53, B) → 21,547.25 + 9,314.38 = 30,861.63
   */
  it('two assets, EWMA (λ = 0.94, normalised weights, zero mean), with Euler components, by hand', () => {
    const run = runRow('2026-01-04', '1500000.00');
    const positions = [
      position({ navDate: '2026-01-04', asset: 'AAA', marketValue: '1000000.00' }),
      position({ navDate: '2026-01-04', asset: 'BBB', assetClass: 'perpetual', marketValue: '-500000.00' }),
    ];
    const prices = [
      ...priceSeries('AAA', '2026-01-01', ['100', '101', '99.99', '101.9898']),
      ...priceSeries('BBB', '2026-01-01', ['50', '51', '51', '49.98']),
    ];
    const v = valueAtRisk(run, positions, prices, varOptions({ method: 'ewma' }), USD);
    expect(v.lambda).toBe(EWMA_LAMBDA);
    expect(v.observationsUsed).toBe(3);
    expect(v.var).toBe('30861.63');
    expect(v.componentVar).toEqual([
      { asset: 'AAA', var: '21547.25' },
      { asset: 'BBB', var: '9314.38' },
    ]);
  });

  it('throws 409 not_usable with fewer than two returns', () => {
    const onePrice = priceSeries('AAA', '2026-01-04', ['100', '101']);
    const e = apiError(() => valueAtRisk(runRow('2026-01-05', '2000000.00'), oneAsset, onePrice, varOptions(), USD));
    expect([e.code, e.status]).toEqual(['not_usable', 409]);
    const e2 = apiError(() => valueAtRisk(oneAssetRun, oneAsset, oneAssetPrices, varOptions({ windowDays: 1 }), USD));
    expect(e2.code).toBe('not_usable');
    const e3 = apiError(() => valueAtRisk(oneAssetRun, oneAsset, [], varOptions(), USD));
    expect(e3.code).toBe('not_usable');
  });

  it.each(['sample', 'ewma'] as const)('%s: an all-cash portfolio carries no price risk: VaR 0.00, no components', (method) => {
    const cash = [
      position({ navDate: '2026-01-05', asset: 'USD', assetClass: 'fiat', marketValue: '750000.00' }),
      position({ navDate: '2026-01-05', asset: 'USDC', assetClass: 'stablecoin', marketValue: '250000.00' }),
    ];
    const prices = [...priceSeries('USD', '2026-01-01', [1, 1, 1, 1, 1]), ...priceSeries('USDC', '2026-01-01', [1, 1, 1, 1, 1])];
    const v = valueAtRisk(runRow('2026-01-05', '1000000.00'), cash, prices, varOptions({ method }), USD);
    expect([v.var, v.varPct, v.componentVar, v.observationsUsed]).toEqual(['0.00', 0, [], 0]);
  });

  describe('on the demo fund', () => {
    let positions: PositionRow[];
    const pricesFor = new Map<number, PriceRow[]>();
    beforeAll(async () => {
      positions = await positionsAt(latest.navDate);
      for (const windowDays of [20, 250, 500, 1000]) {
        const read = await store.read(FUND, {
          prices: { heldAt: latest.navDate, through: latest.navDate, closes: windowDays + 1 },
        });
        pricesFor.set(windowDays, read.prices);
      }
    });
    const demoVar = (o: Partial<VarOptions>) => {
      const opts = varOptions(o);
      return valueAtRisk(latest, positions, pricesFor.get(opts.windowDays)!, opts, USD);
    };

    it.each(['sample', 'ewma'] as const)('%s: components sum exactly to VaR; every window is filled', (method) => {
      const riskAssets = new Set(positions.filter((p) => !['fiat', 'stablecoin'].includes(p.assetClass)).map((p) => p.asset));
      for (const windowDays of [20, 250, 500, 1000]) {
        for (const confidence of [0.95, 0.99] as const) {
          for (const horizonDays of [1, 10] as const) {
            const v = demoVar({ method, windowDays, confidence, horizonDays });
            expect(v.lambda).toBe(method === 'ewma' ? 0.94 : null);
            expect(v.observationsUsed).toBe(windowDays);
            expect(v.portfolioValue).toBe(latest.shadowNav);
            expect(v.asOf).toBe(latest.navDate);
            expect(dec(v.var).gt(0)).toBe(true);
            expect(money(total(v.componentVar.map((c) => c.var)))).toBe(v.var);
            expect(new Set(v.componentVar.map((c) => c.asset))).toEqual(riskAssets);
          }
        }
      }
    });

    it.each(['sample', 'ewma'] as const)('%s: VaR(10 days) = √10 × VaR(1 day), and VaR99 / VaR95 = z99 / z95', (method) => {
      for (const windowDays of [20, 250, 1000]) {
        const one = dec(demoVar({ method, windowDays }).var);
        const ten = dec(demoVar({ method, windowDays, horizonDays: 10 }).var);
        // Each VaR is rounded to cents on its own: |VaR10 − √10 VaR1| ≤ 0.005 (1 + √10) ≈ 0.0208.
        expect(
          ten
            .minus(one.times(dec(10).sqrt()))
            .abs()
            .toNumber(),
        ).toBeLessThanOrEqual(0.005 * (1 + Math.sqrt(10)));
        const v99 = dec(demoVar({ method, windowDays, confidence: 0.99 }).var);
        const ratio = dec(Z99).div(Z95);
        const slack = 1e-6 * v99.toNumber() + 0.005 * (1 + ratio.toNumber());
        expect(v99.minus(one.times(ratio)).abs().toNumber()).toBeLessThanOrEqual(slack);
      }
    });
  });

  it('property: component VaR sums exactly to VaR for random portfolios and price paths', () => {
    const assetArb = (days: number) =>
      fc.record({
        cents: fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }),
        assetClass: fc.constantFrom('crypto', 'perpetual', 'crypto', 'stablecoin'),
        // Closes 50.00 .. 200.00: daily moves of −75 % .. +300 %, wild but within what money in cents (and the
        // doubles VaR computes with, exact to 2^53 cents) can carry.
        closes: fc.array(fc.integer({ min: 5_000, max: 20_000 }), { minLength: days, maxLength: days }),
      });
    // At least one asset with price risk (an all-cash portfolio has its own test above).
    const portfolioArb = fc
      .integer({ min: 3, max: 15 })
      .chain((days) => fc.array(assetArb(days), { minLength: 1, maxLength: 5 }))
      .filter((assets) => assets.some((a) => a.assetClass !== 'stablecoin'));
    fc.assert(
      fc.property(
        portfolioArb,
        fc.constantFrom('sample', 'ewma'),
        fc.constantFrom(0.95, 0.99),
        fc.constantFrom(1, 10),
        (assets, method, confidence, horizonDays) => {
          const run = runRow('2026-03-01', '100000000.00');
          const positions = assets.map((a, i) =>
            position({ navDate: run.navDate, asset: `A${i}`, assetClass: a.assetClass, marketValue: money(dec(a.cents).div(100)) }),
          );
          const start = addDays(run.navDate, -(assets[0]!.closes.length - 1));
          const prices = assets.flatMap((a, i) =>
            priceSeries(
              `A${i}`,
              start,
              a.closes.map((c) => dec(c).div(100).toFixed(2)),
            ),
          );
          const v = valueAtRisk(run, positions, prices, { method, confidence, horizonDays, windowDays: 20 }, USD);
          expect(dec(v.var).gte(0)).toBe(true);
          expect(money(total(v.componentVar.map((c) => c.var)))).toBe(v.var);
          expect(v.componentVar.length).toBe(positions.filter((p) => p.assetClass !== 'stablecoin').length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

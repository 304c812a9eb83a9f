/**
 * The embedded store's VaR read (`varMoments` of lib/fund/embedded-store.ts): made from each held asset's
 * closes read as numbers (`SyntheticFund.closesOf`), it must give the bits `varMoments` gives over the fund's
 * price rows, which is what the store computed before and what the database store's parity rests on:
 * - every close `closesOf` reads is the number its price text reads as, for every price of both bundled funds;
 * - the store's moments equal `varMoments` over the price rows, for windows below, at and beyond the fund's
 *   price history, both methods, and positions held at the latest usable run and at an earlier one.
 */
import { describe, expect, it } from 'vitest';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { DEMO_FUND, SAMPLE_FUND, generateFund, simulateFund } from '../../lib/fund/synthetic.ts';
import { latestUsableRun } from '../../lib/fund/analytics/runs.ts';
import { VAR_WINDOW, varMoments } from '../../lib/fund/analytics/var.ts';

describe.each([DEMO_FUND, SAMPLE_FUND].map((spec) => [spec.fundId, spec] as const))('embedded VaR of %s', (fundId, spec) => {
  const dataset = generateFund(spec);
  const fund = simulateFund(spec);

  it('reads every close as the number its price text reads as', () => {
    let checked = 0;
    for (const row of dataset.prices) {
      expect(fund.closesOf(row.asset, row.priceDate, 1)).toEqual([Number(row.price)]);
      checked++;
    }
    expect(checked).toBe(dataset.prices.length);
    expect(checked).toBeGreaterThan(10_000);
  });

  it('reads the last closes through a date, oldest first, and fewer before the first price', () => {
    const asset = dataset.prices[0]!.asset;
    const own = dataset.prices.filter((p) => p.asset === asset);
    const through = own[40]!.priceDate;
    expect(fund.closesOf(asset, through, 3)).toEqual(own.slice(38, 41).map((p) => Number(p.price)));
    expect(fund.closesOf(asset, through, 1000)).toEqual(own.slice(0, 41).map((p) => Number(p.price)));
    expect(fund.closesOf('NO-SUCH-ASSET', through, 3)).toEqual([]);
  });

  const latest = latestUsableRun(dataset.runs).navDate;
  const earlier = dataset.runs.filter((r) => r.status === 'complete' && r.navDate < latest).at(-90)!.navDate;
  const windows = [VAR_WINDOW.min, VAR_WINDOW.min + 1, 250, spec.priceDays - 1, spec.priceDays + 5, VAR_WINDOW.max];

  it.each([latest, earlier])('gives the moments varMoments gives over the price rows, held at %s', async (heldAt) => {
    const store = embeddedStore([spec]);
    const positions = dataset.positions.filter((p) => p.navDate === heldAt && p.book === 'live');
    expect(positions.length).toBeGreaterThan(10);
    for (const method of ['ewma', 'sample'] as const) {
      for (const returns of windows) {
        const read = await store.read(fundId, { varMoments: { heldAt, through: heldAt, returns, method } });
        const expected = varMoments(heldAt, positions, dataset.prices, returns, method);
        expect(read.varMoments, `${method}, ${returns} returns`).toEqual(expected);
        expect(read.varMoments[0]!.observations).toBe(
          Math.min(returns, dataset.prices.filter((p) => p.asset === expected[0]!.asset && p.priceDate <= heldAt).length - 1),
        );
      }
    }
  });
});

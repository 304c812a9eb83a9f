/**
 * The worked example of VaR in docs/fund-data.md#value-at-risk-defined, small enough to check by hand
 * (three risky assets and cash, five days of closes, one close missing), run through the service's VaR
 * code: every figure the page gives, to the cent, and the page gives the figures this test holds.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { valueAtRisk } from '../../../lib/fund/analytics/var.ts';
import type { PriceRow } from '../../../lib/fund/rows.ts';
import { USD, position, runRow, varOptions } from './support.ts';

const DATES = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09'];
const closes = (asset: string, prices: readonly (string | null)[]): PriceRow[] =>
  prices.flatMap((price, i) => (price === null ? [] : [{ asset, priceDate: DATES[i]!, price }]));

const navDate = '2026-01-09';
const run = runRow(navDate, '100000.00');
const positions = [
  position({ navDate, asset: 'AAA', marketValue: '10000.00' }),
  position({ navDate, asset: 'BBB', marketValue: '-5000.00' }),
  position({ navDate, asset: 'CCC', marketValue: '1500.00', venue: 'Venue A' }),
  position({ navDate, asset: 'CCC', marketValue: '500.00', venue: 'Venue B' }),
  position({ navDate, asset: 'USD', marketValue: '92500.00', assetClass: 'fiat' }),
];
const prices = [
  ...closes('AAA', ['100', '110', '105', '99', '103.95']),
  ...closes('BBB', ['50', '49', '48', '49.98', '49.98']),
  ...closes('CCC', ['20', '21', null, '21', '19.95']),
];

/** The figures of docs/fund-data.md's worked example. */
const EXPECTED = {
  sample: { var: '1920.56', varPct: 1.9206, sigmaDailyPct: 1.1676, components: { AAA: '1702.21', BBB: '162.00', CCC: '56.35' } },
  sample99: { var: '2716.29', components: { AAA: '2407.47', BBB: '229.12', CCC: '79.70' } },
  // Rounded one by one, BBB's 127.885 would be 127.89 and the components would sum to 1,569.19.
  ewma: { var: '1569.18', components: { AAA: '1400.98', BBB: '127.88', CCC: '40.32' } },
};

describe("VaR's worked example (docs/fund-data.md)", () => {
  it('sample, 95 %, 1 day: three returns on the four dates every asset has a close, cash left out', () => {
    const v = valueAtRisk(run, positions, prices, varOptions(), USD);
    expect(v.observationsUsed).toBe(3);
    expect(v.var).toBe(EXPECTED.sample.var);
    expect(v.varPct).toBe(EXPECTED.sample.varPct);
    expect(v.sigmaDailyPct).toBe(EXPECTED.sample.sigmaDailyPct);
    expect(Object.fromEntries(v.componentVar.map((c) => [c.asset, c.var]))).toEqual(EXPECTED.sample.components);
  });

  it('sample, 99 %, and EWMA, 95 %: the components still sum to VaR (largest remainder)', () => {
    for (const [o, want] of [
      [varOptions({ confidence: 0.99 }), EXPECTED.sample99],
      [varOptions({ method: 'ewma' }), EXPECTED.ewma],
    ] as const) {
      const v = valueAtRisk(run, positions, prices, o, USD);
      expect(v.var).toBe(want.var);
      expect(Object.fromEntries(v.componentVar.map((c) => [c.asset, c.var]))).toEqual(want.components);
      const cents = v.componentVar.reduce((s, c) => s + Math.round(Number(c.var) * 100), 0);
      expect(cents).toBe(Math.round(Number(v.var) * 100));
    }
  });

  it('is the example the page gives', () => {
    const page = readFileSync('docs/fund-data.md', 'utf8');
    const section = page.slice(page.indexOf('### Value at risk, defined'));
    const money = (s: string) => Number(s).toLocaleString('en-US', { minimumFractionDigits: 2 });
    for (const figure of [EXPECTED.sample, EXPECTED.sample99, EXPECTED.ewma])
      for (const s of [figure.var, ...Object.values(figure.components)]) expect(section, s).toContain(money(s));
  });
});

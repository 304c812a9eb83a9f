/**
 * VaR's moments of every window at once (`varMomentsOfWindows`, what the importer stores) against the
 * moments of one window (`varMomentsOfSeries`, what a request computes when none are stored): the same texts,
 * so the same bits, for random series, exposures, windows and both methods — windows shorter and longer than
 * the history, histories of fewer than two returns, assets given in any order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VAR_WINDOW, type VarSeries, varMomentsOfSeries, varMomentsOfWindows } from '../../../lib/fund/analytics/var.ts';
import type { VarMomentRow } from '../../../lib/fund/rows.ts';

/** The rows of window `w` out of the all-windows answer, as `varMomentsOfSeries` gives them. */
function rowsOf(all: ReturnType<typeof varMomentsOfWindows>, w: number): VarMomentRow[] {
  const m = all.windows.find((x) => x.windowDays === w)!;
  return all.assets.map((asset, i) => ({ asset, observations: m.observations, variance: m.variance, covariance: m.covariances[i]! }));
}

/** A double of any sign and magnitude a close or an exposure takes, including awkward ones (tiny, huge, integral). */
const double = (min: number, max: number) =>
  fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.integer({ min: Math.ceil(min), max: Math.floor(max) }));

const seriesArb = fc.integer({ min: 0, max: 70 }).chain((days) =>
  fc.uniqueArray(
    fc.record({
      asset: fc.stringMatching(/^[A-Z]{1,4}$/),
      exposure: double(-1e9, 1e9),
      closes: fc.array(double(1e-6, 1e6), { minLength: days, maxLength: days }),
    }),
    { minLength: 1, maxLength: 6, selector: (s) => s.asset },
  ),
);

describe('varMomentsOfWindows', () => {
  it('gives, for every window, the texts varMomentsOfSeries gives for that window alone (property)', () => {
    fc.assert(
      fc.property(
        seriesArb,
        fc.constantFrom('sample' as const, 'ewma' as const),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 60 }),
        (series: VarSeries[], method, min, span) => {
          const windows = { min, max: min + span };
          const all = varMomentsOfWindows(series, method, windows);
          expect(all.windows.map((m) => m.windowDays)).toEqual(Array.from({ length: span + 1 }, (_, k) => min + k));
          for (let w = windows.min; w <= windows.max; w++) expect(rowsOf(all, w)).toEqual(varMomentsOfSeries(series, w, method));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('serves the tool’s windows on a 1,001-close history of 3 assets exactly (spot windows)', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const series: VarSeries[] = ['CCC', 'AAA', 'BBB'].map((asset, k) => {
      let p = 100 + 10 * k;
      return { asset, exposure: (k - 1) * 123456.78 + 1000, closes: Array.from({ length: 1001 }, () => (p *= 1 + (next() - 0.5) / 25)) };
    });
    for (const method of ['sample', 'ewma'] as const) {
      const all = varMomentsOfWindows(series, method);
      expect(all.windows).toHaveLength(VAR_WINDOW.max - VAR_WINDOW.min + 1);
      expect(all.assets).toEqual(['AAA', 'BBB', 'CCC']);
      for (const w of [VAR_WINDOW.min, 21, 250, 999, VAR_WINDOW.max]) expect(rowsOf(all, w)).toEqual(varMomentsOfSeries(series, w, method));
    }
  });
});

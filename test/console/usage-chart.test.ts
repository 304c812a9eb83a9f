/**
 * The usage chart's axis (lib/console/usage-chart.tsx `axisTicks`, docs/console.md#how-it-works): from 0 in
 * equal steps of 1, 2, 2.5 or 5 × 10^k calls (never a fraction of a call), to the first tick at or past the
 * busiest value, 2 to 4 steps; one step only when the busiest day has 1 call.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { axisTicks } from '../../lib/console/usage-chart.tsx';

describe('axisTicks', () => {
  it.each([
    [1, [0, 1]],
    [2, [0, 1, 2]],
    [5, [0, 2, 4, 6]],
    [9, [0, 5, 10]],
    [10, [0, 5, 10]],
    [13, [0, 5, 10, 15]],
    [250, [0, 100, 200, 300]],
    [1000, [0, 250, 500, 750, 1000]],
    [1001, [0, 500, 1000, 1500]],
  ])('%i calls: %j', (max, ticks) => {
    expect(axisTicks(max)).toEqual(ticks);
  });

  it('property: equal whole steps of 1, 2, 2.5 or 5 × 10^k from 0 to the first tick at or past the busiest day, 2 to 4 of them (1 for 1 call)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (max) => {
        const ticks = axisTicks(max);
        const step = ticks[1]!;
        expect(ticks[0]).toBe(0);
        expect(ticks.every((t, i) => t === i * step)).toBe(true);
        expect(Number.isInteger(step)).toBe(true);
        const mantissa = step / 10 ** Math.floor(Math.log10(step));
        expect([1, 2, 2.5, 5]).toContain(mantissa);
        expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
        expect(ticks.at(-2)!).toBeLessThan(max);
        expect(ticks.length - 1).toBeGreaterThanOrEqual(max === 1 ? 1 : 2);
        expect(ticks.length - 1).toBeLessThanOrEqual(4);
      }),
      { numRuns: 500 },
    );
  });
});

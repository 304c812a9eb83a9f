/**
 * The fund tools' startup warm-up (lib/fund/warm-up.ts, run by lib/worker.ts): every tool answers on the
 * warm-up fund (so the warm-up runs each tool's whole path, not its first refusal), and nothing of it is
 * kept for a request: no memoized answer, and the demo fund answers as before.
 */
import { describe, expect, it } from 'vitest';
import { warmUpFundTools, WARM_UP_FUND } from '../../lib/fund/warm-up.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { DEMO_FUND } from '../../lib/fund/synthetic.ts';

describe('warmUpFundTools', () => {
  it('answers every fund tool on the warm-up fund, with its example query', async () => {
    const outcomes = await warmUpFundTools(FUND_TOOLS);
    expect(outcomes.map((o) => o.tool)).toEqual(FUND_TOOLS.map((def) => def.tool));
    expect(outcomes.filter((o) => !o.answered)).toEqual([]);
  });

  it('is a fund of its own, ending where the demo fund ends', () => {
    expect(WARM_UP_FUND.fundId).not.toBe(DEMO_FUND.fundId);
    expect(WARM_UP_FUND.endDate).toBe(DEMO_FUND.endDate);
  });
});

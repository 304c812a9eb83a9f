/**
 * Memoized fund tool answers (lib/fund/memo.ts through `callFundTool`): a repeated call is served from the
 * memo without reading the store; arguments, tool definitions, funds, scopes and NAV runs each get their own
 * answers; a body that fails redaction is never kept; the memory stays within its bounds.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { callFundTool, type FundToolDefinition } from '../../lib/fund/definition.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { MEMO_MAX_CHARS, MEMO_MAX_ENTRIES, clearMemo, memoStats, recall, remember } from '../../lib/fund/memo.ts';
import type { FundStore } from '../../lib/fund/store.ts';
import { guardedStore } from '../../lib/fund/store.ts';
import { DEMO_FUND, SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { RedactionFailedError } from '../../lib/errors.ts';

/** A fund tool by its MCP name. */
const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)! as FundToolDefinition;
const base = embeddedStore([DEMO_FUND, SAMPLE_FUND]);

/** The embedded store, counting its calls, optionally with one more NAV run appended to the index. */
function countingStore(extraRun = false) {
  const counts = { index: 0, read: 0 };
  const store: FundStore = {
    async index(fundId) {
      counts.index++;
      const index = await base.index(fundId);
      if (index && extraRun) index.runs.push({ ...index.runs.at(-1)!, navDate: '2026-11-01' });
      return index;
    },
    async read(fundId, request) {
      counts.read++;
      return base.read(fundId, request);
    },
    identities: (fundId, known) => base.identities(fundId, known),
  };
  return { store: guardedStore(store), counts };
}

beforeEach(() => clearMemo());

describe('memoized fund answers', () => {
  it('serves a repeated call from the memo, byte for byte, without reading the rows again', async () => {
    const { store, counts } = countingStore();
    const source = { store, fundId: DEMO_FUND.fundId, scope: 'demo' as const };
    const first = await callFundTool(tool('get_positions'), source, {}, {});
    const second = await callFundTool(tool('get_positions'), source, {}, {});
    expect(second).toBe(first);
    expect(counts).toEqual({ index: 2, read: 1 }); // the index names the latest run; the rows are read once
  });

  it('keeps answers apart by arguments, tool definition, fund, scope, pseudonym key and latest run', async () => {
    const { store, counts } = countingStore();
    const demo = { store, fundId: DEMO_FUND.fundId, scope: 'demo' as const };
    await callFundTool(tool('get_nav_history'), demo, {}, { days: '5' });
    await callFundTool(tool('get_nav_history'), demo, {}, { days: '6' }); // other arguments
    await callFundTool({ ...tool('get_nav_history') }, demo, {}, { days: '5' }); // another definition, same name
    await callFundTool(tool('get_nav_history'), { ...demo, scope: 'embedded' }, {}, { days: '5' }); // another scope
    await callFundTool(tool('get_nav_history'), { ...demo, fundId: SAMPLE_FUND.fundId }, {}, { days: '5' }); // another fund
    await callFundTool(tool('get_capital_accounts'), demo, { investorRefKey: 'a' }, {});
    const otherKey = await callFundTool(tool('get_capital_accounts'), demo, { investorRefKey: 'b' }, {}); // other pseudonyms
    expect(otherKey).not.toBe(await callFundTool(tool('get_capital_accounts'), demo, { investorRefKey: 'a' }, {}));
    const later = countingStore(true);
    await callFundTool(tool('get_nav_history'), { ...demo, store: later.store }, {}, { days: '5' }); // a new run
    expect(counts.read).toBe(2); // nav-history reads the index only; capital accounts once per pseudonym key
    expect(later.counts.index).toBe(1);
    expect(memoStats().entries).toBe(8);
  });

  it('never keeps a body that failed redaction, and never serves one for a clean definition', async () => {
    const { store } = countingStore();
    const source = { store, fundId: DEMO_FUND.fundId, scope: 'demo' as const };
    const def = tool('get_positions');
    const leaky: FundToolDefinition = {
      ...def,
      run: async (ctx, q) => ({ ...((await def.run(ctx, q)) as object), note: 'ops@northstar.example.com' }),
    };
    for (let i = 0; i < 2; i++) await expect(callFundTool(leaky, source, {}, {})).rejects.toBeInstanceOf(RedactionFailedError);
    expect(memoStats().entries).toBe(0);
    expect(await callFundTool(def, source, {}, {})).not.toContain('ops@');
  });

  it('memoizes nothing for a source without a scope', async () => {
    const { store, counts } = countingStore();
    await callFundTool(tool('get_exposure'), { store, fundId: DEMO_FUND.fundId }, {}, {});
    await callFundTool(tool('get_exposure'), { store, fundId: DEMO_FUND.fundId }, {}, {});
    expect(counts.read).toBe(2);
    expect(memoStats().entries).toBe(0);
  });

  it('stays within its bounds, dropping the least recently used', async () => {
    const { store } = countingStore();
    const source = { store, fundId: DEMO_FUND.fundId, scope: 'demo' as const };
    for (let days = 100; days <= 300; days++) await callFundTool(tool('get_nav_history'), source, {}, { days: String(days) });
    expect(memoStats().chars).toBeLessThanOrEqual(MEMO_MAX_CHARS);
    expect(memoStats().entries).toBeLessThan(201);
    clearMemo();
    for (let i = 0; i < MEMO_MAX_ENTRIES; i++) remember(`k${i}`, 'x');
    expect(recall('k0')).toBe('x'); // used again: now the most recent
    remember('one more', 'x');
    expect(memoStats().entries).toBe(MEMO_MAX_ENTRIES);
    expect(recall('k0')).toBe('x');
    expect(recall('k1')).toBeUndefined();
    expect(recall(`k${MEMO_MAX_ENTRIES - 1}`)).toBe('x');
  });
});

/**
 * The fund tools' startup warm-up (lib/fund/warm-up.ts, run by lib/worker.ts): every tool answers on the
 * warm-up fund (so the warm-up runs each tool's whole path, not its first refusal), its redaction scans with
 * an identity set loaded from the stored form, as a request's does, and nothing of it is kept for a request:
 * no memoized answer, and the demo fund answers as before.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LOAD_ROUNDS, TOOL_ROUNDS, warmUpFundTools, withStoredSet, WARM_UP_FUND } from '../../lib/fund/warm-up.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { callFundTool } from '../../lib/fund/definition.ts';
import { DEMO_FUND } from '../../lib/fund/synthetic.ts';
import { embeddedStore } from '../../lib/fund/embedded-store.ts';
import { clearIdentitySets, identityValues, storedIdentitySet } from '../../lib/fund/identities.ts';
import { findIdentities, identitySet } from '../../lib/redaction.ts';
import { loadIdentitySet } from '../../lib/identity-set-form.ts';

const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../lib/identity-set-form.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/identity-set-form.ts')>();
  return {
    ...original,
    loadIdentitySet: (text: string) => {
      loads.count++;
      return original.loadIdentitySet(text);
    },
  };
});

const calls = vi.hoisted(() => new Map<string, number>());
vi.mock('../../lib/fund/definition.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/fund/definition.ts')>();
  return {
    ...original,
    callFundTool: (...args: Parameters<typeof original.callFundTool>) => {
      calls.set(args[0].tool, (calls.get(args[0].tool) ?? 0) + 1);
      return original.callFundTool(...args);
    },
  };
});

beforeEach(() => {
  clearIdentitySets();
  loads.count = 0;
  calls.clear();
});

describe('warmUpFundTools', () => {
  it('answers every fund tool on the warm-up fund, with its example query', async () => {
    const outcomes = await warmUpFundTools(FUND_TOOLS);
    expect(outcomes.map((o) => o.tool)).toEqual(FUND_TOOLS.map((def) => def.tool));
    expect(outcomes.filter((o) => !o.answered)).toEqual([]);
  });

  it("runs every tool TOOL_ROUNDS times, so that its loops climb V8's tiers at startup, not in a first request", async () => {
    await warmUpFundTools(FUND_TOOLS);
    expect(TOOL_ROUNDS).toBeGreaterThan(1);
    expect(Object.fromEntries(calls)).toEqual(Object.fromEntries(FUND_TOOLS.map((def) => [def.tool, TOOL_ROUNDS])));
  });

  it('reports a tool that failed in any round as not answered, and still runs every round', async () => {
    const base = FUND_TOOLS[0]!;
    let seen = 0;
    // The second run throws: one failed round of TOOL_ROUNDS.
    const flaky: typeof base = {
      ...base,
      tool: 'flaky_tool',
      run: (ctx, query) => (++seen === 2 ? Promise.reject(new Error('round two fails')) : base.run(ctx, query)),
    };
    const outcomes = await warmUpFundTools([flaky, FUND_TOOLS[1]!]);
    expect(outcomes).toEqual([
      { tool: 'flaky_tool', answered: false },
      { tool: FUND_TOOLS[1]!.tool, answered: true },
    ]);
    expect(calls.get('flaky_tool')).toBe(TOOL_ROUNDS);
  });

  it('redacts with an identity set loaded from its stored form, as a request with a stored set does', async () => {
    await warmUpFundTools(FUND_TOOLS);
    // LOAD_ROUNDS loads to warm the loader, then one kept for every tool (none compiled, none per tool).
    expect(LOAD_ROUNDS).toBeGreaterThan(1);
    expect(loads.count).toBe(LOAD_ROUNDS + 1);
  });

  it('scans an index that holds none of its identity values, so every scan round reads the whole text', async () => {
    const fundId = WARM_UP_FUND.fundId;
    const store = embeddedStore([WARM_UP_FUND]);
    const values = (await store.identities(fundId)).investors!.flatMap(identityValues);
    const text = JSON.stringify(await store.index(fundId));
    expect(text.length).toBeGreaterThan(5_000);
    expect(findIdentities(text, identitySet(values))).toBe(false);
    // …which the scan would stop at: an investor's name written into it is found.
    expect(findIdentities(text.replace('"runs":[', `"runs":["${values[0]}",`), identitySet(values))).toBe(true);
  });

  it('holds amounts beyond 2^30 cents, as a real fund does: its NAV', async () => {
    const def = FUND_TOOLS.find((d) => d.tool === 'get_fund_overview')!;
    const text = await callFundTool(def, { store: embeddedStore([WARM_UP_FUND]), fundId: WARM_UP_FUND.fundId }, {}, def.example, 'query');
    const nav = (JSON.parse(text) as { latestNav: { nav: string } }).latestNav.nav;
    expect(nav).toBe('13388151.99');
    expect(Number(nav.replace('.', ''))).toBeGreaterThan(2 ** 30);
  });

  it('is a fund of its own, ending where the demo fund ends', () => {
    expect(WARM_UP_FUND.fundId).not.toBe(DEMO_FUND.fundId);
    expect(WARM_UP_FUND.endDate).toBe(DEMO_FUND.endDate);
  });
});

describe('withStoredSet', () => {
  const fundId = WARM_UP_FUND.fundId;

  it('hands over the stored set it is given, whether or not the caller holds its version', async () => {
    const plain = embeddedStore([WARM_UP_FUND]);
    // A simulated fund holds no stored set: without the wrapper, the set would be compiled.
    const got = await plain.identities(fundId);
    expect(got.compiled ?? null).toBeNull();
    const values = got.investors!.flatMap(identityValues);
    expect(values.length).toBeGreaterThanOrEqual(WARM_UP_FUND.initialInvestors * 5);
    const compiled = await storedIdentitySet(got.investors!);
    const store = withStoredSet(plain, compiled);
    const first = await store.identities(fundId);
    expect(first).toEqual({ ...got, compiled });
    expect(await loadIdentitySet(first.compiled!)).toEqual(identitySet(values));
    const again = await store.identities(fundId, [got.version]);
    expect(again).toEqual({ version: got.version, investors: null, compiled });
  });
});

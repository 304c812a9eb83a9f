/**
 * How the embedded funds are loaded as requests share them (lib/fund/embedded-store.ts, docs/fund-data.md):
 * one load per request however many of its reads arrive at once; across requests a kept, decoded fund and
 * never a pending load (a request whose load never finishes holds up another for at most `LOAD_CLAIM_MS`);
 * and the first fund request of an isolate as one MCP batch of 60 calls (issue: 60 loads of the 1.4 MB asset
 * stalled the service) fetches the asset once, with at most `MCP_BATCH_CONCURRENCY` tool calls at a time.
 * A file of its own: the isolate's funds (module state) start unloaded here.
 */
import { describe, expect, it } from 'vitest';
import { LOAD_CLAIM_MS, embeddedFunds } from '../../lib/fund/embedded-store.ts';
import { fundAssetPath } from '../../lib/fund/synthetic/codec.ts';
import type { FundReadRequest } from '../../lib/fund/store.ts';
import { DEMO_FUND, SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import { MCP_BATCH_CONCURRENCY } from '../../lib/limits.ts';
import { concurrencyGate } from '../../lib/mcp/sdk-adapter.ts';
import { createKey } from '../../lib/keys.ts';
import { fakeAssets, fakeEnv } from '../support/fakes.ts';
import { CATALOG } from '../../lib/registry.ts';
import { FUND, okJson, post, type RpcMessage, type ToolResult } from '../mcp/support.ts';

/** The assets binding over `public/`, counting fetches of the funds' assets; `hang` makes the next one never answer. */
function countingAssets() {
  const fetched: string[] = [];
  let hangNext = false;
  const binding = {
    fetched,
    hang: () => {
      hangNext = true;
    },
    fetch: async (input: Request | string) => {
      const path = new URL(input instanceof Request ? input.url : input).pathname;
      if (path.startsWith('/_fund/')) {
        fetched.push(path);
        if (hangNext) {
          hangNext = false;
          return new Promise<Response>(() => {}); // the fetch of a request that was cancelled
        }
      }
      return fakeAssets.fetch(input);
    },
  };
  return binding as typeof binding & Fetcher;
}

/** The funds' assets as the composition root hands them to the store: the binding and this build's fingerprints. */
const withFingerprints = (binding: Fetcher) => ({ binding, fingerprints: CATALOG.fundAssetFingerprints });

const READ: FundReadRequest = { positions: { navDates: ['2026-10-20'] }, ledger: { after: null, through: '2026-10-20' } };

describe('within one request', () => {
  it('every read shares one load of the fund, however many arrive at once', async () => {
    const assets = countingAssets();
    const store = embeddedFunds([DEMO_FUND]).forRequest(withFingerprints(assets));
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, () => store.index(DEMO_FUND.fundId)),
      ...Array.from({ length: 30 }, () => store.read(DEMO_FUND.fundId, READ)),
    ]);
    expect(assets.fetched).toEqual([fundAssetPath(DEMO_FUND.fundId)]);
    expect(answers.slice(0, 30).every((a) => JSON.stringify(a) === JSON.stringify(answers[0]))).toBe(true);
  });

  it('answers null for a fund it does not hold, loading nothing', async () => {
    const assets = countingAssets();
    expect(await embeddedFunds([DEMO_FUND]).forRequest(withFingerprints(assets)).index(SAMPLE_FUND.fundId)).toBeNull();
    expect(assets.fetched).toEqual([]);
  });
});

describe('across requests', () => {
  it('concurrent first requests decode the fund once: the others take the kept fund when it lands', async () => {
    const assets = countingAssets();
    const funds = embeddedFunds([DEMO_FUND]);
    const heads = await Promise.all(Array.from({ length: 10 }, () => funds.forRequest(withFingerprints(assets)).index(DEMO_FUND.fundId)));
    expect(assets.fetched).toHaveLength(1);
    expect(new Set(heads.map((h) => JSON.stringify(h))).size).toBe(1);
    // Kept: a later request loads nothing.
    await funds.forRequest(withFingerprints(assets)).read(DEMO_FUND.fundId, READ);
    expect(assets.fetched).toHaveLength(1);
  });

  it('a request whose load never finishes (cancelled) holds up another for at most the claim, which then loads itself', async () => {
    const assets = countingAssets();
    const funds = embeddedFunds([DEMO_FUND]);
    assets.hang();
    void funds.forRequest(withFingerprints(assets)).index(DEMO_FUND.fundId); // never answers
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const head = await funds.forRequest(withFingerprints(assets)).index(DEMO_FUND.fundId);
    expect(head?.fund.fundId).toBe(DEMO_FUND.fundId);
    expect(performance.now() - started).toBeGreaterThanOrEqual(LOAD_CLAIM_MS - 50);
    expect(performance.now() - started).toBeLessThan(LOAD_CLAIM_MS + 2_000);
    expect(assets.fetched).toHaveLength(2);
  });
});

describe('the concurrency gate of an MCP request', () => {
  it(`runs at most ${MCP_BATCH_CONCURRENCY} calls at once, all of them, first come first served`, async () => {
    const gate = concurrencyGate(MCP_BATCH_CONCURRENCY);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        gate(async () => {
          started.push(i);
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 2 + (i % 3)));
          running--;
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 25 }, (_, i) => i * 2));
    expect(most).toBe(MCP_BATCH_CONCURRENCY);
    expect(started).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('frees its slot when a call fails', async () => {
    const gate = concurrencyGate(1);
    await expect(gate(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await gate(async () => 'next')).toBe('next');
  });
});

describe("the first fund request of an isolate as one MCP batch of 60 get_fund_overview calls (the issue's figure)", () => {
  it('answers all 60 from one load of the fund asset', async () => {
    const { env, API_KEYS } = fakeEnv();
    const assets = countingAssets();
    const { key } = await createKey(API_KEYS, { fundId: SAMPLE_FUND.fundId });
    const body = Array.from({ length: 60 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'get_fund_overview', arguments: {} },
    }));
    // Batches are served under the revision a request without the header gets (2025-03-26).
    const res = await post(FUND, body, {
      env: { ...env, ASSETS: assets } as typeof env,
      auth: `Bearer ${key}`,
      headers: { 'mcp-protocol-version': null },
    });
    const { body: answers } = await okJson<RpcMessage[]>(res);
    expect(answers.map((a) => a.id).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const results = answers.map((a) => a.result as unknown as ToolResult);
    expect(results.every((r) => r.isError === undefined && r.content[0]!.text === results[0]!.content[0]!.text)).toBe(true);
    expect(assets.fetched).toEqual([fundAssetPath(SAMPLE_FUND.fundId)]);
  });
});

/**
 * The fund tools' startup warm-up (lib/fund/warm-up.ts) in workerd's global scope, where no I/O and no timer
 * is allowed (test/support/warm-up-worker.ts): it has settled when the isolate's first request reaches the
 * handler, and every tool answered, so each one's whole path (pseudonyms' HMAC included) ran without I/O or
 * a timer, as startup requires.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-warm-up-'));
let worker: TestWorker;

beforeAll(async () => {
  worker = await startWorker(persistDir, {}, 'none', { entrypoint: 'test/support/warm-up-worker.ts' });
}, 60_000);
afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

describe('the startup warm-up in workerd', () => {
  it('has settled before the first request, every fund tool answered', async () => {
    const res = await fetch(worker.base);
    expect(res.status).toBe(200);
    const { settled, outcomes } = (await res.json()) as { settled: boolean; outcomes: { tool: string; answered: boolean }[] };
    expect(settled).toBe(true);
    expect(outcomes.map((o) => o.tool)).toEqual(FUND_TOOLS.map((def) => def.tool));
    expect(outcomes.filter((o) => !o.answered)).toEqual([]);
  });
});

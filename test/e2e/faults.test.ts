/**
 * Faults in workerd, over real HTTP: the Worker through a test-only entry (test/support/fault-worker.ts)
 * that injects KV's faults into `RATE_LIMITS`, with the inspector on so that workerd's own reports reach
 * the Worker's log (test/support/worker.ts `captureWorkerLog`). Each case ends with every other request
 * answered correctly, the quota counted (what KV holds, read past the faults), and no uncaught exception
 * or hung request in the log:
 * - a client hanging up mid-request while other requests of the same caller and key are in flight, on an
 *   isolate's first (slow) read of a counter KV already holds;
 * - 200 concurrent requests of one caller on a fresh isolate: counted exactly, from what KV holds;
 * - KV refusing writes (all of them, then past its one write per key per second) and failing reads;
 * - the fund database dropping mid-answer (the project's WebSocket proxy cut while queries wait on a lock).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { calcPath, fundPath } from '../support/declared.ts';
import { QUOTA_SYNC_MS, secondsToUtcMidnight } from '../../lib/rate-limit.ts';
import { createTestDatabase, migrateAndSeed, someoneWaitsOnALock, type TestDatabase } from '../support/database.ts';
import { captureWorkerLog, mintKey, startWorker, type TestWorker, type WorkerLog } from '../support/worker.ts';

const ENTRY = 'test/support/fault-worker.ts';
/** The burst guard raised, so that hundreds of calls in a second reach the daily quota (as test/e2e/worker.test.ts). */
const RAISED = {
  CALC_BURST: { type: 'ratelimit', namespace_id: '1001', simple: { limit: 1_000_000, period: 60 } },
  FUND_BURST: { type: 'ratelimit', namespace_id: '1002', simple: { limit: 1_000_000, period: 60 } },
};

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-faults-'));
let log: WorkerLog;
let worker: TestWorker;

async function start(bindings: Record<string, unknown> = {}): Promise<void> {
  worker = await startWorker(persistDir, { ...RAISED, ...bindings }, 'error', { entrypoint: ENTRY, inspector: true });
}

/** A fresh key with its own calculator limit (its own counter). */
const keyWith = (limit: number) => mintKey(persistDir, ['--fund', 'faults', '--label', 'faults', '--daily-calc-limit', String(limit)]);

/** Sets the faults of `RATE_LIMITS` (fields not given keep their value); answers the wrapper's counts. */
async function faults(
  set: Record<string, unknown> = {},
): Promise<{ reads: number; writes: number; refusedWrites: number; writesInFlight: number }> {
  const res = await fetch(`${worker.base}/api/__faults`, { method: 'POST', body: JSON.stringify(set) });
  return (await res.json()) as { reads: number; writes: number; refusedWrites: number; writesInFlight: number };
}
const NO_FAULTS = { readDelayMs: 0, failReads: false, writeDelayMs: 0, refuseWrites: 'rate' };

/** What KV holds for a key's counter today. */
async function stored(key: string): Promise<number | null> {
  const res = await fetch(`${worker.base}/api/__quota`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { stored: number | null }).stored;
}

/** One calculator call: its status and the remaining calls it reports (`RateLimit: "daily";r=<n>`). */
async function calc(key: string, signal?: AbortSignal): Promise<{ status: number; remaining: number | null; code?: string }> {
  const res = await fetch(`${worker.base}${calcPath('operating-cost-calculator')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: '{}',
    signal: signal ?? AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { code?: string; totalAnnualCostUsd?: number };
  if (res.status === 200) expect(body.totalAnnualCostUsd).toEqual(expect.any(Number));
  const remaining = /"daily";r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1];
  return { status: res.status, remaining: remaining === undefined ? null : Number(remaining), ...(body.code ? { code: body.code } : {}) };
}

/** Waits until KV holds `count` for the key (written behind the answers, within about a second). */
async function expectStored(key: string, count: number): Promise<void> {
  await vi.waitFor(async () => expect(await stored(key)).toBe(count), { timeout: 10_000, interval: 100 });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every problem line of the Worker's log since the case began (a case ends with none). */
function expectCleanLog(): void {
  expect(log.problems()).toEqual([]);
}

beforeAll(async () => {
  log = captureWorkerLog();
  // The counters are per UTC day: a case must not straddle midnight.
  if (secondsToUtcMidnight(new Date()) < 120) await sleep((secondsToUtcMidnight(new Date()) + 1) * 1000);
  await start();
});

afterAll(async () => {
  await worker?.dispose();
  log?.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await faults(NO_FAULTS);
  log.clear();
});

describe('the log check', () => {
  it('sees an uncaught exception in the Worker (so a clean log means something)', async () => {
    expect((await fetch(`${worker.base}/api/__uncaught`, { method: 'POST' })).status).toBe(204);
    await vi.waitFor(() => expect(log.problems().join('\n')).toContain('a rejection left uncaught on purpose'), { timeout: 10_000 });
    log.clear();
  });
});

describe('the quota under faults, in workerd', () => {
  it('a client hanging up mid-request, on the first (slow) read of a new isolate, holds up none of the same key in flight', async () => {
    const key = await keyWith(1_000);
    for (let i = 0; i < 5; i++) expect((await calc(key)).status).toBe(200);
    await expectStored(key, 5);
    // A new isolate: its first read of this counter takes 400 ms; the first caller hangs up during it.
    await worker.dispose();
    await start();
    await faults({ readDelayMs: 400 });
    const hangingUp = new AbortController();
    const first = calc(key, hangingUp.signal).catch((err: unknown) => err);
    await sleep(100);
    const others = Array.from({ length: 20 }, () => calc(key));
    await sleep(100);
    hangingUp.abort();
    const answers = await Promise.all(others);
    expect((await first) as Error).toMatchObject({ name: 'AbortError' });
    // Each answered from KV's 5 on, one call each: 20 distinct counts, whether the hung-up call was counted or not.
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const used = answers.map((a) => 1_000 - a.remaining!).sort((a, b) => a - b);
    expect(new Set(used).size).toBe(20);
    expect(used[0]).toBeGreaterThanOrEqual(6);
    expect(used.at(-1)).toBeLessThanOrEqual(26);
    await faults(NO_FAULTS);
    // The hung-up call, when the Worker finished it (locally workerd does), is counted too.
    await vi.waitFor(async () => expect([25, 26]).toContain(await stored(key)), { timeout: 10_000, interval: 100 });
    const total = (await stored(key))!;
    expect(await calc(key)).toEqual({ status: 200, remaining: 1_000 - total - 1 });
    expectCleanLog();
  }, 60_000);

  it('200 concurrent requests of one caller on a fresh isolate: counted exactly from what KV holds, the rest refused', async () => {
    const key = await keyWith(150);
    for (let i = 0; i < 30; i++) expect((await calc(key)).status).toBe(200);
    await expectStored(key, 30);
    await worker.dispose();
    await start();
    await faults({ readDelayMs: 50 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => calc(key)));
    const served = answers.filter((a) => a.status === 200);
    expect(served).toHaveLength(120);
    // Each served call saw its own count: remaining 119 … 0, each once.
    expect(served.map((a) => a.remaining).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    expect(answers.filter((a) => a.status === 429 && a.code === 'rate_limited' && a.remaining === 0)).toHaveLength(80);
    await expectStored(key, 150);
    expectCleanLog();
  }, 60_000);

  it('KV refusing every write, then past its one write per key per second: every call answered, none lost once a write succeeds', async () => {
    const key = await keyWith(1_000);
    await faults({ refuseWrites: 'all' });
    for (let i = 1; i <= 10; i++) expect(await calc(key)).toEqual({ status: 200, remaining: 1_000 - i });
    expect(await stored(key)).toBeNull();
    // KV takes writes again, at most one per key per second: the requests still trying write the whole count.
    await faults({ refuseWrites: 'rate' });
    await expectStored(key, 10);
    // A burst, as fast as the client can: one isolate never goes past KV's write rate, and the last write has every call.
    const before = await faults();
    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 60 }, () => calc(key)));
    expect(burst.every((a) => a.status === 200)).toBe(true);
    await expectStored(key, 70);
    const after = await faults();
    const seen = JSON.stringify({ before, after, ms: Math.round(performance.now() - started) });
    expect(after.refusedWrites - before.refusedWrites, seen).toBe(0);
    // At most one write a second (the first at once).
    expect(after.writes - before.writes, seen).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 1000) + 1);
    expectCleanLog();
  }, 60_000);

  it('KV slow to take a write: a refusal answers at once, not after the write of the calls before it', async () => {
    const key = await keyWith(3);
    await faults({ writeDelayMs: 4_000 });
    for (let i = 0; i < 3; i++) expect((await calc(key)).status).toBe(200);
    const refused = await calc(key);
    expect(refused).toEqual({ status: 429, remaining: 0, code: 'rate_limited' });
    // Answered while the first write is still on its way to KV.
    expect((await faults()).writesInFlight).toBeGreaterThan(0);
    await faults({ writeDelayMs: 0 });
    await expectStored(key, 3);
    expectCleanLog();
  }, 60_000);

  it('KV failing reads: every call answered from the count in memory (never a 5xx), and KV catches up once reads work', async () => {
    const key = await keyWith(1_000);
    for (let i = 0; i < 3; i++) await calc(key);
    await expectStored(key, 3);
    await worker.dispose();
    await start();
    await faults({ failReads: true });
    // A new isolate that cannot read KV counts from 0: 1,000 − 1 … 1,000 − 10, all served.
    const answers: { status: number; remaining: number | null }[] = [];
    for (let i = 0; i < 10; i++) answers.push(await calc(key));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.map((a) => a.remaining)).toEqual(Array.from({ length: 10 }, (_, i) => 999 - i));
    // Its writes (10) replace the 3 KV held: the last write wins, as between any two isolates.
    await expectStored(key, 10);
    expect(log.lines().some((line) => line.includes('"event":"quota_read_failed"'))).toBe(true);
    await faults({ failReads: false });
    await sleep(QUOTA_SYNC_MS + 100);
    expect((await calc(key)).remaining).toBe(1_000 - 11);
    expectCleanLog();
  }, 60_000);
});

describe('the fund database dropping mid-answer, in workerd', () => {
  const FUND_ID = 'faults-db-fund';
  const dbPersist = mkdtempSync(join(tmpdir(), 'fund-edge-faults-db-'));
  let database: TestDatabase;
  let dbWorker: TestWorker;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrateAndSeed(database, [FUND_ID]);
    key = await mintKey(dbPersist, ['--fund', FUND_ID, '--label', 'faults db']);
    const text = (value: string) => ({ type: 'plain_text', value });
    dbWorker = await startWorker(
      dbPersist,
      {
        ...RAISED,
        FUND_ID: text(FUND_ID),
        DATABASE_URL: text(database.url),
        DATABASE_WS_PROXY: text(database.proxy.wsProxy),
        INVESTOR_REF_KEY: text('test-investor-ref-key-0123456789'),
      },
      'error',
      { inspector: true },
    );
  }, 120_000);

  afterAll(async () => {
    await dbWorker?.dispose();
    await database?.dispose();
    rmSync(dbPersist, { recursive: true, force: true });
  });

  const rest = (tool: string, k = key) => fetch(`${dbWorker.base}${fundPath(tool)}`, { headers: { authorization: `Bearer ${k}` } });
  const batch = (names: string[]) =>
    fetch(`${dbWorker.base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(names.map((name, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name, arguments: {} } }))),
    });

  /** A REST fund answer is whole data or the documented 503, never anything else. */
  async function expectDataOr503(res: Response): Promise<'data' | 'unavailable'> {
    const body = (await res.json()) as { code?: string; positions?: unknown[] };
    if (res.status === 200) {
      expect(body.positions?.length).toBeGreaterThan(0);
      return 'data';
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(body.code).toBe('upstream_unavailable');
    return 'unavailable';
  }

  it('every request in flight answers (its data, or 503 upstream_unavailable), the demo key is served, and the next requests get data', async () => {
    // Another session holds `positions` locked, so the Worker's reads wait on the server; then the proxy is cut.
    const holder = database.open(60_000);
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE positions IN ACCESS EXCLUSIVE MODE');
    const restAnswers = Array.from({ length: 6 }, () => rest('get_positions'));
    const mcpAnswer = batch(['get_positions', 'get_positions', 'get_fund_overview', 'get_nav_history']);
    if (database.kind === 'postgres') await someoneWaitsOnALock(database);
    else await sleep(500);
    const demo = rest('get_fund_overview', 'svc_dk_DemoKeyFundEdgeSyntheticFixture1');
    database.proxy.dropConnections();

    const outcomes = await Promise.all((await Promise.all(restAnswers)).map(expectDataOr503));
    expect(outcomes).toContain('unavailable');
    const mcp = await mcpAnswer;
    expect(mcp.status).toBe(200);
    const results = (await mcp.json()) as { id: number; result: { isError?: boolean; content: { text: string }[] } }[];
    expect(results.map((r) => r.id).sort()).toEqual([1, 2, 3, 4]);
    for (const r of results) {
      if (r.result.isError) expect(JSON.parse(r.result.content[0]!.text)).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    }
    expect((await demo).status).toBe(200);
    await holder.query('ROLLBACK').catch(() => {});
    await holder.release();

    expect(await expectDataOr503(await rest('get_positions'))).toBe('data');
    const again = (await (await batch(['get_positions'])).json()) as { result: { isError?: boolean } }[];
    expect(again[0]!.result.isError).toBeUndefined();
    // Closing the cut connections is work behind the answers: give it a moment, then read the log.
    await sleep(1_000);
    expectCleanLog();
  }, 90_000);
});

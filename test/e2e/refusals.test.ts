/**
 * Refusals that must leave nothing behind, in workerd over real HTTP:
 * - keyless garbage at the OAuth token endpoint (refresh tokens of grants that do not exist, clients that
 *   do not exist) creates no atomic record (a Durable Object, lib/atomic.ts): the records' storage under the
 *   test's persist folder is counted before and after; and the endpoint is rate-limited per client network;
 * - a chunked body over the 1 MiB cap is refused 413 and the Worker's log stays clean (no uncaught
 *   "Can't read from request stream after response has been sent");
 * - the retired invitation path (`/developers/console/invite/<token>`) answers 410 without redeeming, and
 *   the token reaches no log line of the Worker.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPath } from '../support/declared.ts';
import { MAX_BODY_BYTES, OAUTH_TOKEN_BURST_LIMIT } from '../../lib/limits.ts';
import { operatorInvite } from '../support/browser.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { captureWorkerLog, startWorker, type TestWorker, type WorkerLog } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-refusals-'));
let worker: TestWorker;
let log: WorkerLog;
/** The console's origin: `localhost` on the Worker's port. */
let origin: string;

beforeAll(async () => {
  log = captureWorkerLog();
  worker = await startWorker(persistDir, {}, 'error', { inspector: true });
  origin = worker.base.replace('127.0.0.1', 'localhost');
});

afterAll(async () => {
  await worker?.dispose();
  log?.stop();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Every file under a folder, recursively, with its size in bytes. */
function filesUnder(dir: string): { path: string; bytes: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path, bytes: statSync(path).size };
    });
}

/** The atomic records' files (each Durable Object's SQLite database) under the persist folder. */
function atomicRecordFiles(): string[] {
  return filesUnder(persistDir)
    .map((f) => f.path)
    .filter((path) => /AtomicRecord/.test(path) && /\.sqlite$/.test(path));
}

/** A token request from a client network of its own. */
function tokenRequest(form: Record<string, string>, ip: string): Promise<Response> {
  return fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': ip },
    body: new URLSearchParams(form).toString(),
  });
}

describe('keyless requests to /oauth/token create no atomic record', () => {
  it('refresh tokens of made-up grants, from made-up clients and without any client, write nothing to the atomic store', async () => {
    // One real record first, so that the count is known to see records (a client registration's daily count).
    const registered = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': '198.18.1.1' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const before = atomicRecordFiles();
    expect(before.length).toBeGreaterThan(0);
    const answers: Response[] = [];
    for (let i = 0; i < 30; i++) {
      const ip = `198.18.2.${i}`;
      const refreshToken = `u${i}:g${i}:s${i}`;
      answers.push(
        await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'nosuch' }, ip),
        await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, ip),
        // A real client, a grant that does not exist.
        await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, ip),
      );
    }
    for (const res of answers) {
      expect([400, 401]).toContain(res.status);
      await res.arrayBuffer();
    }
    expect(atomicRecordFiles()).toEqual(before);
  });

  it(`is rate-limited per client network: ${OAUTH_TOKEN_BURST_LIMIT} a minute, then 429; another network is still served`, async () => {
    const ip = '198.18.3.1';
    const statuses: number[] = [];
    for (let i = 0; i < OAUTH_TOKEN_BURST_LIMIT + 3; i++) {
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: `u:g:${i}`, client_id: 'nosuch' }, ip);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, OAUTH_TOKEN_BURST_LIMIT).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(OAUTH_TOKEN_BURST_LIMIT)).toEqual([429, 429, 429]);
    const other = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'u:g:s', client_id: 'nosuch' }, '198.18.3.2');
    expect(other.status).toBe(401);
  });
});

/** A chunked body of `chunks` chunks of 64 KiB (a stream: fetch sends it without a length). */
function chunkedBody(chunks: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

describe('a chunked body over the cap (workerd)', () => {
  it('is refused 413 every time, the next request on the connection is served, and nothing is logged as uncaught', async () => {
    log.clear();
    const answers: (number | string)[] = [];
    for (const path of [calcPath('fee-calculator'), '/api/mcp/public', '/developers/console/api/keys', '/oauth/register']) {
      for (let i = 0; i < 6; i++) {
        const chunks = Math.ceil(MAX_BODY_BYTES / (64 * 1024)) + 1 + (i % 4);
        try {
          const res = await fetch(`${origin}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin },
            body: chunkedBody(chunks),
            duplex: 'half',
          } as RequestInit);
          await res.arrayBuffer();
          answers.push(res.status);
        } catch (err) {
          // Before the fix: the connection was reset (or the local proxy answered 503) after a refusal.
          answers.push(String((err as Error).cause ?? err));
        }
      }
    }
    expect(answers).toEqual(Array(24).fill(413));
    // workerd reports an error after the answer a moment later, if at all.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await fetch(`${worker.base}/llms.txt`)).status).toBe(200);
    expect(log.problems()).toEqual([]);
    expect(log.lines().join('\n')).not.toMatch(/Can't read from request stream/);
  });
});

describe('the retired invitation path', () => {
  it('answers 410 without redeeming; the token reaches no log line; the fragment link still works', async () => {
    const link = await operatorInvite(['--fund', 'sample-fund'], 'http://localhost', persistDir);
    const token = link.split('#')[1]!;
    log.clear();
    const old = await fetch(`${origin}/developers/console/invite/${token}`, { redirect: 'manual' });
    expect(old.status).toBe(410);
    expect(old.headers.get('location')).toBeNull();
    expect(old.headers.get('cache-control')).toBe('no-store');
    const page = await old.text();
    expect(page).not.toContain(token);
    expect(page).toMatch(/ask .* for a new link/i);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(log.lines().join('\n')).not.toContain(token);
    // Not redeemed: the invitation still gives the fund to the account that accepts it.
    const u = new ConsoleClient(origin, '198.18.4.1');
    expect((await u.signUp(token)).status).toBe(201);
    expect((await u.post('/keys', { label: 'fund', scope: 'fund' })).status).toBe(201);
  });
});

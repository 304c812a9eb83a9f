/**
 * The security rules that only hold if they hold in workerd, under concurrency, over real HTTP: single-use
 * invitations and the key cap (atomic records, lib/atomic.ts), the OAuth endpoints' body bounds, refresh-token
 * reuse detection, and the daily caps per client network. Accounts sign up with a software passkey
 * (test/support/passkey.ts), each from its own client network.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from '../../lib/console/accounts.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';
import { ConsoleClient, invite } from '../support/console-client.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-security-'));
let worker: TestWorker;
/** The console's origin: `localhost` on the Worker's port (the console serves no IP address). */
let origin: string;
let invitations: string[];
let nextNetwork = 1;

/** A console user on a client network of its own. */
function user(): ConsoleClient {
  const n = nextNetwork++;
  return new ConsoleClient(origin, `198.51.${n >> 8}.${n & 0xff}`);
}

/** A promise and its resolver: the moment synchronised requests send their last byte. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Sends `count` requests made by `send` with their last bytes held, then lets every last byte go at once. */
async function synchronised(count: number, send: (i: number, lastByteAfter: Promise<void>) => Promise<Response>): Promise<Response[]> {
  const { opened, open } = gate();
  const answers = Array.from({ length: count }, (_, i) => send(i, opened));
  // Every request's headers and all but one byte of its body are on their way; give workerd a moment to
  // start each one (they then wait for the last byte), and release them together.
  await new Promise((resolve) => setTimeout(resolve, 500));
  open();
  return Promise.all(answers);
}

/** A signed-up user (fails the test when sign-up does). */
async function signedUp(): Promise<ConsoleClient> {
  const u = user();
  const res = await u.signUp();
  expect(res.status, await res.clone().text()).toBe(201);
  return u;
}

beforeAll(async () => {
  invitations = [invite(persistDir)];
  // The console's burst guard (20 a minute per network and action) is raised: 30 mints of one account come
  // from one network, and what is tested is the key cap behind the guard.
  worker = await startWorker(persistDir, {
    CONSOLE_BURST: { type: 'ratelimit', namespace_id: '1003', simple: { limit: 1000, period: 60 } },
  });
  origin = worker.base.replace('127.0.0.1', 'localhost');
});

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

describe('an invitation is single use under concurrency (atomic record)', () => {
  it('30 accounts accepting one invitation at once: exactly one gets the fund', async () => {
    const users = await Promise.all(Array.from({ length: 30 }, () => signedUp()));
    const answers = await synchronised(30, (i, last) => users[i]!.post('/invitations/accept', { invitation: invitations[0] }, last));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(29);
    // Only the winner may mint a fund key.
    const mints = await Promise.all(users.map((u) => u.post('/keys', { label: 'fund', scope: 'fund' })));
    expect(mints.map((r) => r.status).sort()).toEqual([201, ...Array(29).fill(403)].sort());
    expect(mints.findIndex((r) => r.status === 201)).toBe(statuses.indexOf(200));
  });
});

describe('the key cap holds under concurrency (atomic record)', () => {
  it(`30 mints of one account at once create at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoking one makes room for one`, async () => {
    const u = await signedUp();
    const answers = await synchronised(30, (i, last) => u.post('/keys', { label: `k${i}`, scope: 'calc' }, last));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(30 - MAX_ACTIVE_KEYS_PER_ACCOUNT);
    const page = await (await u.request('/developers/console')).text();
    expect(page.match(/data-action="revoke"/g) ?? []).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    const keyId = ((await created[0]!.json()) as { keyId: string }).keyId;
    expect((await u.post(`/keys/${keyId}/revoke`)).status).toBe(200);
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => u.post('/keys', { label: `again${i}`, scope: 'calc' })));
    expect(again.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400]);
  });
});

/**
 * The security rules that only hold if they hold in workerd, under concurrency, over real HTTP: single-use
 * invitations and the key cap (atomic records, lib/atomic.ts), the OAuth endpoints' body bounds, refresh-token
 * reuse detection, and the daily caps per client network. Accounts sign up with a software passkey
 * (test/support/passkey.ts), each from its own client network.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { calcPath } from '../support/declared.ts';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from '../../lib/console/accounts.ts';
import { OAUTH_MAX_FORM_FIELDS, SIGNUPS_PER_NETWORK_PER_DAY } from '../../lib/limits.ts';
import { REFRESH_REUSE_DESCRIPTION } from '../../lib/oauth/routes.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';
import { ConsoleClient, lastByteHeld } from '../support/console-client.ts';
import { operatorInvite } from '../support/browser.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import { exchangeCodeAt, pkce, REDIRECT_URI } from '../support/oauth.ts';

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

/** An invitation's token, from the real `npm run console -- invite` CLI into the worker's local KV. */
async function invite(): Promise<string> {
  return (await operatorInvite(['--fund', 'sample-fund'], 'http://localhost', persistDir)).split('#')[1]!;
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

/** What the Worker logged (at log level `error`, wrangler prints the Worker's console.error lines in this process). */
const workerLog: string[] = [];

beforeAll(async () => {
  invitations = [await invite(), await invite()];
  for (const stream of ['stderr', 'stdout'] as const) {
    const write = process[stream].write.bind(process[stream]);
    vi.spyOn(process[stream], 'write').mockImplementation((chunk, ...rest) => {
      workerLog.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
  }
  // wrangler prints the Worker's errors through console.error (and vitest captures those).
  for (const level of ['error', 'warn', 'log'] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      workerLog.push(args.map(String).join(' '));
      original(...args);
    });
  }
  // The console's burst guard (20 a minute per network and action) is raised: 30 mints of one account come
  // from one network, and what is tested is the key cap behind the guard.
  worker = await startWorker(
    persistDir,
    { CONSOLE_BURST: { type: 'ratelimit', namespace_id: '1003', simple: { limit: 1000, period: 60 } } },
    'error',
  );
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

describe(`sign-ups are capped at ${SIGNUPS_PER_NETWORK_PER_DAY} per client network and UTC day (atomic count)`, () => {
  it('of 12 sign-ups from one network at once, exactly the cap creates accounts; the rest are 429 until midnight; other networks are not counted', async () => {
    const ip = '203.0.113.77';
    const answers = await Promise.all(Array.from({ length: 12 }, () => new ConsoleClient(origin, ip).signUp()));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(SIGNUPS_PER_NETWORK_PER_DAY);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - SIGNUPS_PER_NETWORK_PER_DAY);
    const refused = answers.find((r) => r.status === 429)!;
    expect(((await refused.json()) as { code: string }).code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused at the start of the next ceremony, before the browser is asked for a passkey.
    expect((await new ConsoleClient(origin, ip).post('/register/options')).status).toBe(429);
    expect((await new ConsoleClient(origin, '203.0.113.78').signUp()).status).toBe(201);
  });
});

/** A form of `n` distinct fields (`f0=x&f1=x&…`), as the request. */
const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=x`).join('&');

describe('what reaches the OAuth library is bounded (workerd)', () => {
  it.each([40_000, 80_000])(
    'a token request of %i distinct fields is refused 413 problem+json at once; the isolate keeps serving',
    async (n) => {
      const body = fields(n);
      const [token, docs] = await Promise.all([
        fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }),
        fetch(`${worker.base}/llms.txt`),
      ]);
      expect(token.status).toBe(413);
      expect(token.headers.get('content-type')).toBe('application/problem+json');
      expect(((await token.json()) as { code: string }).code).toBe('payload_too_large');
      expect(docs.status).toBe(200);
    },
  );

  it(`a token request of ${OAUTH_MAX_FORM_FIELDS + 1} fields is refused 400 problem+json; at ${OAUTH_MAX_FORM_FIELDS} it reaches the library`, async () => {
    const over = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields(OAUTH_MAX_FORM_FIELDS + 1),
    });
    expect(over.status).toBe(400);
    expect(((await over.json()) as { code: string }).code).toBe('invalid_request');
    const within = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields(OAUTH_MAX_FORM_FIELDS),
    });
    expect(within.status).toBe(401);
    expect(((await within.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('a registration sent chunked (no Content-Length) within the bounds is registered', async () => {
    const body = new TextEncoder().encode(
      JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
    );
    const res = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': '198.18.0.9' },
      body: new Response(body).body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(201);
  });

  it('the metadata and the token endpoint on 127.0.0.1 answer as the issuer (localhost) does', async () => {
    const metadata = await fetch(`${worker.base}/.well-known/oauth-authorization-server`);
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe(origin);
    const token = await fetch(`${worker.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(token.status).toBe(401);
  });
});

/** Registration, consent (approved) and the code exchange over HTTP, for a user whose account has the fund. */
async function oauthTokens(u: ConsoleClient): Promise<{ clientId: string; access_token: string; refresh_token: string }> {
  const registered = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-connecting-ip': u.ip },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'e2e client', token_endpoint_auth_method: 'none' }),
  });
  expect(registered.status).toBe(201);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = await pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
    scope: 'fund:read',
    resource: `${worker.base}/api/mcp`,
  });
  const path = `/developers/console/oauth/authorize?${query}`;
  const page = await (await u.request(path)).text();
  const handle = /name="handle" value="([^"]+)"/.exec(page)?.[1];
  expect(handle).toBeTruthy();
  const decided = await u.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ handle: handle!, csrf: u.csrf, decision: 'approve' }),
  });
  expect(decided.status).toBe(302);
  const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
  const exchanged = await exchangeCodeAt(origin, { clientId, code, verifier });
  expect(exchanged.status).toBe(200);
  return { clientId, ...((await exchanged.json()) as { access_token: string; refresh_token: string }) };
}

/** A refresh at the token endpoint, its last byte held until `lastByteAfter` when given. */
function refresh(clientId: string, refreshToken: string, lastByteAfter?: Promise<void>): Promise<Response> {
  const body = new TextEncoder().encode(
    new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
  );
  const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
  return fetch(`${origin}/oauth/token`, lastByteAfter === undefined ? init : { ...init, ...lastByteHeld(body, lastByteAfter) });
}

/** The status of an MCP `initialize` on the fund server with an access token. */
async function mcpStatus(accessToken: string): Promise<number> {
  const res = await fetch(`${worker.base}/api/mcp`, {
    method: 'POST',
    headers: { ...SPEC_MCP_HEADERS, authorization: `Bearer ${accessToken}` },
    body: JSON.stringify(specInitialize()),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('refresh-token reuse revokes the grant (workerd, RFC 9700 §4.14.2)', () => {
  let fundUser: ConsoleClient;
  beforeAll(async () => {
    fundUser = user();
    expect((await fundUser.signUp(invitations[1])).status).toBe(201);
  });

  it('after RT1 → RT2, replaying RT1 is refused and RT2 and its access token stop working', async () => {
    const t = await oauthTokens(fundUser);
    const rotated = await refresh(t.clientId, t.refresh_token);
    expect(rotated.status).toBe(200);
    const two = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(await mcpStatus(two.access_token)).toBe(200);
    const replay = await refresh(t.clientId, t.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ error: 'invalid_grant', error_description: REFRESH_REUSE_DESCRIPTION });
    expect((await refresh(t.clientId, two.refresh_token)).status).toBe(400);
    expect(await mcpStatus(two.access_token)).toBe(401);
  });

  it('30 replays of RT1 at once with the legitimate RT2 among them: no replay is answered, and the grant is revoked', async () => {
    const t = await oauthTokens(fundUser);
    const rotated = await refresh(t.clientId, t.refresh_token);
    const two = (await rotated.json()) as { access_token: string; refresh_token: string };
    const answers = await synchronised(31, (i, last) => refresh(t.clientId, i === 15 ? two.refresh_token : t.refresh_token, last));
    // The token is checked once the library has validated it: RT2's own exchange may complete before any
    // replay reaches the grant's record. Then it alone is answered, and its tokens stop with the grant.
    expect(answers.filter((_r, i) => i !== 15).map((r) => r.status)).toEqual(Array(30).fill(400));
    expect([200, 400]).toContain(answers[15]!.status);
    if (answers[15]!.status === 200) {
      const three = (await answers[15]!.json()) as { access_token: string; refresh_token: string };
      expect(await mcpStatus(three.access_token)).toBe(401);
      expect((await refresh(t.clientId, three.refresh_token)).status).toBe(400);
    }
    expect(await mcpStatus(two.access_token)).toBe(401);
    expect((await refresh(t.clientId, two.refresh_token)).status).toBe(400);
  });

  it('30 simultaneous refreshes with one made-up token of the grant revoke nothing', async () => {
    const t = await oauthTokens(fundUser);
    const [userId, grantId] = t.refresh_token.split(':');
    const forged = `${userId}:${grantId}:${'A'.repeat(32)}`;
    const answers = await synchronised(30, (_, last) => refresh(t.clientId, forged, last));
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(400));
    expect(await mcpStatus(t.access_token)).toBe(200);
    expect((await refresh(t.clientId, t.refresh_token)).status).toBe(200);
  });

  it('30 presentations of one fresh refresh token at once: at most one is answered, and its tokens are revoked too', async () => {
    const t = await oauthTokens(fundUser);
    const answers = await synchronised(30, (_, last) => refresh(t.clientId, t.refresh_token, last));
    const issued = answers.filter((r) => r.status === 200);
    expect(issued.length).toBeLessThanOrEqual(1);
    for (const r of issued) expect(await mcpStatus(((await r.json()) as { access_token: string }).access_token)).toBe(401);
    expect(await mcpStatus(t.access_token)).toBe(401);
  });
});

/** Sends `head` over a raw connection, then drops the connection before the body is complete. */
async function hangUp(head: string): Promise<void> {
  const socket = net.connect(Number(new URL(worker.base).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('a client hanging up mid-body (workerd)', () => {
  it('is not logged as an unexpected error, with a declared length or chunked, on a calculator, the console and OAuth', async () => {
    const port = new URL(worker.base).port;
    const before = workerLog.length;
    for (const [path, type, partial] of [
      [calcPath('fee-calculator'), 'application/json', '{"navStartUsd":1'],
      ['/developers/console/api/register/verify', 'application/json', '{"response":{'],
      ['/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=refresh'],
      ['/oauth/register', 'application/json', '{"redirect_uris":['],
    ] as const) {
      const head = `POST ${path} HTTP/1.1\r\nHost: localhost:${port}\r\nOrigin: http://localhost:${port}\r\ncontent-type: ${type}\r\n`;
      await hangUp(`${head}content-length: 1000\r\n\r\n${partial}`);
      await hangUp(`${head}transfer-encoding: chunked\r\n\r\n${partial.length.toString(16)}\r\n${partial}\r\n`);
    }
    const logged = workerLog.slice(before).join('');
    expect(logged).not.toContain('unexpected_error');
    expect(logged).not.toContain('"status":500');
    // The Worker still answers.
    expect((await fetch(`${worker.base}/llms.txt`)).status).toBe(200);
  });
});

describe('the Worker log of all of the above', () => {
  it('holds no unexpected error, hung request or uncaught exception', () => {
    const logged = workerLog.join('');
    expect(logged).not.toContain('unexpected_error');
    expect(logged).not.toMatch(/hung|Uncaught/);
  });
});

/**
 * The console's records and rules (lib/console/accounts.ts, invitations.ts, standing.ts, config.ts) over in-memory KV:
 * sessions, invitations, account revocation, plans, minting scopes, key authentication of console keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createAccount,
  createSession,
  endSession,
  listAccountKeys,
  listAccounts,
  mintAccountKey,
  MAX_ACTIVE_KEYS_PER_ACCOUNT,
  readSession,
  revokeAccount,
  revokeAccountKey,
  saveAccount,
  SESSION_TTL_SECONDS,
  setPlan,
} from '../../lib/console/accounts.ts';
import { createInvitation, InvitationUnusableError, redeemInvitation, usableInvitation } from '../../lib/console/invitations.ts';
import {
  consoleHostCheck as hostCheck,
  consoleOriginCheck,
  consoleSettings,
  ConsoleHostError,
  ConsoleNotConfiguredError,
} from '../../lib/console/config.ts';
import { PLAN_DAILY_CALC_LIMITS } from '../../lib/identity.ts';
import { KEY_USE_NOTE_INTERVAL_MS, consoleAccounts, noteKeyUse } from '../../lib/console/standing.ts';
import { createKey } from '../../lib/keys.ts';
import { authenticate } from '../../lib/auth.ts';
import { calcCaller } from '../../lib/rate-limit.ts';
import { FakeAtomicNamespace, MemoryKv } from '../support/fakes.ts';
import { thrown } from '../support/thrown.ts';

const T0 = new Date('2026-11-02T10:00:00Z');

/** The invitation when it can still be redeemed, else null. */
async function usableInvitationOrNull(kv: MemoryKv, token: string) {
  try {
    return await usableInvitation(kv, token, T0);
  } catch {
    return null;
  }
}
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function stores() {
  return { kv: new MemoryKv(), apiKeys: new MemoryKv(), atomic: new FakeAtomicNamespace() };
}

describe('sessions', () => {
  it('are found by id until they expire, store only the id hash, and end server side', async () => {
    const { kv } = stores();
    const account = await createAccount(kv, 'handle', T0);
    const { sessionId, expiresAt } = await createSession(kv, account.accountId, T0);
    expect(expiresAt.getTime() - T0.getTime()).toBe(SESSION_TTL_SECONDS * 1000);
    expect([...kv.data.keys()].some((k) => k.includes(sessionId))).toBe(false);
    expect((await readSession(kv, sessionId, later(60)))?.account.accountId).toBe(account.accountId);
    expect(await readSession(kv, sessionId, later(SESSION_TTL_SECONDS))).toBeNull();
    expect(await readSession(kv, 'x'.repeat(32), T0)).toBeNull();
    await endSession(kv, sessionId);
    expect(await readSession(kv, sessionId, later(60))).toBeNull();
  });

  it('of a revoked account are refused', async () => {
    const { kv, apiKeys } = stores();
    const account = await createAccount(kv, 'handle', T0);
    const { sessionId } = await createSession(kv, account.accountId, T0);
    await revokeAccount(kv, apiKeys, account.accountId, T0);
    expect(await readSession(kv, sessionId, later(60))).toBeNull();
  });
});

describe('invitations', () => {
  it('are single use, grant the fund and the plan, and store only the token hash', async () => {
    const { kv, atomic } = stores();
    const { token } = await createInvitation(kv, { fundId: 'sample-fund', plan: 'paid', ttlSeconds: 3600, now: T0 });
    expect([...kv.data.keys()].some((k) => k.includes(token))).toBe(false);
    const account = await createAccount(kv, 'handle', T0);
    const updated = await redeemInvitation(kv, atomic, token, account, later(60));
    expect(updated.fundIds).toEqual(['sample-fund']);
    expect(updated.plan).toBe('paid');
    const other = await createAccount(kv, 'other', T0);
    expect(await rejected(() => redeemInvitation(kv, atomic, token, other, later(120)))).toBeInstanceOf(InvitationUnusableError);
  });

  it('are single use under concurrency: of 30 accounts redeeming one at once, exactly one gets the fund', async () => {
    const { kv, atomic } = stores();
    const { token } = await createInvitation(kv, { fundId: 'sample-fund', now: T0 });
    const accounts = await Promise.all(Array.from({ length: 30 }, (_, i) => createAccount(kv, `h${i}`, T0)));
    const outcomes = await Promise.allSettled(accounts.map((a) => redeemInvitation(kv, atomic, token, a, T0)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof InvitationUnusableError)).toHaveLength(29);
    const winner = (won[0] as PromiseFulfilledResult<{ accountId: string }>).value.accountId;
    expect((await usableInvitationOrNull(kv, token)) === null).toBe(true);
    const withFund = (await listAccounts(kv)).filter((a) => a.fundIds.includes('sample-fund')).map((a) => a.accountId);
    expect(withFund).toEqual([winner]);
    // The winner retrying (its KV write had failed, say) is let through; nobody else is.
    kv.data.delete([...kv.data.keys()].find((k) => k.startsWith('invitation:'))!);
    const { token: again } = await createInvitation(kv, { fundId: 'f2', now: T0 });
    expect((await redeemInvitation(kv, atomic, again, accounts[3]!, T0)).fundIds).toContain('f2');
  });

  it('expire, and unknown or malformed tokens are refused the same way (410)', async () => {
    const { kv } = stores();
    const { token } = await createInvitation(kv, { fundId: 'sample-fund', ttlSeconds: 3600, now: T0 });
    expect((await usableInvitation(kv, token, later(3599))).fundId).toBe('sample-fund');
    const expired = await rejected(() => usableInvitation(kv, token, later(3600)));
    expect(expired).toBeInstanceOf(InvitationUnusableError);
    expect((expired as InvitationUnusableError).status).toBe(410);
    expect(await rejected(() => usableInvitation(kv, 'A'.repeat(32), T0))).toBeInstanceOf(InvitationUnusableError);
    expect(await rejected(() => usableInvitation(kv, '../x', T0))).toBeInstanceOf(InvitationUnusableError);
  });

  it('of the free plan leave a paid account paid', async () => {
    const { kv, atomic } = stores();
    const account = await setPlan(kv, (await createAccount(kv, 'h', T0)).accountId, 'paid');
    const { token } = await createInvitation(kv, { fundId: 'f', now: T0 });
    expect((await redeemInvitation(kv, atomic, token, account, T0)).plan).toBe('paid');
  });
});

describe('keys of an account', () => {
  it('mints calc keys for anyone and fund keys only for an invited fund', async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    const { record } = await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'a', now: T0 });
    expect(record).toMatchObject({ scope: 'calc', fundId: null, accountId: account.accountId, label: 'a' });
    const refused = await rejected(() => mintAccountKey(kv, apiKeys, atomic, account, { scope: 'fund', label: 'b' }));
    expect(refused).toMatchObject({ code: 'insufficient_scope', status: 403 });
    const { token } = await createInvitation(kv, { fundId: 'sample-fund', now: T0 });
    const invited = await redeemInvitation(kv, atomic, token, account, T0);
    expect((await mintAccountKey(kv, apiKeys, atomic, invited, { scope: 'fund', label: 'c' })).record.fundId).toBe('sample-fund');
    expect(
      await rejected(() => mintAccountKey(kv, apiKeys, atomic, invited, { scope: 'fund', fundId: 'other', label: 'd' })),
    ).toMatchObject({
      code: 'insufficient_scope',
    });
    expect((await listAccountKeys(kv, apiKeys, account.accountId)).map((k) => k.label).sort()).toEqual(['a', 'c']);
  });

  it(`caps an account at ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoking one makes room`, async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    const ids: string[] = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++)
      ids.push((await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: `k${i}` })).record.keyId);
    expect(await rejected(() => mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'over' }))).toMatchObject({
      code: 'invalid_request',
    });
    await revokeAccountKey(kv, apiKeys, atomic, account.accountId, ids[0]!);
    expect((await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'again' })).record.label).toBe('again');
  });

  it(`holds the cap under concurrency: 30 mints at once leave ${MAX_ACTIVE_KEYS_PER_ACCOUNT} keys, the refused ones deleted`, async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: `k${i}`, now: T0 })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(
      Array(30 - MAX_ACTIVE_KEYS_PER_ACCOUNT).fill('invalid_request'),
    );
    expect(apiKeys.data.size).toBe(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(await listAccountKeys(kv, apiKeys, account.accountId)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
  });

  it('counts the keys an account had in KV before its atomic record was written', async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ACCOUNT - 1; i++)
      await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: `k${i}`, now: T0 });
    atomic.records.clear();
    await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'last', now: T0 });
    expect(await rejected(() => mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'over', now: T0 }))).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('releases keys revoked outside the console (the operator CLI writes KV only) once KV has had time to propagate', async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_ACCOUNT; i++)
      await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: `k${i}`, now: T0 });
    await revokeAccount(kv, apiKeys, account.accountId, T0);
    const reinstated = { ...account, revokedAt: null };
    // The KV listing shows no active key, but the record cannot tell a key revoked a minute ago from one
    // whose KV write has not arrived yet.
    expect(
      await rejected(() => mintAccountKey(kv, apiKeys, atomic, reinstated, { scope: 'calc', label: 'soon', now: later(60) })),
    ).toMatchObject({
      code: 'invalid_request',
    });
    expect((await mintAccountKey(kv, apiKeys, atomic, reinstated, { scope: 'calc', label: 'later', now: later(600) })).record.label).toBe(
      'later',
    );
  });

  it("cannot revoke another account's key (404)", async () => {
    const { kv, apiKeys, atomic } = stores();
    const a = await createAccount(kv, 'a', T0);
    const b = await createAccount(kv, 'b', T0);
    const { record } = await mintAccountKey(kv, apiKeys, atomic, a, { scope: 'calc', label: 'a' });
    expect(await rejected(() => revokeAccountKey(kv, apiKeys, atomic, b.accountId, record.keyId))).toMatchObject({
      code: 'not_found',
      status: 404,
    });
  });

  it('authenticate at the plan limit, counted per account, and stop at once when the account is revoked', async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    const { key } = await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'a' });
    const principal = await authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) });
    expect(calcCaller(principal, '192.0.2.1')).toEqual({ id: `account:${account.accountId}`, limit: PLAN_DAILY_CALC_LIMITS.free });
    await setPlan(kv, account.accountId, 'paid');
    expect(calcCaller(await authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) }), undefined).limit).toBe(
      PLAN_DAILY_CALC_LIMITS.paid,
    );
    // Without the console namespace a console key fails closed.
    expect(await rejected(() => authenticate(`Bearer ${key}`, { keys: apiKeys }))).toMatchObject({ code: 'unauthorized' });
    const { keysRevoked } = await revokeAccount(kv, apiKeys, account.accountId, T0);
    expect(keysRevoked).toBe(1);
    expect(await rejected(() => authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) }))).toMatchObject({
      code: 'unauthorized',
      status: 401,
    });
    expect((await listAccounts(kv))[0]?.revokedAt).toBe(T0.toISOString());
  });

  it('are refused when their account is revoked even if a key record was not (one account read per call)', async () => {
    const { kv, apiKeys, atomic } = stores();
    const account = await createAccount(kv, 'h', T0);
    const { key } = await mintAccountKey(kv, apiKeys, atomic, account, { scope: 'calc', label: 'a' });
    expect(await authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) })).toMatchObject({
      kind: 'key',
      account: { accountId: account.accountId },
    });
    // As when the account's revocation has reached this location before the key records' updates.
    await saveAccount(kv, { ...account, revokedAt: T0.toISOString() });
    expect(await rejected(() => authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) }))).toMatchObject({
      code: 'unauthorized',
      status: 401,
    });
  });

  it('of the operator CLI keep their own limit and need no account', async () => {
    const { kv, apiKeys } = stores();
    const { key } = await createKey(apiKeys, { fundId: 'sample-fund', dailyCalcLimit: 42 });
    const principal = await authenticate(`Bearer ${key}`, { keys: apiKeys, accounts: consoleAccounts(kv) });
    expect(calcCaller(principal, undefined).limit).toBe(42);
    expect(kv.gets).toEqual([]);
  });
});

describe('last use of a key', () => {
  it('is written at most once an hour per key', async () => {
    const kv = new MemoryKv();
    await noteKeyUse(kv, 'key_note', T0);
    await noteKeyUse(kv, 'key_note', new Date(T0.getTime() + KEY_USE_NOTE_INTERVAL_MS - 1));
    expect(kv.puts.map((p) => p.value)).toEqual([T0.toISOString()]);
    const next = new Date(T0.getTime() + KEY_USE_NOTE_INTERVAL_MS);
    await noteKeyUse(kv, 'key_note', next);
    expect(kv.puts.map((p) => p.value)).toEqual([T0.toISOString(), next.toISOString()]);
  });
});

/** The host check with settings read from `env`, as the console does. */
const consoleHostCheck = (url: URL, env: Parameters<typeof consoleSettings>[0]) => hostCheck(url, consoleSettings(env));

describe('host check and configuration', () => {
  const secret = { CONSOLE_SESSION_SECRET: 's'.repeat(32) };
  it('serves localhost, redirects loopback IPs to localhost and refuses other hosts without PUBLIC_ORIGIN', () => {
    expect(consoleHostCheck(new URL('http://localhost:8787/developers/console'), {})).toMatchObject({
      ok: true,
      config: { rpId: 'localhost', origin: 'http://localhost:8787', local: true, secureCookies: false },
    });
    expect(consoleHostCheck(new URL('http://127.0.0.1:8787/developers/console?x=1'), {})).toEqual({
      ok: false,
      redirect: 'http://localhost:8787/developers/console?x=1',
    });
    expect(consoleHostCheck(new URL('http://[::1]:8787/developers/console'), {})).toEqual({
      ok: false,
      redirect: 'http://localhost:8787/developers/console',
    });
    expect(thrown(() => consoleHostCheck(new URL('http://evil.example/developers/console'), {}))).toBeInstanceOf(ConsoleHostError);
  });

  it('takes RP id and origin from PUBLIC_ORIGIN, and fails closed without a session secret there', () => {
    const env = { PUBLIC_ORIGIN: 'https://fund-edge.example.com', ...secret };
    expect(consoleHostCheck(new URL('https://fund-edge.example.com/developers/console'), env)).toMatchObject({
      ok: true,
      config: { rpId: 'fund-edge.example.com', origin: 'https://fund-edge.example.com', local: false, secureCookies: true },
    });
    expect(thrown(() => consoleHostCheck(new URL('https://other.example.com/developers/console'), env))).toBeInstanceOf(ConsoleHostError);
    expect(thrown(() => consoleHostCheck(new URL('http://localhost:8787/developers/console'), env))).toBeInstanceOf(ConsoleHostError);
    const unconfigured = thrown(() =>
      consoleHostCheck(new URL('https://fund-edge.example.com/developers/console'), { PUBLIC_ORIGIN: env.PUBLIC_ORIGIN }),
    );
    expect(unconfigured).toBeInstanceOf(ConsoleNotConfiguredError);
    expect((unconfigured as ConsoleNotConfiguredError).status).toBe(503);
  });

  it('property: without PUBLIC_ORIGIN, every non-loopback host is refused and loopback IPs keep port, path and query', () => {
    const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 65535 }), (labels, port) => {
        const host = labels.join('.');
        fc.pre(host !== 'localhost');
        expect(thrown(() => consoleHostCheck(new URL(`http://${host}:${port}/developers/console`), {}))).toBeInstanceOf(ConsoleHostError);
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('127.0.0.1', '[::1]'),
        fc.integer({ min: 1, max: 65535 }),
        fc.webPath(),
        fc.webQueryParameters(),
        (host, port, path, query) => {
          const from = new URL(`http://${host}:${port}${path}${query ? `?${query}` : ''}`);
          const decision = consoleHostCheck(from, {});
          expect(decision.ok).toBe(false);
          const to = new URL((decision as { redirect: string }).redirect);
          expect([to.hostname, to.port, to.pathname, to.search]).toEqual(['localhost', from.port, from.pathname, from.search]);
        },
      ),
    );
  });

  it("accepts only the console's Origin, or no Origin with Sec-Fetch-Site: same-origin", () => {
    const decision = consoleHostCheck(new URL('http://localhost:8787/'), secret);
    if (!decision.ok) throw new Error('expected a config');
    const check = (origin: string | undefined, secFetchSite: string | undefined) =>
      consoleOriginCheck({ origin, secFetchSite }, decision.config);
    expect(check('http://localhost:8787', undefined)).toBe(true);
    expect(check('http://localhost:8787', 'cross-site')).toBe(true);
    expect(check(undefined, 'same-origin')).toBe(true);
    for (const [origin, site] of [
      ['http://localhost:8788', 'same-origin'],
      ['http://127.0.0.1:8787', 'same-origin'],
      ['null', 'same-origin'],
      [undefined, 'same-site'],
      [undefined, 'cross-site'],
      [undefined, undefined],
    ] as const) {
      expect(check(origin, site)).toBe(false);
    }
  });

  it('keeps one random secret per isolate on loopback without CONSOLE_SESSION_SECRET', () => {
    const a = consoleHostCheck(new URL('http://localhost:1/'), {});
    const b = consoleHostCheck(new URL('http://localhost:2/'), {});
    expect(a.ok && b.ok && a.config.sessionSecret === b.config.sessionSecret && a.config.sessionSecret.length === 64).toBe(true);
    const given = consoleHostCheck(new URL('http://localhost:1/'), secret);
    expect(given.ok && given.config.sessionSecret).toBe(secret.CONSOLE_SESSION_SECRET);
  });
});

/** What an async function rejected with (fails the test if it resolved). */
async function rejected(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

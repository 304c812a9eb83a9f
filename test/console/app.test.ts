/**
 * The developer console through the Hono app (`createApp().request`) with in-memory bindings: every refusal
 * (no session, expired session, wrong or missing CSRF token, wrong Origin, reused or expired invitation,
 * revoked account, calc key on fund data and the fund MCP server, rate limit), the security headers and
 * `no-store` on every response, and the dashboard's usage from the quota's own counters.
 */
import { generateSignedCookie } from 'hono/cookie';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { createAccount, createSession, revokeAccount, SESSION_TTL_SECONDS } from '../../lib/console/accounts.ts';
import { createInvitation } from '../../lib/console/invitations.ts';
import { csrfToken, SESSION_COOKIE } from '../../lib/console/app.tsx';
import { PLAN_DAILY_CALC_LIMITS } from '../../lib/identity.ts';
import { fakeEnv, FakeBurst, type MemoryKv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import { take } from '../../lib/atomic.ts';
import { SIGNUPS_PER_NETWORK_PER_DAY } from '../../lib/limits.ts';
import { calcPath, fundPath } from '../support/declared.ts';
import { quotaWritesSettled } from '../../lib/rate-limit.ts';

const ORIGIN = 'http://localhost:8787';
const SECRET = 'test-secret-'.padEnd(40, 'x');
const NOW = new Date('2026-11-02T10:00:00Z');
let now = NOW;
const app = createApp({ clock: () => now });

/** Fresh bindings with a fixed session secret. */
function setup(overrides: Parameters<typeof fakeEnv>[0] = {}) {
  now = NOW;
  return fakeEnv({ CONSOLE_SESSION_SECRET: SECRET, ...overrides });
}

/** A signed-in developer: the account, its session cookie and CSRF token. */
async function signIn(CONSOLE: MemoryKv) {
  const account = await createAccount(CONSOLE, 'handle', now);
  const { sessionId } = await createSession(CONSOLE, account.accountId, now);
  const cookie = (await generateSignedCookie(SESSION_COOKIE, sessionId, SECRET)).split(';')[0]!;
  return { account, sessionId, cookie, token: await csrfToken(SECRET, sessionId) };
}

type Env = ReturnType<typeof setup>['env'];

function post(env: Env, path: string, body: unknown, headers: Record<string, string> = {}) {
  return app.request(
    `${ORIGIN}/developers/console/api${path}`,
    {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', 'cf-connecting-ip': '192.0.2.7', ...headers },
      body: JSON.stringify(body),
    },
    env,
  );
}

async function mint(env: Env, s: { cookie: string; token: string }, body: unknown = { label: 'laptop', scope: 'calc' }) {
  return post(env, '/keys', body, { cookie: s.cookie, 'x-csrf-token': s.token });
}

describe('console pages', () => {
  it('serve the welcome page with strict security headers and no-store', async () => {
    const { env } = setup();
    const res = await app.request(`${ORIGIN}/developers/console`, {}, env);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const html = await res.text();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toContain('href="/api/v1/openapi.json"');
  });

  it('serve the client script and stylesheet with no-store', async () => {
    const { env } = setup();
    const js = await app.request(`${ORIGIN}/developers/console/console.js`, {}, env);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('no-store');
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await app.request(`${ORIGIN}/developers/console/console.css`, {}, env);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('redirect 127.0.0.1 to localhost, refuse other hosts, and fail closed when deployed without a secret', async () => {
    const { env } = setup();
    const redirect = await app.request('http://127.0.0.1:8787/developers/console?a=1', {}, env);
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('http://localhost:8787/developers/console?a=1');
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    const other = await app.request('http://rebind.example/developers/console', {}, env);
    await expectProblem(other, 403, 'origin_not_allowed');
    expect(other.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const deployed = fakeEnv({ PUBLIC_ORIGIN: 'https://fund-edge.example.com' }).env;
    const { problem } = await expectProblem(
      await app.request('https://fund-edge.example.com/developers/console', {}, deployed),
      503,
      'not_configured',
    );
    expect(problem.detail).toContain('CONSOLE_SESSION_SECRET');
  });

  it('set Secure __Host- cookies when deployed over https', async () => {
    const { env } = setup({ PUBLIC_ORIGIN: 'https://fund-edge.example.com' });
    const res = await app.request(
      'https://fund-edge.example.com/developers/console/api/login/options',
      { method: 'POST', headers: { origin: 'https://fund-edge.example.com', 'content-type': 'application/json' }, body: '{}' },
      env,
    );
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^__Host-fe_console_challenge=/);
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('HttpOnly');
    const { options } = (await res.json()) as { options: { rpId: string } };
    expect(options.rpId).toBe('fund-edge.example.com');
  });

  it('show the account, its plan, scopes and today’s usage from the quota counters', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    const { key } = (await (await mint(env, s)).json()) as { key: string };
    for (let i = 0; i < 3; i++) {
      const res = await app.request(
        calcPath('fee-calculator'),
        { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' },
        env,
      );
      expect(res.headers.get('ratelimit-policy')).toBe(`"daily";q=${PLAN_DAILY_CALC_LIMITS.free};w=86400`);
    }
    const page = await (await app.request(`${ORIGIN}/developers/console`, { headers: { cookie: s.cookie } }, env)).text();
    expect(page).toContain(s.account.accountId);
    expect(page).toContain('3 of 1,000');
    expect(page).toContain(`<meta name="csrf-token" content="${s.token}"/>`);
    expect(page).toContain(key.slice(0, 12));
    expect(page).not.toContain(key);
  });
});

describe('sessions and CSRF', () => {
  it('minting needs a session (401)', async () => {
    const { env } = setup();
    const res = await post(env, '/keys', { label: 'a', scope: 'calc' });
    const { problem } = await expectProblem(res, 401, 'unauthorized');
    expect(problem.detail).toContain('Sign in');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('an expired session is refused (401)', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    now = new Date(NOW.getTime() + SESSION_TTL_SECONDS * 1000);
    await expectProblem(await mint(env, s), 401, 'unauthorized');
  });

  it('a cookie with a bad signature is no session (401)', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    // Change one character of the signature to another. Not its last one: the last base64 character of a
    // 32-byte HMAC also holds padding bits, which a decoder may ignore, so changing only those is no tampering.
    const cookie = s.cookie.replace(/(.)(.{4}(?:%3D)*)$/, (_m, ch: string, rest: string) => `${ch === 'A' ? 'B' : 'A'}${rest}`);
    expect(cookie).not.toBe(s.cookie);
    await expectProblem(await mint(env, { ...s, cookie }), 401, 'unauthorized');
  });

  it('a wrong or missing CSRF token is refused (403 csrf_failed), and so is another Origin', async () => {
    const { env, CONSOLE, API_KEYS } = setup();
    const s = await signIn(CONSOLE);
    await expectProblem(await mint(env, { ...s, token: s.token.slice(0, -1) + (s.token.endsWith('A') ? 'B' : 'A') }), 403, 'csrf_failed');
    await expectProblem(await post(env, '/keys', { label: 'a', scope: 'calc' }, { cookie: s.cookie }), 403, 'csrf_failed');
    await expectProblem(
      await post(
        env,
        '/keys',
        { label: 'a', scope: 'calc' },
        { cookie: s.cookie, 'x-csrf-token': s.token, origin: 'https://evil.example' },
      ),
      403,
      'csrf_failed',
    );
    const form = await app.request(
      `${ORIGIN}/developers/console/api/logout`,
      {
        method: 'POST',
        headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: 'a=1',
      },
      env,
    );
    await expectProblem(form, 403, 'csrf_failed');
    expect(API_KEYS.puts).toEqual([]);
    // Without Origin, only a browser's Sec-Fetch-Site: same-origin is accepted.
    const noOrigin = (site: string) =>
      app.request(
        `${ORIGIN}/developers/console/api/keys`,
        {
          method: 'POST',
          headers: { cookie: s.cookie, 'x-csrf-token': s.token, 'content-type': 'application/json', 'sec-fetch-site': site },
          body: JSON.stringify({ label: 'a', scope: 'calc' }),
        },
        env,
      );
    await expectProblem(await noOrigin('cross-site'), 403, 'csrf_failed');
    expect((await noOrigin('same-origin')).status).toBe(201);
  });

  it('sign-out ends the session server side', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    const out = await post(env, '/logout', {}, { cookie: s.cookie, 'x-csrf-token': s.token });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^fe_console_session=;.*Max-Age=0/);
    // The old cookie, replayed, is no session any more.
    await expectProblem(await mint(env, s), 401, 'unauthorized');
  });

  it('passkey verification without a pending challenge is refused (401) and counts against the burst guard', async () => {
    const consoleBurst = new FakeBurst(1);
    const { env } = setup({ consoleBurst });
    const body = { response: { id: 'abc', rawId: 'abc', type: 'public-key', response: {} } };
    await expectProblem(await post(env, '/login/verify', body), 401, 'unauthorized');
    await expectProblem(await post(env, '/register/verify', body), 401, 'unauthorized');
    await expectProblem(await post(env, '/login/verify', body), 429, 'rate_limited');
  });
});

describe(`sign-ups per client network (${SIGNUPS_PER_NETWORK_PER_DAY} a UTC day)`, () => {
  it('a failed passkey verification creates no account and uses none of the day', async () => {
    const { env, ATOMIC } = setup();
    const body = { response: { id: 'abc', rawId: 'abc', type: 'public-key', response: {} } };
    for (let i = 0; i < SIGNUPS_PER_NETWORK_PER_DAY + 2; i++)
      await expectProblem(await post(env, '/register/verify', body), 401, 'unauthorized');
    const record = ATOMIC.records.get(`signups:192.0.2.7:${NOW.toISOString().slice(0, 10)}`)!;
    expect(record.data.get('count')).toBe(0);
    expect((await post(env, '/register/options', {})).status).toBe(200);
  });

  it(`once the network created ${SIGNUPS_PER_NETWORK_PER_DAY} accounts, sign-up is 429 until 00:00 UTC (at its first step); sign-in is not`, async () => {
    const { env, ATOMIC } = setup();
    const day = `signups:192.0.2.7:${NOW.toISOString().slice(0, 10)}`;
    for (let i = 0; i < SIGNUPS_PER_NETWORK_PER_DAY; i++) await take(ATOMIC, day, SIGNUPS_PER_NETWORK_PER_DAY, Date.UTC(2030, 0, 1));
    const refused = await post(env, '/register/options', {});
    const { problem } = await expectProblem(refused, 429, 'rate_limited');
    expect(problem.detail).toContain(`created ${SIGNUPS_PER_NETWORK_PER_DAY} developer accounts today`);
    expect(Number(refused.headers.get('retry-after'))).toBe((Date.parse('2026-11-03T00:00:00Z') - NOW.getTime()) / 1000);
    await expectProblem(await post(env, '/register/verify', { response: {} }), 429, 'rate_limited');
    expect((await post(env, '/login/options', {})).status).toBe(200);
    expect((await post(env, '/register/options', {}, { 'cf-connecting-ip': '192.0.2.8' })).status).toBe(200);
  });
});

describe('logging', () => {
  it('writes nothing to the console while keys are minted, used and revoked, or requests refused', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    try {
      const { env, CONSOLE } = setup();
      const s = await signIn(CONSOLE);
      const { key, keyId } = (await (await mint(env, s)).json()) as { key: string; keyId: string };
      await app.request(
        calcPath('fee-calculator'),
        { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' },
        env,
      );
      await app.request(fundPath('get_fund_overview'), { headers: { authorization: `Bearer ${key}` } }, env);
      await post(env, `/keys/${keyId}/revoke`, {}, { cookie: s.cookie, 'x-csrf-token': s.token });
      await post(env, '/login/verify', { response: { id: 'credential-id', response: {} } });
      await mint(env, { ...s, token: 'wrong' });
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('usage over the last 30 days', () => {
  const dashboard = async (env: Env, cookie: string) =>
    (await app.request(`${ORIGIN}/developers/console`, { headers: { cookie } }, env)).text();

  it("charts each day's calls from the account's daily counters beside the plan's limit, in SVG with no script", async () => {
    const { env, CONSOLE, RATE_LIMITS } = setup();
    const s = await signIn(CONSOLE);
    const counter = (day: string) => `calc:account:${s.account.accountId}:${day}`;
    await RATE_LIMITS.put(counter('2026-10-03'), '900'); // 31 days ago: outside the chart
    await RATE_LIMITS.put(counter('2026-10-04'), '7'); // the oldest day shown
    await RATE_LIMITS.put(counter('2026-10-20'), '250');
    await RATE_LIMITS.put(counter('2026-11-01'), '1200'); // over the free plan's 1,000
    await RATE_LIMITS.put(counter('2026-11-02'), '3');
    const page = await dashboard(env, s.cookie);
    const bars = [...page.matchAll(/<rect class="bar" [^>]*data-day="([\d-]+)" data-calls="(\d+)"/g)].map((m) => [m[1], Number(m[2])]);
    expect(bars).toHaveLength(30);
    expect(bars[0]).toEqual(['2026-10-04', 7]);
    expect(bars.at(-1)).toEqual(['2026-11-02', 3]);
    expect(Object.fromEntries(bars)).toMatchObject({ '2026-10-20': 250, '2026-11-01': 1200, '2026-10-21': 0 });
    expect(bars.reduce((sum, [, calls]) => sum + (calls as number), 0)).toBe(7 + 250 + 1200 + 3);
    // The axis runs to a round number past the busiest day (0, 500, 1,000, 1,500), the limit's line on it.
    const height = (day: string) => Number(new RegExp(`height="([\\d.]+)"[^>]*data-day="${day}"`).exec(page)![1]);
    expect(height('2026-11-01')).toBe(80);
    expect([...page.matchAll(/<li>([\d,]+)<\/li>/g)].map((m) => m[1])).toEqual(['1,500', '1,000', '500', '0']);
    expect(page).toMatch(/<line class="limit" x1="0" x2="300" y1="33.33" y2="33.33" data-limit="1000"/);
    expect(page).toContain(
      'Calculator calls a day, last 30 days (2026-10-04 to 2026-11-02, UTC): 1,460 calculator calls, at most 1,200 on 2026-11-01.',
    );
    expect(page).toContain('Dashed line: your plan&#39;s limit 1,000 a day.');
    // Each day is an image named by its calls; today's takes the keyboard's focus.
    expect(page).toMatch(/role="img" aria-label="2026-11-02: 3 calculator calls" tabindex="0"/);
    expect(page).toMatch(/role="img" aria-label="2026-11-01: 1,200 calculator calls" tabindex="-1"/);
    expect(page).toContain('3 of 1,000');
    expect(page).not.toMatch(/<script>|style="/);
  });

  it('scales to the busiest day while it is under a quarter of the limit, and says the limit is off the scale', async () => {
    const { env, CONSOLE, RATE_LIMITS } = setup();
    const s = await signIn(CONSOLE);
    await RATE_LIMITS.put(`calc:account:${s.account.accountId}:2026-10-30`, '40');
    await RATE_LIMITS.put(`calc:account:${s.account.accountId}:2026-11-02`, '1');
    const page = await dashboard(env, s.cookie);
    expect(page).toMatch(/height="100.00"[^>]*data-day="2026-10-30" data-calls="40"/);
    expect(page).toMatch(/height="2.50"[^>]*data-day="2026-11-02" data-calls="1"/);
    expect(page).not.toContain('class="limit"');
    expect([...page.matchAll(/<li>([\d,]+)<\/li>/g)].map((m) => m[1])).toEqual(['40', '30', '20', '10', '0']);
    expect(page).toContain('Your plan&#39;s limit 1,000 a day is off this scale (it runs to 40).');
  });

  it('says in words that there were no calls, and draws no empty box', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    const page = await dashboard(env, s.cookie);
    expect(page).toContain(
      'No calculator calls in the last 30 days (2026-10-04 to 2026-11-02, UTC). Your keys&#39; calls will show here, one bar a day, against your plan&#39;s limit of 1,000 a day.',
    );
    expect(page).not.toContain('<svg');
  });

  it('reads the 30 days in one bulk read, then only today and yesterday: earlier days are final and kept', async () => {
    const { env, CONSOLE, RATE_LIMITS } = setup();
    const s = await signIn(CONSOLE);
    await dashboard(env, s.cookie);
    expect(RATE_LIMITS.bulkGets.map((keys) => keys.length)).toEqual([30]);
    await RATE_LIMITS.put(`calc:account:${s.account.accountId}:2026-11-01`, '5');
    const page = await dashboard(env, s.cookie);
    expect(RATE_LIMITS.bulkGets.map((keys) => keys.length)).toEqual([30, 2]);
    expect(page).toContain('data-day="2026-11-01" data-calls="5"');
  });

  it("keeps an account's counter 30 days past its day, and an anonymous caller's an hour", async () => {
    const { env, CONSOLE, RATE_LIMITS } = setup();
    const s = await signIn(CONSOLE);
    const { key } = (await (await mint(env, s)).json()) as { key: string };
    const call = (headers: Record<string, string>) =>
      app.request(
        calcPath('fee-calculator'),
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' },
        env,
      );
    await call({ authorization: `Bearer ${key}` });
    await call({ 'cf-connecting-ip': '198.51.100.9' });
    await quotaWritesSettled(RATE_LIMITS as unknown as KVNamespace);
    const ttl = (prefix: string) => RATE_LIMITS.puts.find((p) => p.key.startsWith(prefix))?.expirationTtl;
    const toMidnight = 14 * 3600;
    expect(ttl('calc:account:')).toBe(toMidnight + 30 * 86_400 + 3600);
    expect(ttl('calc:198.51.100.9:')).toBe(toMidnight + 3600);
  });
});

describe('keys and scopes', () => {
  it('a calc key raises the quota and is refused on fund data and the fund MCP server (403)', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    const res = await mint(env, s);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const minted = (await res.json()) as { key: string; scope: string; fundId: null; dailyCalcLimit: number };
    expect(minted).toMatchObject({ scope: 'calc', fundId: null, dailyCalcLimit: PLAN_DAILY_CALC_LIMITS.free });
    const auth = { authorization: `Bearer ${minted.key}` };
    const fund = await app.request(fundPath('get_fund_overview'), { headers: auth }, env);
    const { problem } = await expectProblem(fund, 403, 'insufficient_scope');
    expect(problem.detail).toContain('calculators');
    const mcp = await app.request(
      '/api/mcp',
      {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      },
      env,
    );
    expect(mcp.status).toBe(403);
  });

  it('a fund key needs an accepted invitation; it reads fund data; revoked it gets 401', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    await expectProblem(await mint(env, s, { label: 'desk', scope: 'fund' }), 403, 'insufficient_scope');
    const { token } = await createInvitation(CONSOLE, { fundId: 'sample-fund', now });
    const accepted = await post(env, '/invitations/accept', { invitation: token }, { cookie: s.cookie, 'x-csrf-token': s.token });
    expect(await accepted.json()).toMatchObject({ fundIds: ['sample-fund'] });
    const { key, keyId } = (await (await mint(env, s, { label: 'desk', scope: 'fund' })).json()) as { key: string; keyId: string };
    const auth = { authorization: `Bearer ${key}` };
    expect((await app.request(fundPath('get_fund_overview'), { headers: auth }, env)).status).toBe(200);
    expect((await post(env, `/keys/${keyId}/revoke`, {}, { cookie: s.cookie, 'x-csrf-token': s.token })).status).toBe(200);
    await expectProblem(await app.request(fundPath('get_fund_overview'), { headers: auth }, env), 401, 'unauthorized');
  });

  it('a reused or expired invitation is refused (410), when previewed and when accepted', async () => {
    const { env, CONSOLE } = setup();
    const s = await signIn(CONSOLE);
    const { token } = await createInvitation(CONSOLE, { fundId: 'sample-fund', ttlSeconds: 3600, now });
    const accept = () => post(env, '/invitations/accept', { invitation: token }, { cookie: s.cookie, 'x-csrf-token': s.token });
    expect((await accept()).status).toBe(200);
    await expectProblem(await accept(), 410, 'invitation_unusable');
    const preview = (invitation: string) =>
      post(env, '/invitations/preview', { invitation }, { cookie: s.cookie, 'x-csrf-token': s.token });
    await expectProblem(await preview(token), 410, 'invitation_unusable');
    const fresh = await createInvitation(CONSOLE, { fundId: 'sample-fund', plan: 'paid', ttlSeconds: 3600, now });
    const previewed = await preview(fresh.token);
    expect(previewed.status).toBe(200);
    expect(await previewed.json()).toEqual({ fundId: 'sample-fund', plan: 'paid' });
    now = new Date(NOW.getTime() + 3600 * 1000);
    await expectProblem(
      await post(env, '/invitations/accept', { invitation: fresh.token }, { cookie: s.cookie, 'x-csrf-token': s.token }),
      410,
      'invitation_unusable',
    );
  });

  it('an invitation link keeps its token out of every request path: the page reads it from the fragment', async () => {
    const { env, CONSOLE } = setup();
    const { token } = await createInvitation(CONSOLE, { fundId: 'sample-fund', ttlSeconds: 3600, now });
    const page = await app.request(`${ORIGIN}/developers/console/invite`, {}, env);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="invitation-page"');
    expect(html).toContain('data-action="register"');
    const s = await signIn(CONSOLE);
    const signedIn = await (await app.request(`${ORIGIN}/developers/console/invite`, { headers: { cookie: s.cookie } }, env)).text();
    expect(signedIn).toContain('data-action="accept-invitation"');
    expect(signedIn).toContain(`<meta name="csrf-token" content="${s.token}"/>`);
    // A link of the retired form (`/invite/<token>`): 410, a page asking for a new link, nothing looked up,
    // nothing redeemed, the token not echoed.
    const old = await app.request(`${ORIGIN}/developers/console/invite/${token}`, {}, env);
    expect(old.status).toBe(410);
    expect(old.headers.get('location')).toBeNull();
    expect(old.headers.get('cache-control')).toBe('no-store');
    const retired = await old.text();
    expect(retired).not.toContain(token);
    expect(retired).toMatch(/Ask the fund operator for a new link/);
    expect(CONSOLE.gets.filter((k) => k.startsWith('invitation:'))).toEqual([]);
    // The preview needs the console's Origin like every console POST.
    const foreign = await app.request(
      `${ORIGIN}/developers/console/api/invitations/preview`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: JSON.stringify({ invitation: token }),
      },
      env,
    );
    expect(foreign.status).toBe(403);
  });

  it("a revoked account's keys and session stop at once (401)", async () => {
    const { env, CONSOLE, API_KEYS } = setup();
    const s = await signIn(CONSOLE);
    const { key } = (await (await mint(env, s)).json()) as { key: string };
    const call = () =>
      app.request(
        calcPath('fee-calculator'),
        { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' },
        env,
      );
    expect((await call()).status).toBe(200);
    await revokeAccount(CONSOLE, API_KEYS, s.account.accountId);
    await expectProblem(await call(), 401, 'unauthorized');
    await expectProblem(await mint(env, s), 401, 'unauthorized');
  });

  it('minting is validated (400) and rate limited (429)', async () => {
    const { env, CONSOLE } = setup({ consoleBurst: new FakeBurst(2) });
    const s = await signIn(CONSOLE);
    const { problem } = await expectProblem(await mint(env, s, { label: '', scope: 'admin' }), 400, 'invalid_request');
    expect(problem.errors?.map((e) => e.pointer).sort()).toEqual(['/body/label', '/body/scope']);
    expect((await mint(env, s)).status).toBe(201);
    await expectProblem(await mint(env, s), 429, 'rate_limited');
  });

  it('revoking a key of another account is 404', async () => {
    const { env, CONSOLE } = setup();
    const a = await signIn(CONSOLE);
    const b = await signIn(CONSOLE);
    const { keyId } = (await (await mint(env, a)).json()) as { keyId: string };
    await expectProblem(await post(env, `/keys/${keyId}/revoke`, {}, { cookie: b.cookie, 'x-csrf-token': b.token }), 404, 'not_found');
  });
});

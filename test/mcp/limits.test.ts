/**
 * The MCP servers' keys and limits (docs/api.md#keys-and-scopes, docs/api.md#limits): the fund server's
 * key checks (401/403, none counted), the public quota and burst guard, and the fund burst guard, with 429
 * JSON-RPC bodies. The app runs on a fixed clock (43,200 s before the next UTC midnight).
 */
import { describe, expect, it } from 'vitest';
import { createKey, DEMO_API_KEY, generateKey, revokeKey } from '../../lib/keys.ts';
import { FakeBurst, fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import {
  T,
  app,
  IP,
  QUOTA_KEY,
  PUBLIC,
  FUND,
  INITIALIZE,
  type RpcMessage,
  post,
  toolsList,
  toolsCall,
  okJson,
  expectNoInternals,
  fundFixture,
  CHEAP_CALL,
} from './support.ts';
import { calcPath } from '../support/declared.ts';

describe('fund server keys', () => {
  const CONSOLE = 'http://localhost/developers/console';
  /** What was sent, the status and code, and how the detail begins (each case says what is wrong first). */
  const cases: [
    string,
    (f: Awaited<ReturnType<typeof fundFixture>>) => Promise<string>,
    403,
    'invalid_key' | 'insufficient_scope',
    RegExp,
  ][] = [
    ['a malformed key', async () => 'Bearer svc_dk_short', 403, 'invalid_key', /^The key in the Authorization header is malformed/],
    ['an unknown key', async () => `Bearer ${generateKey()}`, 403, 'invalid_key', /^The key in the Authorization header is not valid/],
    [
      'a mistyped key (one character changed)',
      async (f) => `Bearer ${f.key.slice(0, -1)}${f.key.endsWith('a') ? 'b' : 'a'}`,
      403,
      'invalid_key',
      /^The key in the Authorization header is not valid/,
    ],
    [
      'a revoked key',
      async (f) => {
        const revoked = await createKey(f.API_KEYS, { fundId: 'sample-fund' });
        await revokeKey(f.API_KEYS, revoked.record.prefix);
        return `Bearer ${revoked.key}`;
      },
      403,
      'invalid_key',
      /^The key in the Authorization header is not valid/,
    ],
    ['another scheme', async () => 'Basic dXNlcjpwYXNz', 403, 'invalid_key', /^The Authorization header is not "Bearer <key>"/],
    ['the key without "Bearer"', async (f) => f.key, 403, 'invalid_key', /^The Authorization header is not "Bearer <key>"/],
    [
      'a bearer value that is no key',
      async () => 'Bearer my-api-key',
      403,
      'invalid_key',
      /^The Authorization header does not carry a key/,
    ],
    [
      'the demo key',
      async () => `Bearer ${DEMO_API_KEY}`,
      403,
      'insufficient_scope',
      /^The demo key reads the synthetic demo fund over REST only/,
    ],
    [
      'a calc key',
      async (f) => `Bearer ${(await createKey(f.API_KEYS, { fundId: null, scope: 'calc' })).key}`,
      403,
      'insufficient_scope',
      /^This key is a calc key: .* Use it on the public MCP server, http:\/\/localhost\/api\/mcp\/public\./,
    ],
    [
      "another fund's key",
      async (f) => `Bearer ${(await createKey(f.API_KEYS, { fundId: 'other-fund' })).key}`,
      403,
      'insufficient_scope',
      /^This key reads another fund/,
    ],
  ];

  it.each(cases)(
    'refuses %s with 403 and no challenge (no client starts OAuth), counting nothing',
    async (_label, authOf, status, code, detail) => {
      const fixture = await fundFixture();
      const auth = await authOf(fixture);
      for (const body of [INITIALIZE, toolsList(), CHEAP_CALL.fund, [CHEAP_CALL.fund, { ...CHEAP_CALL.fund, id: 4 }]]) {
        const res = await post(FUND, body, { env: fixture.env, auth });
        const { problem, text } = await expectProblem(res, status, code);
        // Any 401, and a 403 with error="insufficient_scope", makes MCP clients start OAuth (lib/mcp/refusals.ts).
        expect(res.headers.get('www-authenticate')).toBeNull();
        expect(problem.detail).toMatch(detail);
        expect(problem.detail.toLowerCase()).toContain(`mint a fund key at ${CONSOLE} and send it as "authorization: bearer svc_dk_..."`);
        expect(problem.detail).toMatch(/or remove the header to sign in with OAuth\.$/);
        const token = auth.split(' ')[1] ?? auth;
        expectNoInternals(text, [token, fixture.key]);
        expect(text.toLowerCase()).not.toMatch(/meridian|northstar|shadownav|investor/);
      }
      expect(fixture.FUND_BURST.counts.size).toBe(0);
    },
  );

  it('answers no credential with 401 naming the protected resource metadata (OAuth discovery), counting nothing', async () => {
    const fixture = await fundFixture();
    for (const body of [INITIALIZE, toolsList(), CHEAP_CALL.fund]) {
      const res = await post(FUND, body, { env: fixture.env });
      await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe(
        'Bearer realm="fund-data", resource_metadata="http://localhost/.well-known/oauth-protected-resource/api/mcp", scope="fund:read"',
      );
    }
    expect(fixture.FUND_BURST.counts.size).toBe(0);
  });

  it('checks the key before the protocol version and the media type', async () => {
    const { env } = fakeEnv();
    const res = await post(FUND, 'x', { env, headers: { 'mcp-protocol-version': 'banana', 'content-type': 'text/plain' } });
    await expectProblem(res, 401, 'unauthorized');
  });
});

describe('public server keys and quota', () => {
  it('refuses a credential that is not a valid key with 403 and no challenge, counting nothing', async () => {
    const { env, RATE_LIMITS, CALC_BURST } = fakeEnv();
    for (const auth of ['Bearer svc_dk_short', `Bearer ${generateKey()}`, 'Basic dXNlcjpwYXNz', 'Bearer an:oauth:token']) {
      const res = await post(PUBLIC, CHEAP_CALL.public, { env, auth });
      const { problem, text } = await expectProblem(res, 403, 'invalid_key');
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect(problem.detail).toMatch(/^The (key in the )?Authorization header /);
      expect(problem.detail).toContain('The public server needs no key: remove the header, or send a valid key');
      expect(problem.detail).toContain('http://localhost/developers/console');
      expectNoInternals(text, [auth.slice(auth.indexOf(' ') + 1)]);
    }
    expect(RATE_LIMITS.puts).toEqual([]);
    expect(CALC_BURST.counts.size).toBe(0);
  });

  it('serves the demo key, a calc key and a fund key as keys', async () => {
    const { env, API_KEYS } = fakeEnv();
    const calc = (await createKey(API_KEYS, { fundId: null, scope: 'calc' })).key;
    const fund = (await createKey(API_KEYS, { fundId: 'other-fund' })).key;
    for (const key of [DEMO_API_KEY, calc, fund])
      expect((await post(PUBLIC, CHEAP_CALL.public, { env, auth: `Bearer ${key}` })).status).toBe(200);
  });

  it('refuses a tools/call over the daily quota with 429 and a JSON-RPC body, and keeps initialize and tools/list working', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    await RATE_LIMITS.put(QUOTA_KEY, '500');
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', {}, 'call-7'), { env });
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('retry-after')).toBe(String(T));
    expect(res.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=0;t=${T}`);
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: 'call-7',
      error: {
        code: -32029,
        message: 'The daily calculator quota of 500 calls is used up; it resets at 00:00 UTC.',
        data: { status: 429, code: 'rate_limited', retryAfterSeconds: T },
      },
    });
    expectNoInternals(text);
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('500');

    expect((await post(PUBLIC, INITIALIZE, { env })).status).toBe(200);
    const list = await post(PUBLIC, toolsList(), { env });
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit')).toBeNull();
    expect((await post(PUBLIC, { jsonrpc: '2.0', method: 'notifications/initialized' }, { env })).status).toBe(202);
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('500');
  });

  it('charges a batch once per tools/call in it', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    const batch = [toolsCall('calc_fee_calculator', {}, 1), toolsList(2), toolsCall('calc_lp_report_grader', {}, 3)];
    const res = await post(PUBLIC, batch, { env });
    const { body } = await okJson<RpcMessage[]>(res);
    expect(body.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=498;t=${T}`);
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('2');
    expect(RATE_LIMITS.puts).toHaveLength(1);
  });

  it('refuses a batch whose tools/calls do not all fit, answering every request of it', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    await RATE_LIMITS.put(QUOTA_KEY, '499');
    const res = await post(PUBLIC, [toolsList(1), toolsCall('calc_fee_calculator', {}, 2), toolsCall('calc_fee_calculator', {}, 3)], {
      env,
    });
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=1;t=${T}`);
    const body = JSON.parse(text) as RpcMessage[];
    expect(body.map((m) => m.id)).toEqual([1, 2, 3]);
    for (const m of body)
      expect(m.error).toMatchObject({ code: -32029, data: { status: 429, code: 'rate_limited', retryAfterSeconds: T } });
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('499');
    // One call still fits.
    const one = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env });
    expect(one.status).toBe(200);
    expect(one.headers.get('ratelimit')).toBe(`"daily";r=0;t=${T}`);
  });

  it('counts the calls of one IP on the same quota as REST, and other IPs separately', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    await RATE_LIMITS.put(QUOTA_KEY, '500');
    const rest = await app.request(
      calcPath('fee-calculator'),
      { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': IP }, body: '{}' },
      env,
    );
    expect(rest.status).toBe(429);
    const other = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env, ip: '198.51.100.9' });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
  });

  it("a valid key raises the limit to its dailyCalcLimit, counted under the key's id", async () => {
    const { env, API_KEYS, RATE_LIMITS } = fakeEnv();
    await RATE_LIMITS.put(QUOTA_KEY, '500');
    const { key, record } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env, auth: `Bearer ${key}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"daily";q=10000;w=86400');
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=9999;t=${T}`);
    expect(await RATE_LIMITS.get(`calc:${record.keyId}:2026-11-20`)).toBe('1');

    const small = await createKey(API_KEYS, { fundId: 'sample-fund', dailyCalcLimit: 1 });
    const ok = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env, auth: `Bearer ${small.key}` });
    expect(ok.headers.get('ratelimit')).toBe(`"daily";r=0;t=${T}`);
    const refused = await post(PUBLIC, toolsCall('calc_fee_calculator', {}, 5), { env, auth: `Bearer ${small.key}` });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('"daily";q=1;w=86400');
    const refusedText = await refused.text();
    expect((JSON.parse(refusedText) as RpcMessage).error?.message).toBe(
      'The daily calculator quota of 1 calls is used up; it resets at 00:00 UTC.',
    );
    expectNoInternals(refusedText, [small.key, key]);
  });

  it('the demo key keeps the anonymous quota of the client address', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env, auth: `Bearer ${DEMO_API_KEY}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('1');
  });

  it('refuses a tools/call over the burst guard with 429, Retry-After 60 and the burst policy', async () => {
    const { env, CALC_BURST } = fakeEnv({ burst: new FakeBurst(1) });
    expect((await post(PUBLIC, toolsCall('calc_fee_calculator'), { env })).status).toBe(200);
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', {}, 8), { env });
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=60;w=60');
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32029, message: expect.any(String), data: { status: 429, code: 'rate_limited', retryAfterSeconds: 60 } },
    });
    expect(CALC_BURST.counts.get(IP)).toBe(2);
    expectNoInternals(text);
  });
});

describe('fund server burst guard', () => {
  it('refuses the third tools/call of a key with 429, a JSON-RPC body and Retry-After; list and initialize are not counted', async () => {
    const { env, auth, record, FUND_BURST, key } = await fundFixture({ fundBurst: new FakeBurst(2) });
    expect((await post(FUND, INITIALIZE, { env, auth })).status).toBe(200);
    expect((await post(FUND, toolsList(), { env, auth })).status).toBe(200);
    expect((await post(FUND, toolsCall('get_fee_terms', {}, 1), { env, auth })).status).toBe(200);
    expect((await post(FUND, toolsCall('get_fund_overview', {}, 2), { env, auth, ip: '198.51.100.7' })).status).toBe(200);
    const res = await post(FUND, toolsCall('get_fee_terms', {}, 3), { env, auth });
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('retry-after')).toBe('60');
    expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=120;w=60');
    expect(JSON.parse(text)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32029,
        message: 'Too many calls in a short time; slow down.',
        data: { status: 429, code: 'rate_limited', retryAfterSeconds: 60 },
      },
    });
    expectNoInternals(text, [key]);
    expect(text.toLowerCase()).not.toMatch(/meridian|shareclasses|mgmtfeepct/);
    expect([...FUND_BURST.counts]).toEqual([[`key:${record.keyId}`, 3]]);
    // Still not counted once the allowance is spent.
    expect((await post(FUND, toolsList(), { env, auth })).status).toBe(200);
    expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(3);
  });

  it('charges a batch once per tools/call', async () => {
    const { env, auth, record, FUND_BURST } = await fundFixture();
    const res = await post(FUND, [toolsCall('get_fee_terms', {}, 1), toolsCall('get_exposure', {}, 2), toolsList(3)], { env, auth });
    const { body } = await okJson<RpcMessage[]>(res);
    expect(body.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(2);
  });
});

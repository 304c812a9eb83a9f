/**
 * The hardening of docs/configuration.md#variables-and-secrets and docs/api.md#limits through the app (`createApp().request`, in-memory bindings):
 * - caching: every fund-data answer, errors included, is `Cache-Control: private, no-store` on REST and on
 *   the fund MCP server; the OpenAPI document lists a server from configuration, never the request's Host;
 * - `INVESTOR_REF_KEY`: with `DATABASE_URL` and no secret, real fund data is refused (500, a fixed detail,
 *   logged) while the demo key and the calculators keep working;
 * - logging: an unexpected error is logged once, as one JSON line with the request id, and no key, body,
 *   query or dependency message; a redaction failure and a failing MCP tool likewise;
 * - configuration: `configOf` parses once per env object, names each malformed variable and its rule
 *   without its value, and a malformed configuration answers every request 500 with a `config_invalid` line.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { ConfigInvalidError, configOf } from '../../lib/config.ts';
import { RedactionFailedError, UpstreamUnavailableError } from '../../lib/errors.ts';
import type { Route } from '../../lib/endpoint.ts';
import { ROUTES, CALCULATORS } from '../../lib/registry.ts';
import { createKey, DEMO_API_KEY } from '../../lib/keys.ts';
import { FakeBurst, fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import { SPEC_MCP_HEADERS } from '../support/contract.ts';
import { calcPath, fundPath } from '../support/declared.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const app = createApp({ clock: () => NOW });
const PRIVATE = 'private, no-store';
const PASSWORD = 'hunter2-db-password';

async function withKey(overrides: Parameters<typeof fakeEnv>[0] = {}, extra: Record<string, string> = {}) {
  const fixture = fakeEnv(overrides);
  const { key } = await createKey(fixture.API_KEYS, { fundId: 'sample-fund' });
  return { env: Object.assign(fixture.env, extra), key, auth: `Bearer ${key}` };
}

const rpc = (method: string, params: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** Captures console.error lines for one test. */
function captureLog(): { lines: () => string[] } {
  const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
  return { lines: () => spy.mock.calls.map((args) => args.map(String).join(' ')) };
}

afterEach(() => vi.restoreAllMocks());

describe('item 5: fund-data answers are private, no-store, errors included', () => {
  it.each([
    ['401 without a key', async () => app.request(fundPath('get_fund_overview'), {}, fakeEnv().env), 401],
    [
      '403 for a key of another fund',
      async () => {
        const { env, auth } = await withKey({ FUND_ID: 'ghost-fund' });
        return app.request(fundPath('get_fund_overview'), { headers: { authorization: auth } }, env);
      },
      403,
    ],
    [
      '400 for a bad query',
      async () => {
        const { env, auth } = await withKey();
        return app.request(`${fundPath('get_nav_history')}?days=0x10`, { headers: { authorization: auth } }, env);
      },
      400,
    ],
    ['404 for an unknown fund path', async () => app.request('/api/v1/fund/nope', {}, fakeEnv().env), 404],
    ['404 for /api/v1/fund itself', async () => app.request('/api/v1/fund', {}, fakeEnv().env), 404],
    ['405 for POST', async () => app.request(fundPath('get_fund_overview'), { method: 'POST' }, fakeEnv().env), 405],
    [
      '429 over the burst limit',
      async () => {
        const { env, auth } = await withKey({ fundBurst: new FakeBurst(0) });
        return app.request(fundPath('get_fund_overview'), { headers: { authorization: auth } }, env);
      },
      429,
    ],
    [
      '200',
      async () => {
        const { env, auth } = await withKey();
        return app.request(fundPath('get_fund_overview'), { headers: { authorization: auth } }, env);
      },
      200,
    ],
  ] as const)('REST %s', async (_label, request, status) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe(PRIVATE);
  });

  it.each([
    [
      '401 without a key',
      async () => app.request('/api/mcp', { method: 'POST', headers: SPEC_MCP_HEADERS, body: rpc('tools/list') }, fakeEnv().env),
      401,
    ],
    [
      '403 for the demo key',
      async () =>
        app.request(
          '/api/mcp',
          { method: 'POST', headers: { ...SPEC_MCP_HEADERS, authorization: `Bearer ${DEMO_API_KEY}` }, body: rpc('tools/list') },
          fakeEnv().env,
        ),
      403,
    ],
    ['405 for GET', async () => app.request('/api/mcp', { method: 'GET' }, fakeEnv().env), 405],
    [
      '400 for a body that is not JSON',
      async () => {
        const { env, auth } = await withKey();
        return app.request('/api/mcp', { method: 'POST', headers: { ...SPEC_MCP_HEADERS, authorization: auth }, body: '{' }, env);
      },
      400,
    ],
    [
      '429 over the burst limit (a JSON-RPC error)',
      async () => {
        const { env, auth } = await withKey({ fundBurst: new FakeBurst(0) });
        return app.request(
          '/api/mcp',
          {
            method: 'POST',
            headers: { ...SPEC_MCP_HEADERS, authorization: auth },
            body: rpc('tools/call', { name: 'get_fee_terms', arguments: {} }),
          },
          env,
        );
      },
      429,
    ],
  ] as const)('fund MCP server %s', async (_label, request, status) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe(PRIVATE);
  });

  it('the OpenAPI document is the same for every Host: a relative server, or PUBLIC_ORIGIN', async () => {
    const { env } = fakeEnv();
    const a = await app.request('http://evil.example/api/v1/openapi.json', {}, env);
    const b = await app.request('http://api.example:8443/api/v1/openapi.json', { headers: { host: 'other.example' } }, env);
    const textA = await a.text();
    expect(textA).toBe(await b.text());
    expect(textA).not.toContain('evil.example');
    expect(JSON.parse(textA).servers).toEqual([{ url: '/' }]);
    expect(a.headers.get('cache-control')).toBe('public, max-age=300');

    const configured = { ...fakeEnv().env, PUBLIC_ORIGIN: 'https://fund-edge.example.com' };
    const c = await app.request('http://evil.example/api/v1/openapi.json', {}, configured);
    expect(((await c.json()) as { servers: unknown }).servers).toEqual([{ url: 'https://fund-edge.example.com' }]);
  });
});

describe('item 7: DATABASE_URL without INVESTOR_REF_KEY fails closed', () => {
  const DATABASE_URL = `postgres://fund:${PASSWORD}@db.example.net:5432/fund`;

  it('refuses real fund data over REST and MCP with a fixed 500 and one log line, before opening the database', async () => {
    const log = captureLog();
    const { env, auth, key } = await withKey({}, { DATABASE_URL });
    const res = await app.request(fundPath('get_fund_overview'), { headers: { authorization: auth } }, env);
    const { problem, text } = await expectProblem(res, 500, 'internal_error');
    expect(problem.detail).toBe('Fund data is unavailable: this deployment is not fully configured.');
    expect(res.headers.get('cache-control')).toBe(PRIVATE);
    for (const secret of ['INVESTOR_REF_KEY', 'DATABASE_URL', PASSWORD, 'db.example.net', key]) expect(text).not.toContain(secret);
    expect(log.lines()).toHaveLength(1);
    expect(JSON.parse(log.lines()[0]!)).toMatchObject({
      level: 'error',
      event: 'internal_error',
      requestId: problem.requestId,
      error: { name: 'FundDataNotConfiguredError' },
    });

    const mcp = await app.request(
      '/api/mcp',
      { method: 'POST', headers: { ...SPEC_MCP_HEADERS, authorization: auth }, body: rpc('tools/list') },
      env,
    );
    await expectProblem(mcp, 500, 'internal_error');
    expect(log.lines()).toHaveLength(2);
  });

  it('keeps serving the demo key and the calculators', async () => {
    const { env } = await withKey({}, { DATABASE_URL });
    const demo = await app.request(fundPath('get_fund_overview'), { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }, env);
    expect(demo.status).toBe(200);
    const calc = await app.request(
      calcPath('operating-cost-calculator'),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      env,
    );
    expect(calc.status).toBe(200);
  });
});

describe('item 8: one structured log line per unexpected failure', () => {
  const SECRET_BODY = 'body-secret-7731';
  const failing = (thrown: () => unknown): Route[] =>
    [
      ...ROUTES,
      {
        path: '/api/v1/boom',
        endpoint: {
          methods: {
            POST: {
              ...ROUTES[0]!.endpoint.methods.GET!,
              handle: async (c) => {
                await c.req.text();
                throw thrown();
              },
            },
          },
        },
      },
    ] as Route[];

  it('a forced 500 logs exactly one JSON line: request id, route, method, error name; no key, body, query or dependency message', async () => {
    const log = captureLog();
    const boom = createApp({
      clock: () => NOW,
      routes: failing(
        () =>
          new TypeError(`relation "investors" does not exist: SELECT * WHERE tax_id = '${SECRET_BODY}'`, {
            cause: new UpstreamUnavailableError(),
          }),
      ),
    });
    const { env, key } = await withKey();
    const res = await boom.request(
      '/api/v1/boom?token=query-secret-99',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: SECRET_BODY }),
      },
      env,
    );
    const { problem, text } = await expectProblem(res, 500, 'internal_error');
    expect(text).not.toContain(SECRET_BODY);
    expect(log.lines()).toHaveLength(1);
    const line = log.lines()[0]!;
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      level: 'error',
      event: 'unexpected_error',
      requestId: problem.requestId,
      method: 'POST',
      route: '/api/v1/boom',
      status: 500,
      error: { name: 'TypeError' },
      causes: [
        {
          name: 'UpstreamUnavailableError',
          code: 'upstream_unavailable',
          message: 'The fund database is unavailable right now; retry shortly.',
        },
      ],
    });
    for (const secret of [key, SECRET_BODY, 'query-secret-99', 'SELECT', 'investors']) expect(line).not.toContain(secret);
  });

  it('a redaction failure is logged once with its reason; a 4xx is not logged', async () => {
    const log = captureLog();
    const boom = createApp({ clock: () => NOW, routes: failing(() => new RedactionFailedError('identity_value')) });
    const res = await boom.request('/api/v1/boom', { method: 'POST', body: '{}' }, fakeEnv().env);
    await expectProblem(res, 500, 'redaction_failed');
    expect(log.lines().map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ event: 'redaction_failed', reason: 'identity_value', status: 500 }),
    ]);
    await app.request(fundPath('get_fund_overview'), {}, fakeEnv().env);
    expect(log.lines()).toHaveLength(1);
  });

  it('a calculator failing inside an MCP tool call is logged once (answered as an isError result)', async () => {
    const log = captureLog();
    const def = CALCULATORS.find((d) => d.slug === 'operating-cost-calculator')!;
    vi.spyOn(def, 'run').mockImplementation(() => {
      throw new RangeError(`internal detail ${SECRET_BODY}`);
    });
    const res = await app.request(
      '/api/mcp/public',
      {
        method: 'POST',
        headers: SPEC_MCP_HEADERS,
        body: rpc('tools/call', { name: 'calc_operating_cost_calculator', arguments: {} }),
      },
      fakeEnv().env,
    );
    const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(JSON.parse(body.result.content[0]!.text)).toMatchObject({ code: 'internal_error' });
    expect(log.lines()).toHaveLength(1);
    expect(JSON.parse(log.lines()[0]!)).toMatchObject({
      event: 'unexpected_error',
      route: '/api/mcp/public',
      error: { name: 'RangeError' },
      requestId: res.headers.get('x-request-id'),
    });
    expect(log.lines()[0]).not.toContain(SECRET_BODY);
  });
});

describe('item 9: configuration parsed once', () => {
  it('defaults: the sample fund, any CORS origin, no MCP origins, no public origin', () => {
    expect(configOf({})).toEqual({
      fundId: 'sample-fund',
      databaseUrl: undefined,
      databaseWsProxy: undefined,
      investorRefKey: undefined,
      corsOrigins: '*',
      mcpAllowedOrigins: [],
      publicOrigin: undefined,
      oauthAccessTokenTtl: 3600,
      oauthRefreshTokenTtl: 2_592_000,
    });
    expect(configOf({ OAUTH_ACCESS_TOKEN_TTL: '60', OAUTH_REFRESH_TOKEN_TTL: '31536000' })).toMatchObject({
      oauthAccessTokenTtl: 60,
      oauthRefreshTokenTtl: 31_536_000,
    });
    expect(
      configOf({
        CORS_ORIGINS: ' https://a.example , https://b.example:8443 ',
        MCP_ALLOWED_ORIGINS: '*',
        FUND_ID: 'fund_2.a-b',
        PUBLIC_ORIGIN: 'https://x.example',
      }),
    ).toMatchObject({
      fundId: 'fund_2.a-b',
      corsOrigins: ['https://a.example', 'https://b.example:8443'],
      mcpAllowedOrigins: '*',
      publicOrigin: 'https://x.example',
    });
    expect(configOf({ CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
  });

  it('parses once per env object', () => {
    const env = { FUND_ID: 'sample-fund' };
    expect(configOf(env)).toBe(configOf(env));
    expect(configOf({ ...env })).not.toBe(configOf(env));
  });

  it.each([
    ['CORS_ORIGINS', 'https://app.example/path'],
    ['CORS_ORIGINS', 'cors-host.test'],
    ['CORS_ORIGINS', '*, https://app.example'],
    ['CORS_ORIGINS', 'ftp://files.example'],
    ['MCP_ALLOWED_ORIGINS', 'javascript:alert(1)'],
    ['FUND_ID', 'fund with spaces'],
    ['FUND_ID', 'x'.repeat(65)],
    ['DATABASE_URL', `mysql://u:${PASSWORD}@db/x`],
    ['DATABASE_URL', `not a url ${PASSWORD}`],
    ['PUBLIC_ORIGIN', 'https://fund-edge.example.com/api'],
    ['PUBLIC_ORIGIN', 'public-host.test'],
    ['INVESTOR_REF_KEY', 'short'],
    ['OAUTH_ACCESS_TOKEN_TTL', '59'],
    ['OAUTH_ACCESS_TOKEN_TTL', '86401'],
    ['OAUTH_ACCESS_TOKEN_TTL', '1h'],
    ['OAUTH_ACCESS_TOKEN_TTL', '0600'],
    ['OAUTH_REFRESH_TOKEN_TTL', '31536001'],
  ])('%s=%j is refused, naming the variable and not the value', (variable, value) => {
    let error: unknown;
    try {
      configOf({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigInvalidError);
    const issues = (error as ConfigInvalidError).issues;
    expect(issues.map((i) => i.variable)).toEqual([variable]);
    const said = JSON.stringify(issues) + (error as Error).message;
    expect(said).not.toContain(value);
    expect(said).not.toContain(PASSWORD);
  });

  it('a malformed OAuth token lifetime fails every request like any other variable, not only the OAuth paths', async () => {
    const log = captureLog();
    const env = { ...fakeEnv().env, OAUTH_ACCESS_TOKEN_TTL: '30' };
    for (const [path, init] of [
      ['/llms.txt', {}],
      [calcPath('operating-cost-calculator'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      [fundPath('get_fund_overview'), { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }],
      ['/.well-known/oauth-authorization-server', {}],
    ] as const) {
      await expectProblem(await app.request(`http://localhost:8787${path}`, init, env), 500, 'internal_error');
    }
    const lines = log.lines().map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({
      event: 'config_invalid',
      issues: [{ variable: 'OAUTH_ACCESS_TOKEN_TTL', rule: 'must be whole seconds from 60 to 86400' }],
    });
  });

  it('a malformed configuration answers every request 500 internal_error and logs config_invalid', async () => {
    const log = captureLog();
    const env = { ...fakeEnv().env, CORS_ORIGINS: 'not-an-origin', DATABASE_URL: `mysql://u:${PASSWORD}@db/x` };
    for (const [path, init] of [
      ['/api/v1/openapi.json', {}],
      [calcPath('operating-cost-calculator'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
      [fundPath('get_fund_overview'), { headers: { authorization: `Bearer ${DEMO_API_KEY}` } }],
    ] as const) {
      const res = await app.request(path, init, env);
      const { text } = await expectProblem(res, 500, 'internal_error');
      expect(text).not.toContain(PASSWORD);
    }
    const lines = log.lines().map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      event: 'config_invalid',
      issues: [
        { variable: 'DATABASE_URL', rule: 'must be a postgres:// or postgresql:// URL with a host' },
        { variable: 'CORS_ORIGINS', rule: expect.stringContaining('comma-separated origins') },
      ],
    });
    expect(log.lines().join('\n')).not.toContain(PASSWORD);
  });
});

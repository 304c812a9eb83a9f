/**
 * The MCP servers' HTTP side (docs/mcp.md), through `app.request` with in-memory bindings: `initialize`
 * with a client's headers, the `MCP-Protocol-Version` header, `Accept` variants, methods and the CORS
 * preflight, and the DNS-rebinding guard (Host 421, Origin 403).
 */
import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Env } from '../../lib/env.ts';
import { fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import { SPEC_MCP_HEADERS } from '../support/contract.ts';
import {
  T,
  app,
  PUBLIC,
  FUND,
  INITIALIZE,
  type RpcMessage,
  type ToolDefinition,
  post,
  toolsList,
  toolsCall,
  okJson,
  rpcError,
  toolResult,
  expectNoInternals,
  fundFixture,
  SERVERS,
  admitted,
  CHEAP_CALL,
  sseData,
} from './support.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';

describe('initialize', () => {
  it('negotiates 2026-06-18 down to the SDK newest revision, which is not 2026-06-18', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(LATEST_PROTOCOL_VERSION);
    expect(SUPPORTED_PROTOCOL_VERSIONS).not.toContain('2026-06-18');
  });

  it.each([
    ['public', PUBLIC, 'fund-edge-calculators', 'fund-edge calculators', 'no-store', /quota/],
    ['fund', FUND, 'fund-edge-fund-data', 'fund-edge fund data', 'private, no-store', /get_fund_overview/],
  ] as const)(
    '%s server answers the spec initialize with exactly the spec headers',
    async (kind, path, name, title, cacheControl, hint) => {
      const { env, auth } = await fundFixture();
      const headers: Record<string, string> = { ...SPEC_MCP_HEADERS };
      if (kind === 'fund') headers.authorization = auth;
      const res = await app.request(path, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) }, env);
      const { body } = await okJson(res);
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name, title, version: '1.0.0', websiteUrl: 'http://localhost/' },
          instructions: expect.stringMatching(hint),
        },
      });
      expect(res.headers.get('cache-control')).toBe(cacheControl);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('ratelimit')).toBeNull();
    },
  );

  it.each(SERVERS)('%s server answers an initialize asking for a supported revision with that revision', async (kind, path) => {
    const { options } = await admitted(kind);
    const res = await post(path, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-06-18' } }, options);
    const { body } = await okJson(res);
    expect(body.result?.protocolVersion).toBe('2025-06-18');
  });

  it('counts initialize against no limit', async () => {
    const { env, RATE_LIMITS, CALC_BURST, FUND_BURST, auth } = await fundFixture();
    expect((await post(PUBLIC, INITIALIZE, { env })).status).toBe(200);
    expect((await post(FUND, INITIALIZE, { env, auth })).status).toBe(200);
    expect(RATE_LIMITS.puts).toEqual([]);
    expect(CALC_BURST.counts.size).toBe(0);
    expect(FUND_BURST.counts.size).toBe(0);
  });
});

describe('MCP-Protocol-Version header', () => {
  const served = [undefined, '2026-06-18', '2025-06-18', LATEST_PROTOCOL_VERSION, '2025-03-26', '2024-11-05'];

  describe.each(SERVERS)('%s server', (kind, path) => {
    it.each(served.map((v) => [v ?? '(none)', v] as const))('serves tools/list with header %s', async (_label, version) => {
      const { options } = await admitted(kind);
      const res = await post(path, toolsList(), { ...options, headers: version === undefined ? {} : { 'mcp-protocol-version': version } });
      const { body } = await okJson(res);
      expect(body.id).toBe(2);
      expect((body.result!.tools as ToolDefinition[]).length).toBe(kind === 'public' ? PUBLIC_TOOL_NAMES.length : FUND_TOOL_NAMES.length);
    });

    it.each(['banana', '1999-01-01', '2025-06-18x', 'secret-value-123'])(
      'refuses header %s with a 400 JSON-RPC error that does not echo it',
      async (version) => {
        const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
        const res = await post(path, CHEAP_CALL[kind], { ...options, headers: { 'mcp-protocol-version': version } });
        const { body, text } = await rpcError(res, 400, -32600);
        expect(body).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Unsupported MCP-Protocol-Version.', data: { supported: SUPPORTED_PROTOCOL_VERSIONS } },
        });
        expect(text).not.toContain(version);
        for (const [, value] of res.headers) expect(value).not.toContain(version);
        // Refused before the body is read: nothing was counted.
        expect(RATE_LIMITS.puts).toEqual([]);
        expect(CALC_BURST.counts.size).toBe(0);
        expect(FUND_BURST.counts.size).toBe(0);
      },
    );
  });
});

describe('Accept', () => {
  describe.each(SERVERS)('%s server', (kind, path) => {
    it.each([
      ['application/json', 'application/json'],
      ['*/*', '*/*'],
      ['none', null],
      ['both (spec)', 'application/json, text/event-stream'],
      ['both, SSE first', 'text/event-stream, application/json'],
      ['application/json with q', 'application/json;q=0.9'],
    ] as const)('answers JSON for Accept %s', async (_label, accept) => {
      const { options } = await admitted(kind);
      const res = await post(path, toolsList(), { ...options, headers: { accept } });
      const { body } = await okJson(res);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 2, result: { tools: expect.any(Array) } });
    });

    it('answers an event stream holding the JSON-RPC response when Accept is only text/event-stream', async () => {
      const { options } = await admitted(kind);
      const res = await post(path, toolsList(7), { ...options, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      const text = await res.text();
      expect(text).toMatch(/^event: message\ndata: \{.*\}\n\n$/);
      const data = sseData(text);
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({ jsonrpc: '2.0', id: 7, result: { tools: expect.any(Array) } });
      expect(((data[0] as RpcMessage).result!.tools as ToolDefinition[]).length).toBe(
        kind === 'public' ? PUBLIC_TOOL_NAMES.length : FUND_TOOL_NAMES.length,
      );
    });
  });

  it('an SSE tools/call on the public server carries the RateLimit headers and the same result as JSON', async () => {
    const { env } = fakeEnv();
    const sse = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env, headers: { accept: 'text/event-stream' } });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    expect(sse.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
    expect(sse.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
    const [message] = sseData(await sse.text()) as RpcMessage[];
    const json = await toolResult(await post(PUBLIC, toolsCall('calc_fee_calculator'), { env }));
    expect(message!.result).toEqual(json.result);
  });

  it('an SSE tools/call on the fund server answers the same result as JSON', async () => {
    const { env, auth } = await fundFixture();
    const sse = await post(FUND, toolsCall('get_fee_terms'), { env, auth, headers: { accept: 'text/event-stream' } });
    expect(sse.status).toBe(200);
    const [message] = sseData(await sse.text()) as RpcMessage[];
    const json = await toolResult(await post(FUND, toolsCall('get_fee_terms'), { env, auth }));
    expect(message!.result).toEqual(json.result);
  });

  // Fund-data responses carry `Cache-Control: private, no-store`. The SSE answer of the fund
  // server keeps the SDK's `no-cache, no-transform` (dispatch.ts sets the spec's Cache-Control only when
  // not SSE), which lets a shared cache store fund data.
  it('an SSE answer of the fund server is Cache-Control private, no-store (docs/api.md#conventions)', async () => {
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_fee_terms'), { env, auth, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    await res.text();
    const directives = (res.headers.get('cache-control') ?? '').split(',').map((d) => d.trim());
    expect(directives).toEqual(expect.arrayContaining(['private', 'no-store']));
  });
});

describe('methods and preflight', () => {
  it.each(SERVERS.flatMap(([kind, path]) => ['GET', 'DELETE', 'PUT', 'PATCH'].map((m) => [m, kind, path] as const)))(
    '%s on the %s server is 405 with Allow: POST',
    async (method, _kind, path) => {
      const res = await post(path, null, { method });
      const { text } = await expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
      expectNoInternals(text);
    },
  );

  it.each(SERVERS)('%s server answers a CORS preflight with 204, without a key, counting nothing', async (_kind, path) => {
    const { env, FUND_BURST, CALC_BURST, RATE_LIMITS } = fakeEnv();
    const res = await app.request(
      path,
      {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      },
      env,
    );
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowHeaders = (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim());
    expect(allowHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'accept']));
    expect((res.headers.get('access-control-allow-methods') ?? '').split(',')).toContain('POST');
    expect(FUND_BURST.counts.size).toBe(0);
    expect(CALC_BURST.counts.size).toBe(0);
    expect(RATE_LIMITS.puts).toEqual([]);
  });
});

// The DNS-rebinding guard (lib/origin.ts). A rebinding page reaches a local server with `Host: evil.example`
// and `Origin: http://evil.example`; the guard used to accept an Origin equal to the origin built from the
// request's own Host, so that request was served.
describe('DNS-rebinding guard: Host and Origin', () => {
  const PUBLIC_ORIGIN = 'https://fund-edge.example.com';
  /** `admitted`, with extra Worker vars (PUBLIC_ORIGIN) on top of the fake bindings. */
  async function admittedWith(kind: 'public' | 'fund', vars: Record<string, string>, overrides: Parameters<typeof fakeEnv>[0] = {}) {
    const fixture = await admitted(kind, overrides);
    const env = { ...fixture.env, ...vars } as Env;
    return { ...fixture, env, options: { ...fixture.options, env } };
  }

  describe.each(SERVERS)('%s server', (kind, path) => {
    it.each([
      ['evil.example', 'http://evil.example'],
      ['evil.example:8787', 'http://evil.example:8787'],
      ['evil.example', undefined],
      ['localhost.evil.example', 'http://localhost.evil.example'],
      ['127.0.0.1.evil.example:8787', undefined],
      ['127.0.0.2:8787', undefined],
      ['[::2]:8787', undefined],
      ['0.0.0.0:8787', undefined],
      ['192.168.1.5:8787', 'http://192.168.1.5:8787'],
    ])('served locally, refuses Host %s (Origin %s) with 421 before the key, counting nothing', async (host, origin) => {
      const { options, key, RATE_LIMITS, CALC_BURST, FUND_BURST } = await admitted(kind);
      const headers: Record<string, string> = { host, ...(origin === undefined ? {} : { origin }) };
      const { problem, text } = await expectProblem(
        await post(path, CHEAP_CALL[kind], { ...options, headers }),
        421,
        'misdirected_request',
      );
      expect(problem.detail).toMatch(/localhost, 127\.0\.0\.1 or \[::1\]/);
      expect(text).not.toContain(host);
      expectNoInternals(text, [key]);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
      // Without a key as well: the Host is checked first.
      await expectProblem(await post(path, INITIALIZE, { headers }), 421, 'misdirected_request');
    });

    it.each(['localhost', 'localhost:8787', 'LOCALHOST:1', '127.0.0.1', '127.0.0.1:8787', '[::1]', '[::1]:65535'])(
      'served locally, serves Host %s with and without its own Origin',
      async (host) => {
        const { options } = await admitted(kind);
        expect((await post(path, toolsList(), { ...options, headers: { host } })).status).toBe(200);
        const res = await post(path, toolsList(), { ...options, headers: { host, origin: `http://${host.toLowerCase()}` } });
        expect(res.status, await res.clone().text()).toBe(200);
      },
    );

    it.each(['http://localhost:8787', 'https://localhost', 'http://127.0.0.1:3000', 'http://[::1]:8787'])(
      'served locally, serves loopback Origin %s',
      async (origin) => {
        const { options } = await admitted(kind);
        expect((await post(path, toolsList(), { ...options, headers: { host: '127.0.0.1:8787', origin } })).status).toBe(200);
      },
    );

    it.each([
      'https://evil.example',
      'null',
      'http://localhost.evil.example',
      'https://127.0.0.1.evil.example',
      'http://localhost:8787/path',
      'file://',
    ])('served locally, refuses Origin %s with 403 origin_not_allowed (even with a valid key), counting nothing', async (origin) => {
      const { options, key, RATE_LIMITS, CALC_BURST, FUND_BURST } = await admitted(kind);
      const res = await post(path, CHEAP_CALL[kind], { ...options, headers: { host: '127.0.0.1:8787', origin } });
      const { text } = await expectProblem(res, 403, 'origin_not_allowed');
      expectNoInternals(text, [key]);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('refuses a foreign Origin before asking for a key', async () => {
      const res = await post(path, INITIALIZE, { headers: { origin: 'https://evil.example' } });
      await expectProblem(res, 403, 'origin_not_allowed');
    });

    it('with a public PUBLIC_ORIGIN, serves any Host, and as Origin only PUBLIC_ORIGIN (never one derived from Host)', async () => {
      const { options } = await admittedWith(kind, { PUBLIC_ORIGIN });
      for (const host of ['fund-edge.example.com', 'fund-edge.acct.workers.dev', 'evil.example']) {
        expect((await post(path, toolsList(), { ...options, headers: { host } })).status, host).toBe(200);
      }
      const own = await post(path, toolsList(), { ...options, headers: { host: 'fund-edge.example.com', origin: PUBLIC_ORIGIN } });
      expect(own.status).toBe(200);
      for (const [host, origin] of [
        ['evil.example', 'http://evil.example'],
        ['fund-edge.acct.workers.dev', 'https://fund-edge.acct.workers.dev'],
        ['fund-edge.example.com', 'http://fund-edge.example.com'],
        ['fund-edge.example.com', 'http://localhost:8787'],
      ] as const) {
        await expectProblem(await post(path, toolsList(), { ...options, headers: { host, origin } }), 403, 'origin_not_allowed');
      }
    });

    it('with a loopback PUBLIC_ORIGIN, runs locally: a foreign Host is 421', async () => {
      const { options } = await admittedWith(kind, { PUBLIC_ORIGIN: 'http://127.0.0.1:8787' });
      await expectProblem(
        await post(path, toolsList(), { ...options, headers: { host: 'evil.example', origin: 'http://evil.example' } }),
        421,
        'misdirected_request',
      );
      expect(
        (await post(path, toolsList(), { ...options, headers: { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' } })).status,
      ).toBe(200);
      expect(
        (await post(path, toolsList(), { ...options, headers: { host: 'localhost:8787', origin: 'http://localhost:5173' } })).status,
      ).toBe(200);
    });

    it.each([
      'fund-edge.example.com',
      'https://fund-edge.example.com/mcp',
      'ftp://fund-edge.example.com',
      'https://user:pw@fund-edge.example.com',
      'not a url',
    ])('with a malformed PUBLIC_ORIGIN %s, refuses every request with 500 (a configuration error, fail closed)', async (value) => {
      const { options } = await admittedWith(kind, { PUBLIC_ORIGIN: value });
      for (const host of ['127.0.0.1:8787', 'fund-edge.example.com']) {
        const { text } = await expectProblem(await post(path, toolsList(), { ...options, headers: { host } }), 500, 'internal_error');
        expect(text).not.toContain(value === 'not a url' ? 'not a url' : 'pw@');
      }
    });

    it("an empty PUBLIC_ORIGIN (wrangler.toml's default) is local", async () => {
      const { options } = await admittedWith(kind, { PUBLIC_ORIGIN: ' ' });
      expect((await post(path, toolsList(), { ...options, headers: { host: 'localhost:8787' } })).status).toBe(200);
      await expectProblem(
        await post(path, toolsList(), { ...options, headers: { host: 'fund-edge.acct.workers.dev' } }),
        421,
        'misdirected_request',
      );
    });

    it('serves an Origin listed in MCP_ALLOWED_ORIGINS and refuses others', async () => {
      const { options } = await admitted(kind, { MCP_ALLOWED_ORIGINS: 'https://app.example, https://tools.example' });
      for (const origin of ['https://app.example', 'https://tools.example']) {
        const res = await post(path, toolsList(), { ...options, headers: { origin } });
        expect(res.status, origin).toBe(200);
      }
      for (const origin of ['https://evil.example', 'https://app.example.evil.example', 'http://app.example']) {
        await expectProblem(await post(path, toolsList(), { ...options, headers: { origin } }), 403, 'origin_not_allowed');
      }
    });

    it('serves any Origin when MCP_ALLOWED_ORIGINS is *, but still only loopback Hosts when local', async () => {
      const { options } = await admitted(kind, { MCP_ALLOWED_ORIGINS: '*' });
      const res = await post(path, toolsList(), { ...options, headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(200);
      const rebound = await post(path, toolsList(), { ...options, headers: { host: 'evil.example', origin: 'http://evil.example' } });
      await expectProblem(rebound, 421, 'misdirected_request');
    });
  });
});

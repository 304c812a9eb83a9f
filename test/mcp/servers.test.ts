/**
 * The two MCP servers (docs/mcp.md) end to end through `app.request` with in-memory bindings:
 * the public calculator server `POST /api/mcp/public` and the fund-data server `POST /api/mcp`.
 *
 * Covers:
 * - `initialize` with exactly the spec's headers and `protocolVersion` 2026-06-18, answered with the SDK's
 *   newest revision; the `MCP-Protocol-Version` header (served, later-than-implemented, refused);
 * - `Accept` variants (JSON unless only SSE is asked for), GET/DELETE 405 with `Allow: POST`, the
 *   DNS-rebinding guard (Host 421, Origin 403; `PUBLIC_ORIGIN`, `MCP_ALLOWED_ORIGINS`), CORS preflight,
 *   notifications (202), batches, empty batches, malformed JSON, non-JSON-RPC JSON, 413 and 415;
 * - `tools/list` of both servers (the documented literal names, schemas, read-only annotations);
 * - `tools/call` of every calculator and every fund tool, proven equal to the REST body (byte for byte
 *   for fund data), with `structuredContent`, RateLimit headers and `Cache-Control`;
 * - tool input errors as `isError` results with `/arguments/...` pointers, 404/409 of P&L attribution,
 *   unknown tools and methods as JSON-RPC errors, never echoing a submitted value;
 * - the fund server's key checks (401/403, none counted), the public quota and burst guard, the fund burst
 *   guard, with 429 JSON-RPC bodies; and that no error body carries internals.
 *
 * The app runs on a fixed clock (2026-11-20T12:00:00Z, 43,200 s before the next UTC midnight), so every
 * RateLimit header value is asserted exactly.
 */
import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createApp } from '../../lib/app.ts';
import type { Env } from '../../lib/env.ts';
import { CALCULATORS } from '../../lib/calculators/index.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { FUND_TOOLS } from '../../lib/fund/tools/index.ts';
import { SAMPLE_FUND, generateFund } from '../../lib/fund/synthetic.ts';
import { createKey, DEMO_API_KEY, generateKey, revokeKey } from '../../lib/keys.ts';
import { quotaWritesSettled } from '../../lib/rate-limit.ts';
import { FakeBurst, fakeEnv } from '../support/fakes.ts';
import { expectProblem } from '../support/problems.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES, SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import { fundExample } from '../support/examples.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
/** Seconds from {@link NOW} to the next UTC midnight. */
const T = 43_200;
const app = createApp({ clock: () => NOW });
const IP = '192.0.2.1';
const QUOTA_KEY = `calc:${IP}:2026-11-20`;
const PUBLIC = '/api/mcp/public';
const FUND = '/api/mcp';
const SECRET = 'secret-value-123';

const INITIALIZE = specInitialize('x');

interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}
interface RpcMessage {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: RpcErrorBody;
}
interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
interface JsonSchemaObject {
  type: string;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}
interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}
interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: { pointer: string; detail: string }[];
}

interface PostOptions {
  env?: Env;
  /** Full `Authorization` value; omitted when undefined. */
  auth?: string;
  /** `CF-Connecting-IP`; default {@link IP}, `null` to send none. */
  ip?: string | null;
  /** Header overrides on top of {@link SPEC_MCP_HEADERS} (lower-case names); `null` removes a header. */
  headers?: Record<string, string | null>;
  method?: string;
}

/** POSTs `body` (JSON-encoded unless a string) to an MCP path with the spec's headers. */
async function post(path: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...SPEC_MCP_HEADERS };
  const ip = options.ip === undefined ? IP : options.ip;
  if (ip !== null) headers['cf-connecting-ip'] = ip;
  if (options.auth !== undefined) headers.authorization = options.auth;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  const method = options.method ?? 'POST';
  const init: RequestInit = { method, headers };
  if (method === 'POST') init.body = typeof body === 'string' ? body : JSON.stringify(body);
  return app.request(path, init, options.env ?? fakeEnv().env);
}

const toolsList = (id: number | string = 2) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const toolsCall = (name: string, args: Record<string, unknown> = {}, id: number | string = 3) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** Asserts a 200 JSON answer and returns the parsed JSON-RPC message(s) and the raw text. */
async function okJson<T = RpcMessage>(res: Response): Promise<{ body: T; text: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('mcp-session-id')).toBeNull();
  return { body: JSON.parse(text) as T, text };
}

/** Asserts a JSON-RPC error response with `status` and returns its body and text. */
async function rpcError(res: Response, status: number, code: number): Promise<{ body: RpcMessage; text: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json');
  const body = JSON.parse(text) as RpcMessage;
  expect(body.jsonrpc).toBe('2.0');
  expect(body.result).toBeUndefined();
  expect(body.error?.code).toBe(code);
  expect(typeof body.error?.message).toBe('string');
  expect(body.error!.message.length).toBeGreaterThan(0);
  expectNoInternals(text);
  return { body, text };
}

/** The result of a successful `tools/call` answer. */
async function toolResult(res: Response, id: number | string = 3): Promise<{ result: ToolResult; text: string }> {
  const { body, text } = await okJson(res);
  expect(body.jsonrpc).toBe('2.0');
  expect(body.id).toBe(id);
  expect(body.error).toBeUndefined();
  return { result: body.result as unknown as ToolResult, text };
}

/** The problem body an `isError` tool result carries as its text. */
function toolProblem(result: ToolResult, res: Response): Problem {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  const problem = JSON.parse(result.content[0]!.text) as Problem;
  expect(problem.type).toBe(`/problems/${problem.code}`);
  expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  expect(Object.keys(problem).every((k) => ['type', 'title', 'status', 'detail', 'code', 'requestId', 'errors'].includes(k))).toBe(true);
  return problem;
}

/** Asserts a response text holds no stack trace, dependency exception text, key or given secret. */
function expectNoInternals(text: string, secrets: readonly string[] = []): void {
  expect(text).not.toMatch(/"stack"|\bstack\b/i);
  expect(text).not.toMatch(/\n\s*at |\bat \S+ \(|\bat \S+:\d+:\d+|\.(ts|js):\d+/);
  expect(text).not.toMatch(/Error:|\b[A-Z][A-Za-z]*Error\b/);
  expect(text).not.toMatch(/invalid_type|"expected"|"path"|node_modules/);
  expect(text).not.toMatch(/svc_dk_[0-9A-Za-z]{32}/);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** A fresh environment with a real key of the deployment's fund (sample-fund). */
async function fundFixture(overrides: Parameters<typeof fakeEnv>[0] = {}) {
  const fixture = fakeEnv(overrides);
  const { key, record } = await createKey(fixture.API_KEYS, { fundId: 'sample-fund' });
  return { ...fixture, key, record, auth: `Bearer ${key}` };
}

/** Both servers: the path, and what a request needs to be admitted (a real key on the fund server). */
const SERVERS = [
  ['public', PUBLIC],
  ['fund', FUND],
] as const;

async function admitted(kind: 'public' | 'fund', overrides: Parameters<typeof fakeEnv>[0] = {}) {
  const fixture = await fundFixture(overrides);
  return { ...fixture, options: { env: fixture.env, ...(kind === 'fund' ? { auth: fixture.auth } : {}) } satisfies PostOptions };
}

/** A cheap tool call on each server (counted against its limit). */
const CHEAP_CALL = { public: toolsCall('calc_operating_cost_calculator'), fund: toolsCall('get_fee_terms') } as const;

/** The first SSE `data:` payloads of an event-stream body. */
function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length).trim()) as unknown);
}

describe('initialize', () => {
  it('negotiates 2026-06-18 down to the SDK newest revision, which is not 2026-06-18', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(LATEST_PROTOCOL_VERSION);
    expect(SUPPORTED_PROTOCOL_VERSIONS).not.toContain('2026-06-18');
  });

  it.each([
    ['public', PUBLIC, 'fund-edge-calculators', 'fund-edge calculators', 'no-store', /quota/],
    ['fund', FUND, 'fund-edge-fund-data', 'fund-edge fund data', 'private, no-store', /get_fund_overview/],
  ] as const)('%s server answers the spec initialize with exactly the spec headers', async (kind, path, name, title, cacheControl, hint) => {
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
  });

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
      expect((body.result!.tools as ToolDefinition[]).length).toBe(kind === 'public' ? 8 : 12);
    });

    it.each(['banana', '1999-01-01', '2025-06-18x', 'secret-value-123'])('refuses header %s with a 400 JSON-RPC error that does not echo it', async (version) => {
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
    });
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
      expect(((data[0] as RpcMessage).result!.tools as ToolDefinition[]).length).toBe(kind === 'public' ? 8 : 12);
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

  // Contract §0: fund-data responses carry `Cache-Control: private, no-store`. The SSE answer of the fund
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
      const { problem, text } = await expectProblem(await post(path, CHEAP_CALL[kind], { ...options, headers }), 421, 'misdirected_request');
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

    it.each(['https://evil.example', 'null', 'http://localhost.evil.example', 'https://127.0.0.1.evil.example', 'http://localhost:8787/path', 'file://'])(
      'served locally, refuses Origin %s with 403 origin_not_allowed (even with a valid key), counting nothing',
      async (origin) => {
        const { options, key, RATE_LIMITS, CALC_BURST, FUND_BURST } = await admitted(kind);
        const res = await post(path, CHEAP_CALL[kind], { ...options, headers: { host: '127.0.0.1:8787', origin } });
        const { text } = await expectProblem(res, 403, 'origin_not_allowed');
        expectNoInternals(text, [key]);
        expect(RATE_LIMITS.puts).toEqual([]);
        expect(CALC_BURST.counts.size).toBe(0);
        expect(FUND_BURST.counts.size).toBe(0);
      },
    );

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
      await expectProblem(await post(path, toolsList(), { ...options, headers: { host: 'evil.example', origin: 'http://evil.example' } }), 421, 'misdirected_request');
      expect((await post(path, toolsList(), { ...options, headers: { host: '127.0.0.1:8787', origin: 'http://127.0.0.1:8787' } })).status).toBe(200);
      expect((await post(path, toolsList(), { ...options, headers: { host: 'localhost:8787', origin: 'http://localhost:5173' } })).status).toBe(200);
    });

    it.each(['fund-edge.example.com', 'https://fund-edge.example.com/mcp', 'ftp://fund-edge.example.com', 'https://user:pw@fund-edge.example.com', 'not a url'])(
      'with a malformed PUBLIC_ORIGIN %s, refuses every request with 500 (a configuration error, fail closed)',
      async (value) => {
        const { options } = await admittedWith(kind, { PUBLIC_ORIGIN: value });
        for (const host of ['127.0.0.1:8787', 'fund-edge.example.com']) {
          const { text } = await expectProblem(await post(path, toolsList(), { ...options, headers: { host } }), 500, 'internal_error');
          expect(text).not.toContain(value === 'not a url' ? 'not a url' : 'pw@');
        }
      },
    );

    it('an empty PUBLIC_ORIGIN (wrangler.toml\'s default) is local', async () => {
      const { options } = await admittedWith(kind, { PUBLIC_ORIGIN: ' ' });
      expect((await post(path, toolsList(), { ...options, headers: { host: 'localhost:8787' } })).status).toBe(200);
      await expectProblem(await post(path, toolsList(), { ...options, headers: { host: 'fund-edge.acct.workers.dev' } }), 421, 'misdirected_request');
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

describe('JSON-RPC framing', () => {
  describe.each(SERVERS)('%s server', (kind, path) => {
    it('answers notifications only with 202 and an empty body, counting nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST } = await admitted(kind);
      for (const body of [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
      ]) {
        const res = await post(path, body, options);
        expect(res.status).toBe(202);
        expect(await res.text()).toBe('');
        expect(res.headers.get('ratelimit')).toBeNull();
      }
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('answers a batch of two requests with an array of two responses matched by id', async () => {
      const { options, FUND_BURST, record } = await admitted(kind);
      const res = await post(path, [toolsList('list-1'), { ...CHEAP_CALL[kind], id: 42 }], options);
      const { body } = await okJson<RpcMessage[]>(res);
      expect(Array.isArray(body)).toBe(true);
      expect(body).toHaveLength(2);
      const list = body.find((m) => m.id === 'list-1')!;
      const call = body.find((m) => m.id === 42)!;
      expect((list.result!.tools as ToolDefinition[]).length).toBe(kind === 'public' ? 8 : 12);
      const result = call.result as unknown as ToolResult;
      expect(result.isError).toBeUndefined();
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
      if (kind === 'public') expect(res.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
      else expect([...FUND_BURST.counts]).toEqual([[`key:${record.keyId}`, 1]]);
    });

    // JSON-RPC 2.0 §6: the answer to a batch is an array, even of one response; the SDK sends a bare object.
    it.each([
      ['one request', [toolsList(5)]],
      ['a request and a notification', [{ jsonrpc: '2.0', method: 'notifications/initialized' }, toolsList(5)]],
    ])('answers a batch of %s under 2025-03-26 with an array of one response', async (_label, batch) => {
      const { options } = await admitted(kind);
      const { body } = await okJson<RpcMessage[]>(await post(path, batch, { ...options, headers: { 'mcp-protocol-version': '2025-03-26' } }));
      expect(Array.isArray(body)).toBe(true);
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({ jsonrpc: '2.0', id: 5, result: { tools: expect.any(Array) } });
    });

    it('answers a one-request batch of a tools/call with an array, charging it once', async () => {
      const { options, FUND_BURST, RATE_LIMITS } = await admitted(kind);
      const res = await post(path, [CHEAP_CALL[kind]], { ...options, headers: { 'mcp-protocol-version': '2024-11-05' } });
      const { body } = await okJson<RpcMessage[]>(res);
      expect(body).toHaveLength(1);
      expect(body[0]!.id).toBe(3);
      expect((body[0]!.result as unknown as ToolResult).isError).toBeUndefined();
      if (kind === 'public') expect(RATE_LIMITS.puts).toHaveLength(1);
      else expect([...FUND_BURST.counts.values()]).toEqual([1]);
    });

    // MCP removed JSON-RPC batching in revision 2025-06-18: batches are refused under it and every later one,
    // whether named by the header or negotiated by an initialize in the batch, and served under earlier ones
    // (no header: the SDK's assumption, 2025-03-26).
    it.each([['2025-06-18'], ['2025-11-25'], ['2026-06-18']])('refuses any batch under MCP-Protocol-Version %s with 400 -32600, counting nothing', async (version) => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      for (const batch of [[toolsList(1)], [toolsList(1), CHEAP_CALL[kind]], [{ jsonrpc: '2.0', method: 'notifications/initialized' }]]) {
        const res = await post(path, batch, { ...options, headers: { 'mcp-protocol-version': version } });
        const { body } = await rpcError(res, 400, -32600);
        expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batch/i) } });
      }
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('refuses a batch holding an initialize that negotiates 2025-06-18 or later, and serves one negotiating 2025-03-26', async () => {
      const { options } = await admitted(kind);
      for (const version of ['2025-06-18', '2025-11-25', '2026-06-18']) {
        const batch = [{ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }];
        await rpcError(await post(path, batch, options), 400, -32600);
      }
      const old = [{ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } }];
      const { body } = await okJson<RpcMessage[]>(await post(path, old, options));
      expect(body).toEqual([expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-03-26' }) })]);
    });

    // The SDK matches responses to requests by id: of two requests sharing one, only one was answered (and
    // both tools/calls were charged).
    it('refuses a batch of two requests with the same id with 400 -32600, counting nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      for (const batch of [
        [toolsList(1), { jsonrpc: '2.0', id: 1, method: 'ping' }],
        [{ ...CHEAP_CALL[kind], id: 'a' }, { ...CHEAP_CALL[kind], id: 'a' }],
      ]) {
        const { body } = await rpcError(await post(path, batch, options), 400, -32600);
        expect(body.id).toBeNull();
      }
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
      // Ids equal as text but of different types are distinct (JSON-RPC compares them as values).
      const { body } = await okJson<RpcMessage[]>(await post(path, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: '1', method: 'ping' }], options));
      expect(body.map((m) => m.id).sort()).toEqual([1, '1']);
    });

    // The SDK refuses a batch of more than 100 messages, but only after the tools/calls in it were charged.
    it('refuses a batch of 101 messages with 400 -32600 before charging its calls, and serves one of 100', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const calls = Array.from({ length: 101 }, (_, i) => ({ ...CHEAP_CALL[kind], id: i }));
      const { body } = await rpcError(await post(path, calls, options), 400, -32600);
      expect(body.error!.message).toMatch(/100/);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
      const lists = Array.from({ length: 100 }, (_, i) => toolsList(i));
      expect((await okJson<RpcMessage[]>(await post(path, lists, options))).body).toHaveLength(100);
    });

    // The SDK refuses an initialize batched with other messages, but only after the tools/calls were charged.
    it('refuses an initialize batched with a tools/call with 400 -32600, charging nothing', async () => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const old = { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } };
      const { body } = await rpcError(await post(path, [old, CHEAP_CALL[kind]], options), 400, -32600);
      expect(body.id).toBeNull();
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    it('refuses an empty batch with a 400 JSON-RPC error', async () => {
      const { options } = await admitted(kind);
      const { body } = await rpcError(await post(path, [], options), 400, -32600);
      expect(body.id).toBeNull();
    });

    it.each([
      ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"tools/list"'],
      ['not JSON at all', `${SECRET} is not json`],
      ['an empty body', ''],
    ])('refuses %s with 400 -32700 and id null, without echoing it', async (_label, raw) => {
      const { options, RATE_LIMITS, FUND_BURST } = await admitted(kind);
      const { body, text } = await rpcError(await post(path, raw, options), 400, -32700);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    // JSON-RPC 2.0 §5.1: well-formed JSON that is not a valid Request object is -32600 Invalid Request with id
    // null (-32700 is for a body that is not JSON at all). MCP narrows `id` to a string or an integer, and
    // `params` and `params._meta` to objects.
    it.each([
      ['an object that is not JSON-RPC', { foo: 1 }],
      ['null', null],
      ['a number', 42],
      ['a batch holding a non-message', [toolsList(), { foo: SECRET }]],
      ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
      ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }],
      ['an object id', { jsonrpc: '2.0', id: { n: SECRET }, method: 'tools/list' }],
      ['an array id', { jsonrpc: '2.0', id: [1], method: 'tools/list' }],
      ['a boolean id', { jsonrpc: '2.0', id: true, method: 'tools/list' }],
      ['a null id', { jsonrpc: '2.0', id: null, method: 'tools/list' }],
      ['a method that is not a string', { jsonrpc: '2.0', id: 1, method: 7 }],
      ['array params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [SECRET] }],
      ['string params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: SECRET }],
      ['null params', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null }],
      ['a numeric _meta', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 5 } }],
      ['a string _meta', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: SECRET } }],
      ['an array _meta on a notification', { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: [] } }],
      ['an object progressToken', { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: { x: SECRET } } } }],
      ['an unknown top-level member', { jsonrpc: '2.0', id: 1, method: 'tools/list', [SECRET]: 1 }],
    ])('refuses %s with 400 -32600 Invalid Request and id null', async (_label, value) => {
      const { options, RATE_LIMITS, FUND_BURST, CALC_BURST } = await admitted(kind);
      const res = await post(path, value, options);
      const { body, text } = await rpcError(res, 400, -32600);
      expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(RATE_LIMITS.puts).toEqual([]);
      expect(CALC_BURST.counts.size).toBe(0);
      expect(FUND_BURST.counts.size).toBe(0);
    });

    // JSON-RPC 2.0 §5.1: -32602 for invalid method parameters; the SDK alone answers -32603 Internal error
    // when a request's params fail the method's schema.
    it.each([
      ['initialize with a numeric protocolVersion', { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: 5 } }],
      ['initialize without clientInfo', { ...INITIALIZE, params: { protocolVersion: '2025-11-25', capabilities: {} } }],
      ['initialize without params', { jsonrpc: '2.0', id: 1, method: 'initialize' }],
      ['initialize with string capabilities', { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: SECRET } }],
      ['tools/list with a numeric cursor', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } }],
      ['initialize with clientInfo that is an array', { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: [SECRET] } }],
    ])('answers %s with -32602 Invalid params (HTTP 200) for its id', async (_label, value) => {
      const { options } = await admitted(kind);
      const { body, text } = await okJson(await post(path, value, options));
      expect(body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: expect.any(String) } });
      expectNoInternals(text, [SECRET]);
    });

    it('answers a ping, and an initialize without optional members, as the SDK does', async () => {
      const { options } = await admitted(kind);
      expect((await okJson(await post(path, { jsonrpc: '2.0', id: 1, method: 'ping' }, options))).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
      expect((await okJson(await post(path, init, options))).body.result?.protocolVersion).toBe('2025-03-26');
    });

    it.each([
      ['text/plain', { 'content-type': 'text/plain' }],
      ['form', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['no Content-Type', { 'content-type': null }],
      // A +json type is JSON to the REST endpoints, but MCP posts application/json only (the SDK answered
      // it with a bare JSON-RPC 415 before; found by the fuzz suite).
      ['application/vnd.api+json', { 'content-type': 'application/vnd.api+json' }],
    ] as const)('refuses a %s body with 415 problem+json', async (_label, headers) => {
      const { options, key } = await admitted(kind);
      const res = await post(path, JSON.stringify(toolsList()), { ...options, headers });
      const { text } = await expectProblem(res, 415, 'unsupported_media_type');
      expectNoInternals(text, [key]);
      if (kind === 'fund') expect(res.headers.get('cache-control')).toBe('private, no-store');
    });

    it.each(['Application/JSON', 'application/json; charset=utf-8'])('serves a %s body', async (type) => {
      const { options } = await admitted(kind);
      expect((await post(path, JSON.stringify(toolsList()), { ...options, headers: { 'content-type': type } })).status).toBe(200);
    });

    it('refuses a body over 1 MiB with 413 problem+json', async () => {
      const { options } = await admitted(kind);
      const big = JSON.stringify({ ...toolsList(), params: { padding: 'x'.repeat(1024 * 1024) } });
      const { text } = await expectProblem(await post(path, big, options), 413, 'payload_too_large');
      expectNoInternals(text);
    });

    it('answers an unknown method with JSON-RPC -32601 that does not echo it', async () => {
      const { options } = await admitted(kind);
      const res = await post(path, { jsonrpc: '2.0', id: 9, method: `resources/${SECRET}` }, options);
      const { body, text } = await okJson(res);
      expect(body).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32601, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
    });

    it('answers an unknown tool with JSON-RPC -32602 (HTTP 200) that does not echo its name', async () => {
      const { options } = await admitted(kind);
      const name = `calc_${SECRET}_tool`;
      const res = await post(path, toolsCall(name, {}, 11), options);
      const { body, text } = await okJson(res);
      expect(body).toEqual({ jsonrpc: '2.0', id: 11, error: { code: -32602, message: expect.any(String) } });
      expect(text).not.toContain(SECRET);
      expect(body.error!.message).not.toContain(name);
      expectNoInternals(text);
    });

    // Contract §1/§6: no error text carries a dependency's exception text. A tools/call whose params do not
    // match the SDK's request schema is answered -32603 with zod's issue list (JSON) as the message, because
    // the SDK's Protocol.setRequestHandler parses with CallToolRequestSchema and a thrown ZodError has no code.
    it.each([
      ['arguments that are not an object', { name: 'calc_fee_calculator', arguments: SECRET }],
      ['a name that is not a string', { name: 12345, arguments: {} }],
    ])('answers a tools/call with %s as JSON-RPC -32602 without dependency text', async (_label, params) => {
      const { options } = await admitted(kind);
      const res = await post(path, { jsonrpc: '2.0', id: 12, method: 'tools/call', params }, options);
      const { body, text } = await okJson(res);
      expectNoInternals(text, [SECRET]);
      expect(body.error?.code).toBe(-32602);
    });
  });
});

describe('tools/list', () => {
  function checkCommon(tool: ToolDefinition): void {
    expect(typeof tool.title).toBe('string');
    expect(tool.title!.length).toBeGreaterThan(0);
    expect(typeof tool.description).toBe('string');
    expect(tool.description!.length).toBeGreaterThan(20);
    expect(tool.inputSchema.type).toBe('object');
    expect(tool.outputSchema?.type).toBe('object');
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, title: tool.title });
  }

  it('the public server lists exactly the calc_* tools of docs/mcp.md, then search_docs', async () => {
    expect(CALCULATORS.map(toolName).sort()).toEqual([...PUBLIC_TOOL_NAMES].sort());
    const { body } = await okJson(await post(PUBLIC, toolsList()));
    const tools = body.result!.tools as ToolDefinition[];
    expect(tools.map((t) => t.name)).toEqual([...CALCULATORS.map(toolName), 'search_docs']);
    checkCommon(tools.at(-1)!);
    for (const [i, tool] of tools.slice(0, -1).entries()) {
      const def = CALCULATORS[i]!;
      checkCommon(tool);
      expect(tool.title).toBe(def.title);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(def.input.shape).sort());
      // Every calculator argument is optional.
      expect(tool.inputSchema.required ?? []).toEqual([]);
      expect(Object.keys(tool.outputSchema!.properties ?? {})).toEqual(expect.arrayContaining(['inputs', 'disclaimer']));
    }
  });

  it('the fund server lists exactly the get_* tools of docs/mcp.md', async () => {
    expect(FUND_TOOLS.map((t) => t.tool).sort()).toEqual([...FUND_TOOL_NAMES].sort());
    const { env, auth } = await fundFixture();
    const { body } = await okJson(await post(FUND, toolsList(), { env, auth }));
    const tools = body.result!.tools as ToolDefinition[];
    expect(tools.map((t) => t.name)).toEqual(FUND_TOOLS.map((t) => t.tool));
    for (const [i, tool] of tools.entries()) {
      const def = FUND_TOOLS[i]!;
      checkCommon(tool);
      expect(tool.title).toBe(def.title);
      expect(tool.description).toContain(`/api/v1/fund/${def.path}`);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(def.query.shape).sort());
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_pnl_attribution')!.inputSchema.required).toEqual(['date']);
    expect(Object.keys(byName.get('get_fund_overview')!.inputSchema.properties ?? {})).toEqual([]);
    const series = byName.get('get_exposure_series')!.outputSchema!;
    expect(series.required).toEqual(['items']);
    expect(series.properties!.items).toMatchObject({ type: 'array', items: { type: 'object' } });
  });
});

describe('public server tools/call', () => {
  it.each(CALCULATORS.map((def) => [toolName(def), def.slug] as const))(
    '%s with {} answers the REST body of /api/v1/calc/%s as structuredContent and text, counted on the daily quota',
    async (name, slug) => {
      const { env, RATE_LIMITS } = fakeEnv();
      const first = await post(PUBLIC, toolsCall(name), { env });
      expect(first.headers.get('ratelimit-policy')).toBe('"daily";q=500;w=86400');
      expect(first.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const { result } = await toolResult(first);

      const rest = await app.request(
        `/api/v1/calc/${slug}`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': IP }, body: '{}' },
        env,
      );
      expect(rest.status).toBe(200);
      expect(rest.headers.get('ratelimit')).toBe(`"daily";r=498;t=${T}`);
      const restText = await rest.text();

      expect(result.isError).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: restText }]);
      expect(result.structuredContent).toEqual(JSON.parse(restText));
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);

      const second = await post(PUBLIC, toolsCall(name), { env });
      expect(second.headers.get('ratelimit')).toBe(`"daily";r=497;t=${T}`);
      await quotaWritesSettled(RATE_LIMITS as unknown as KVNamespace); // the count is written behind the response
      expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('3');
    },
  );

  it.each([
    ['a wrong type', { horizonYears: SECRET }, '/arguments/horizonYears', 'must be of type number'],
    ['an out-of-range value', { horizonYears: 987654321 }, '/arguments/horizonYears', undefined],
    ['an unknown argument', { [`x${SECRET}`]: SECRET }, `/arguments/x${SECRET}`, 'is not a known field'],
  ] as const)('answers %s as an isError result with an /arguments pointer, counted', async (_label, args, pointer, detail) => {
    const { env } = fakeEnv();
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', args), { env });
    const { result } = await toolResult(res);
    const problem = toolProblem(result, res);
    expect(problem).toMatchObject({ type: '/problems/invalid_request', title: 'Invalid request', status: 400, code: 'invalid_request' });
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e.pointer).toBe(pointer);
    if (detail) expect(problem.errors).toEqual([{ pointer, detail }]);
    // The value is never echoed (an unknown argument's name is, as its pointer).
    const values = JSON.stringify(problem.errors!.map((e) => e.detail)) + problem.detail;
    expect(values).not.toContain(SECRET);
    expect(values).not.toContain('987654321');
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=499;t=${T}`);
    expectNoInternals(result.content[0]!.text);
  });

  it('names the field of a cross-field rule', async () => {
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', { horizonYears: 2, annualGrossReturnPctByYear: [5, 6, 7] }));
    const { result } = await toolResult(res);
    expect(toolProblem(result, res).errors).toEqual([{ pointer: '/arguments/annualGrossReturnPctByYear', detail: 'has more years than horizonYears covers' }]);
  });

  // A CSV is checked by the calculator, not its schema; the core names the field, the edge adds where it came from.
  it.each([
    ['calc_exposure_analysis', { positionsCsv: 'Asset,Value\nBTC,lots' }, '/arguments/positionsCsv', 'line 2: Value is not a number within ±1e15'],
    ['calc_exposure_analysis', { positionsCsv: 'Asset\nBTC' }, '/arguments/positionsCsv', 'header lacks the column Value'],
    ['calc_fund_health_check', { positionsCsv: 'Asset,Value\n"BTC,1' }, '/arguments/positionsCsv', undefined],
    ['calc_nav_validator', { lpRowsCsv: 'nope\n1' }, '/arguments/lpRowsCsv', undefined],
  ] as const)('%s reports a bad CSV at %j → %s', async (name, args, pointer, detail) => {
    const res = await post(PUBLIC, toolsCall(name, args));
    const { result } = await toolResult(res);
    const errors = toolProblem(result, res).errors!;
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e.pointer).toBe(pointer);
    if (detail) expect(errors[0]!.detail).toBe(detail);
  });
});

/** Every fund tool's declared example, as MCP arguments and as a REST query string. */
const FUND_ARGS = Object.fromEntries(FUND_TOOLS.map((def) => [def.tool, fundExample(def)]));

const sampleRuns = generateFund(SAMPLE_FUND).runs;
const usable = (r: (typeof sampleRuns)[number]) => r.status === 'complete' && r.reconStatus === 'matched' && r.shadowNav !== null;

describe('fund server tools/call', () => {
  it('the argument table covers every fund tool, and the declared dates are usable runs of the sample fund', () => {
    expect(Object.keys(FUND_ARGS).sort()).toEqual([...FUND_TOOL_NAMES].sort());
    const dates = FUND_TOOLS.flatMap((def) => Object.values(def.example).filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v)));
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(usable(sampleRuns.find((r) => r.navDate === date)!), date).toBe(true);
  });

  it.each(FUND_TOOLS.map((def) => [def.tool, def.path] as const))(
    '%s answers the REST body of GET /api/v1/fund/%s byte for byte',
    async (name, path) => {
      const { env, auth, record, FUND_BURST } = await fundFixture();
      const { args, query } = FUND_ARGS[name]!;
      const res = await post(FUND, toolsCall(name, args), { env, auth });
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('ratelimit')).toBeNull();
      const { result } = await toolResult(res);
      expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(1);

      const rest = await app.request(`/api/v1/fund/${path}${query}`, { headers: { authorization: auth, 'cf-connecting-ip': IP } }, env);
      const restText = await rest.text();
      expect(rest.status, restText).toBe(200);
      expect(FUND_BURST.counts.get(`key:${record.keyId}`)).toBe(2);

      expect(result.isError).toBeUndefined();
      expect(result.content).toHaveLength(1);
      expect(result.content[0]).toEqual({ type: 'text', text: restText });
      const parsed: unknown = JSON.parse(restText);
      if (name === 'get_exposure_series') {
        expect(Array.isArray(parsed)).toBe(true);
        expect((parsed as unknown[]).length).toBeGreaterThan(0);
        expect(result.structuredContent).toEqual({ items: parsed });
      } else {
        expect(result.structuredContent).toEqual(parsed);
      }
      // The sample fund (Meridian), not the demo fund.
      expect(restText).not.toContain('Northstar');
    },
  );

  it('the non-default arguments take effect', async () => {
    const { env, auth } = await fundFixture();
    const structured = async (name: string, args: Record<string, unknown>) =>
      (await toolResult(await post(FUND, toolsCall(name, args), { env, auth }))).result.structuredContent!;
    expect((await structured('get_nav_history', { days: 7 })).runs).toHaveLength(7);
    expect((await structured('get_expenses', { limit: 3 })).expenses).toHaveLength(3);
    expect(await structured('get_value_at_risk', { confidence: 0.99, method: 'sample', windowDays: 100 })).toMatchObject({
      confidence: 0.99,
      method: 'sample',
      windowDays: 100,
      lambda: null,
    });
    expect(await structured('get_pnl_attribution', { date: '2026-10-20' })).toMatchObject({ date: '2026-10-20' });
  });

  const failed = sampleRuns.find((r) => r.status === 'failed')!;
  const partial = sampleRuns.find((r) => r.status === 'partial')!;
  const brk = sampleRuns.find((r) => r.status === 'complete' && r.reconStatus === 'break')!;

  it.each([
    ['get_exposure_series', { days: 0 }, '/arguments/days'],
    ['get_exposure_series', { days: 367 }, '/arguments/days'],
    ['get_exposure_series', { days: SECRET }, '/arguments/days'],
    ['get_exposure_series', { dayz: SECRET }, '/arguments/dayz'],
    ['get_nav_history', { days: 1.5 }, '/arguments/days'],
    ['get_expenses', { limit: 501 }, '/arguments/limit'],
    ['get_value_at_risk', { method: SECRET }, '/arguments/method'],
    ['get_value_at_risk', { confidence: 0.9 }, '/arguments/confidence'],
    ['get_pnl_attribution', {}, '/arguments/date'],
    ['get_pnl_attribution', { date: '2026-02-30' }, '/arguments/date'],
    ['get_fund_overview', { verbose: SECRET }, '/arguments/verbose'],
    // Arguments must be of the JSON type tools/list advertises: no coercion (README, MCP servers: argument types).
    ['get_nav_history', { days: [90] }, '/arguments/days'],
    ['get_nav_history', { days: true }, '/arguments/days'],
    ['get_nav_history', { days: '90' }, '/arguments/days'],
    ['get_nav_history', { days: null }, '/arguments/days'],
    ['get_expenses', { limit: '0x1F' }, '/arguments/limit'],
    ['get_value_at_risk', { confidence: '0.99' }, '/arguments/confidence'],
    ['get_value_at_risk', { horizonDays: [10] }, '/arguments/horizonDays'],
    ['get_value_at_risk', { windowDays: false }, '/arguments/windowDays'],
  ] as const)('%s with %j is an isError invalid_request result at %s', async (name, args, pointer) => {
    const { env, auth, key } = await fundFixture();
    const res = await post(FUND, toolsCall(name, args), { env, auth });
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const { result, text } = await toolResult(res);
    const problem = toolProblem(result, res);
    expect(problem).toMatchObject({ type: '/problems/invalid_request', status: 400, code: 'invalid_request' });
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e.pointer).toBe(pointer);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('2026-02-30');
    expectNoInternals(text, [key]);
  });

  it('get_exposure_series names both a bad value and an unknown argument', async () => {
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_exposure_series', { days: SECRET, dayz: SECRET }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res).errors).toEqual([
      { pointer: '/arguments/days', detail: 'must be of type number' },
      { pointer: '/arguments/dayz', detail: 'is not a known field' },
    ]);
    expect(text).not.toContain(SECRET);
  });

  it.each(['2020-01-01', '2026-11-01'])('get_pnl_attribution for %s (no run) is an isError not_found result', async (date) => {
    expect(sampleRuns.some((r) => r.navDate === date)).toBe(false);
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_pnl_attribution', { date }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res)).toMatchObject({ type: '/problems/not_found', status: 404, code: 'not_found' });
    expect(text).not.toContain(date);
    expectNoInternals(text);
  });

  it.each([
    ['failed', failed],
    ['partial', partial],
    ['break', brk],
  ] as const)('get_pnl_attribution for a %s run is an isError not_usable result', async (_kind, run) => {
    expect(run).toBeDefined();
    expect(usable(run)).toBe(false);
    const { env, auth } = await fundFixture();
    const res = await post(FUND, toolsCall('get_pnl_attribution', { date: run.navDate }), { env, auth });
    const { result, text } = await toolResult(res);
    expect(toolProblem(result, res)).toMatchObject({ type: '/problems/not_usable', status: 409, code: 'not_usable' });
    expect(text).not.toContain(run.navDate);
    for (const figure of [run.shadowNav, run.adminNav]) if (figure !== null) expect(text).not.toContain(figure);
    expectNoInternals(text);
  });
});

describe('fund server keys', () => {
  const cases: [string, (f: Awaited<ReturnType<typeof fundFixture>>) => Promise<string | undefined>, number, string, string][] = [
    ['no key', async () => undefined, 401, 'unauthorized', 'Bearer realm="fund-data"'],
    ['a malformed key', async () => 'Bearer svc_dk_short', 401, 'unauthorized', 'Bearer realm="fund-data", error="invalid_token"'],
    ['an unknown key', async () => `Bearer ${generateKey()}`, 401, 'unauthorized', 'Bearer realm="fund-data", error="invalid_token"'],
    [
      'a revoked key',
      async (f) => {
        const revoked = await createKey(f.API_KEYS, { fundId: 'sample-fund' });
        await revokeKey(f.API_KEYS, revoked.record.prefix);
        return `Bearer ${revoked.key}`;
      },
      401,
      'unauthorized',
      'Bearer realm="fund-data", error="invalid_token"',
    ],
    ['another scheme', async () => 'Basic dXNlcjpwYXNz', 401, 'unauthorized', 'Bearer realm="fund-data"'],
    ['the demo key', async () => `Bearer ${DEMO_API_KEY}`, 403, 'insufficient_scope', 'Bearer realm="fund-data", error="insufficient_scope"'],
    [
      "another fund's key",
      async (f) => `Bearer ${(await createKey(f.API_KEYS, { fundId: 'other-fund' })).key}`,
      403,
      'insufficient_scope',
      'Bearer realm="fund-data", error="insufficient_scope"',
    ],
  ];

  it.each(cases)('refuses %s, counting nothing against FUND_BURST', async (_label, authOf, status, code, challenge) => {
    const fixture = await fundFixture();
    const auth = await authOf(fixture);
    for (const body of [INITIALIZE, toolsList(), CHEAP_CALL.fund, [CHEAP_CALL.fund, { ...CHEAP_CALL.fund, id: 4 }]]) {
      const res = await post(FUND, body, { env: fixture.env, ...(auth === undefined ? {} : { auth }) });
      const { text } = await expectProblem(res, status, code);
      expect(res.headers.get('www-authenticate')).toBe(challenge);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const token = auth?.split(' ')[1];
      expectNoInternals(text, token ? [token, fixture.key] : [fixture.key]);
      expect(text.toLowerCase()).not.toMatch(/meridian|northstar|shadownav|investor/);
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
  it('refuses an invalid key with 401, counting nothing', async () => {
    const { env, RATE_LIMITS, CALC_BURST } = fakeEnv();
    for (const auth of ['Bearer svc_dk_short', `Bearer ${generateKey()}`]) {
      const res = await post(PUBLIC, CHEAP_CALL.public, { env, auth });
      const { text } = await expectProblem(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="fund-data", error="invalid_token"');
      expectNoInternals(text, [auth.slice('Bearer '.length)]);
    }
    expect(RATE_LIMITS.puts).toEqual([]);
    expect(CALC_BURST.counts.size).toBe(0);
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
    const res = await post(PUBLIC, [toolsList(1), toolsCall('calc_fee_calculator', {}, 2), toolsCall('calc_fee_calculator', {}, 3)], { env });
    const text = await res.text();
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit')).toBe(`"daily";r=1;t=${T}`);
    const body = JSON.parse(text) as RpcMessage[];
    expect(body.map((m) => m.id)).toEqual([1, 2, 3]);
    for (const m of body) expect(m.error).toMatchObject({ code: -32029, data: { status: 429, code: 'rate_limited', retryAfterSeconds: T } });
    expect(await RATE_LIMITS.get(QUOTA_KEY)).toBe('499');
    // One call still fits.
    const one = await post(PUBLIC, toolsCall('calc_fee_calculator'), { env });
    expect(one.status).toBe(200);
    expect(one.headers.get('ratelimit')).toBe(`"daily";r=0;t=${T}`);
  });

  it('counts the calls of one IP on the same quota as REST, and other IPs separately', async () => {
    const { env, RATE_LIMITS } = fakeEnv();
    await RATE_LIMITS.put(QUOTA_KEY, '500');
    const rest = await app.request('/api/v1/calc/fee-calculator', { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': IP }, body: '{}' }, env);
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
    expect((JSON.parse(refusedText) as RpcMessage).error?.message).toBe('The daily calculator quota of 1 calls is used up; it resets at 00:00 UTC.');
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
      error: { code: -32029, message: 'Too many calls in a short time; slow down.', data: { status: 429, code: 'rate_limited', retryAfterSeconds: 60 } },
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

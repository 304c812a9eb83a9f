/**
 * Both MCP revisions on both servers through the app (docs/mcp.md#protocol-revisions): the v2 SDK's client
 * pinned to 2026-07-28, the v2 client negotiating (`server/discover`), and the v1 SDK's client (2025-11-25,
 * `initialize`) each list the tools and call one; a 2026-07-28 request passes the same steps as a 2025 one
 * (DNS-rebinding guard, 403 `invalid_key`, the quota) and carries the revision's result fields.
 */
import { describe, expect, it } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../../lib/service.ts';
import { FakeBurst } from '../support/fakes.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';
import { fundFixture } from './support.ts';

const app = createApp();
const BASE = 'http://127.0.0.1:8787';
const SERVERS = {
  public: { path: '/api/mcp/public', tools: PUBLIC_TOOL_NAMES, call: { name: 'calc_operating_cost_calculator', arguments: {} } },
  fund: { path: '/api/mcp', tools: FUND_TOOL_NAMES, call: { name: 'get_fee_terms', arguments: {} } },
} as const;
const MODERN = '2026-07-28';
const CLIENTS = ['v2 pinned to 2026-07-28', 'v2 negotiating', 'v1 (2025-11-25)'] as const;

/** A fetch that sends every request through the app with the given bindings. */
function appFetch(env: object): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => app.request(new Request(input, init), undefined, env)) as typeof fetch;
}

/** A connected client of a kind on a server, and the revision it negotiated. */
async function connect(kind: (typeof CLIENTS)[number], url: URL, env: object, headers: Record<string, string>) {
  const options = { fetch: appFetch(env), requestInit: { headers } };
  if (kind === 'v1 (2025-11-25)') {
    const client = new ClientV1({ name: 'revisions-test', version: '1.0.0' });
    const transport = new TransportV1(url, options);
    await client.connect(transport);
    return { client, revision: transport.protocolVersion };
  }
  const mode = kind === 'v2 negotiating' ? ('auto' as const) : { pin: MODERN };
  const client = new ClientV2({ name: 'revisions-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(url, options));
  return { client, revision: client.getNegotiatedProtocolVersion?.() };
}

describe.each(Object.entries(SERVERS))('the %s server', (name, server) => {
  it.each(CLIENTS)('a %s client lists the tools and calls one', async (kind) => {
    const f = await fundFixture();
    const headers: Record<string, string> = name === 'fund' ? { authorization: f.auth } : {};
    const { client, revision } = await connect(kind, new URL(`${BASE}${server.path}`), f.env, headers);
    try {
      expect(revision).toBe(kind === 'v1 (2025-11-25)' ? '2025-11-25' : MODERN);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...server.tools].sort());
      for (const tool of tools) if (tool.name !== 'search_docs') expect(tool.annotations?.readOnlyHint).toBe(true);
      const result = (await client.callTool(server.call)) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(result.isError).toBeFalsy();
      expect(Object.keys(result.structuredContent ?? {}).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 tools/call carries the revision fields, is charged, and a wrong key is 403 invalid_key before it', async () => {
    const fundBurst = new FakeBurst();
    const f = await fundFixture({ fundBurst });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const post = (auth: string | undefined, body: unknown, extra: Record<string, string> = {}) =>
      app.request(
        `${BASE}${server.path}`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            ...(auth ? { authorization: auth } : {}),
            ...extra,
          },
          body: JSON.stringify(body),
        },
        f.env,
      );
    const auth = name === 'fund' ? f.auth : undefined;
    const list = await post(auth, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }, { 'mcp-method': 'tools/list' });
    expect(list.status).toBe(200);
    const listed = ((await list.json()) as { result: { ttlMs: number; cacheScope: string; resultType: string } }).result;
    expect(listed).toMatchObject({ resultType: 'complete', cacheScope: name === 'fund' ? 'private' : 'public' });
    expect(listed.ttlMs).toBeGreaterThan(0);

    const call = await post(
      auth,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...server.call, _meta: meta } },
      { 'mcp-method': 'tools/call', 'mcp-name': server.call.name },
    );
    expect(call.status).toBe(200);
    if (name === 'public') expect(call.headers.get('ratelimit')).toMatch(/^"daily";r=\d+/);
    else expect([...fundBurst.counts.values()]).toEqual([1]);

    const wrong = await post('Bearer svc_dk_0000000000000000000000000000000X', {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: { _meta: meta },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await wrong.json()) as { code: string }).code).toBe('invalid_key');
    const rebinding = await post(
      auth,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } },
      { origin: 'https://evil.example' },
    );
    expect(rebinding.status).toBe(403);
    // The SDK's own wording quotes what was sent (here the tool's name); the service's does not.
    const mismatch = await post(
      auth,
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { ...server.call, _meta: meta } },
      {
        'mcp-method': 'tools/call',
      },
    );
    expect(mismatch.status).toBe(400);
    const mismatched = (await mismatch.json()) as { error: Record<string, unknown> };
    expect(mismatched.error).toEqual({ code: -32020, message: 'Bad Request: the MCP request headers and the body disagree.' });
    const future = await post(
      auth,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/list',
        params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      {
        'mcp-protocol-version': '2099-01-01',
      },
    );
    const unsupported = ((await future.json()) as { error: { code: number; data: unknown } }).error;
    expect(unsupported.code).toBe(-32022);
    expect(unsupported.data).toEqual({ supported: [MODERN] });
    const batch = await post(auth, [{ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: meta } }]);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });
});

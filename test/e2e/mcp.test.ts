/**
 * The two MCP servers end to end: the SDK's own `Client` with `StreamableHTTPClientTransport` against the
 * Worker in workerd over real HTTP, listing and calling every tool (the client validates each
 * `structuredContent` against the tool's `outputSchema`), and raw JSON-RPC with exactly the headers and
 * `initialize` body of docs/mcp.md. The fund server is called with a key minted by the real CLI. The
 * DNS-rebinding guard over real HTTP (node:http, which, unlike fetch, sends the `Host` it is given), with
 * wrangler.toml's empty `PUBLIC_ORIGIN`: a local service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { CALCULATORS, FUND_TOOLS } from '../../lib/registry.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';
import { fundExample } from '../support/examples.ts';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-mcp-e2e-'));
let worker: TestWorker;
let sampleKey: string;

beforeAll(async () => {
  sampleKey = await mintKey(persistDir, ['--fund', 'sample-fund', '--label', 'mcp e2e']);
  worker = await startWorker(persistDir);
});

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Arguments each fund tool is called with: its declared example. */
const FUND_ARGS = Object.fromEntries(FUND_TOOLS.map((def) => [def.tool, fundExample(def).args]));

async function connect(path: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'fund-edge-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${worker.base}${path}`), { requestInit: { headers } }));
  return client;
}

type TextContent = { type: 'text'; text: string };

describe('public server through the SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('/api/mcp/public', { 'cf-connecting-ip': '198.51.100.80' });
  });
  afterAll(() => client?.close());

  it('negotiates the newest revision the SDK implements and describes itself', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'fund-edge-calculators' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(client.getInstructions()).toMatch(/calculators/i);
  });

  it('lists every declared calculator and search_docs as read-only tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(PUBLIC_TOOL_NAMES);
    expect(tools.at(-1)!.name).toBe('search_docs');
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.outputSchema?.type).toBe('object');
      expect(t.title).toBeTruthy();
    }
  });

  it.each(CALCULATORS.map((c) => [toolName(c), c.path] as const))('%s gives what the REST endpoint gives', async (name, slug) => {
    const result = await client.callTool({ name, arguments: {} });
    const rest = await fetch(`${worker.base}/api/v1/calc/${slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-connecting-ip': '198.51.100.81' },
      body: '{}',
    });
    const body = await rest.json();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(body);
    expect(JSON.parse((result.content as TextContent[])[0]!.text)).toEqual(body);
  });

  it('answers bad arguments with an isError result naming the field', async () => {
    const result = await client.callTool({ name: 'calc_fee_calculator', arguments: { horizonYears: 'secret-value-123' } });
    expect(result.isError).toBe(true);
    const text = (result.content as TextContent[])[0]!.text;
    expect(text).not.toContain('secret-value-123');
    expect(JSON.parse(text)).toMatchObject({ code: 'invalid_request', errors: [{ pointer: '/arguments/horizonYears' }] });
  });

  it('search_docs answers "how is the performance fee computed here?" in workerd, with URLs on the origin', async () => {
    const result = await client.callTool({
      name: 'search_docs',
      arguments: { query: 'how is the performance fee computed here?', limit: 2 },
    });
    expect(result.isError).toBeFalsy();
    const { results } = result.structuredContent as { results: { url: string; text: string }[] };
    expect(results[0]!.url).toBe(`${worker.base}/docs/design/calculators.md#fee-calculator`);
    expect(results.map((r) => r.text).join('\n')).toContain('high-water mark');
  });
});

describe('fund server through the SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('/api/mcp', { authorization: `Bearer ${sampleKey}` });
  });
  afterAll(() => client?.close());

  it('lists every declared fund tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(FUND_TOOL_NAMES);
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
  });

  it.each(FUND_TOOLS.map((t) => [t.tool, t.path] as const))('%s gives the REST body byte for byte', async (name, path) => {
    const args = FUND_ARGS[name] ?? {};
    const result = await client.callTool({ name, arguments: args });
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
    const rest = await fetch(`${worker.base}/api/v1/fund/${path}${query ? `?${query}` : ''}`, {
      headers: { authorization: `Bearer ${sampleKey}` },
    });
    expect(rest.status).toBe(200);
    const text = (result.content as TextContent[])[0]!.text;
    expect(result.isError).toBeFalsy();
    expect(text).toBe(await rest.text());
    const parsed = JSON.parse(text) as unknown;
    expect(result.structuredContent).toEqual(Array.isArray(parsed) ? { items: parsed } : parsed);
  });

  it('refuses a client without a key, and one with the demo key', async () => {
    await expect(connect('/api/mcp')).rejects.toThrow();
    await expect(connect('/api/mcp', { authorization: `Bearer ${DEMO_API_KEY}` })).rejects.toThrow();
  });
});

describe('raw JSON-RPC with the headers and body of docs/mcp.md', () => {
  const headers = SPEC_MCP_HEADERS;
  const initialize = specInitialize();
  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_fund_overview', arguments: {} } };

  it('initializes with 2026-06-18 and is answered with the newest revision implemented', async () => {
    const res = await fetch(`${worker.base}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, Authorization: `Bearer ${sampleKey}` },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { id: number; result: { protocolVersion: string; serverInfo: { name: string } } };
    expect(body.id).toBe(1);
    expect(body.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(body.result.serverInfo.name).toBe('fund-edge-fund-data');
  });

  it.each([
    ['with MCP-Protocol-Version: 2026-06-18', { 'MCP-Protocol-Version': '2026-06-18' }],
    ['without a version header', {}],
  ])('serves get_fund_overview %s', async (_label, extra) => {
    const res = await fetch(`${worker.base}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, ...extra, Authorization: `Bearer ${sampleKey}` },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; result: { structuredContent: { name: string; baseCurrency: string } } };
    expect(body.id).toBe(2);
    expect(body.result.structuredContent.baseCurrency).toBe('USD');
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      for (const path of ['/api/mcp', '/api/mcp/public']) {
        const res = await fetch(`${worker.base}${path}`, { method, headers: { Accept: 'text/event-stream' } });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
      }
    }
  });

  it('refuses a foreign Origin with 403', async () => {
    const res = await fetch(`${worker.base}/api/mcp/public`, {
      method: 'POST',
      headers: { ...headers, Origin: 'https://evil.example' },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('origin_not_allowed');
  });
});

/** POSTs `body` over HTTP/1.1 with exactly the given headers (`Host` included); resolves status and text. */
function rawPost(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const url = new URL(`${worker.base}${path}`);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('DNS-rebinding guard in workerd', () => {
  const init = JSON.stringify(specInitialize('rebinding'));

  it.each([
    ['/api/mcp/public', {}],
    ['/api/mcp', { authorization: 'key' }],
  ])('%s refuses Host evil.example with Origin http://evil.example with 421, before the key', async (path, auth) => {
    const extra: Record<string, string> = 'authorization' in auth ? { authorization: `Bearer ${sampleKey}` } : {};
    for (const host of ['evil.example', 'evil.example:8787', 'localhost.evil.example']) {
      const res = await rawPost(path, { ...SPEC_MCP_HEADERS, ...extra, host, origin: `http://${host}` }, init);
      expect(res.status, res.text).toBe(421);
      expect(JSON.parse(res.text)).toMatchObject({ code: 'misdirected_request', status: 421 });
      expect(res.text).not.toContain('evil.example');
    }
  });

  it.each(['127.0.0.1', 'localhost', '[::1]'])('serves Host %s (the port of the Worker) with its own Origin', async (name) => {
    const host = `${name}:${new URL(worker.base).port}`;
    const res = await rawPost('/api/mcp/public', { ...SPEC_MCP_HEADERS, host, origin: `http://${host}` }, init);
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ id: 1, result: { protocolVersion: LATEST_PROTOCOL_VERSION } });
  });

  it('refuses a foreign Origin on a loopback Host with 403', async () => {
    const res = await rawPost(
      '/api/mcp/public',
      { ...SPEC_MCP_HEADERS, host: new URL(worker.base).host, origin: 'http://evil.example' },
      init,
    );
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'origin_not_allowed' });
  });
});

describe('DNS-rebinding guard in workerd with PUBLIC_ORIGIN set (a deployment)', () => {
  const PUBLIC_ORIGIN = 'https://fund-edge.example.com';
  const dir = mkdtempSync(join(tmpdir(), 'fund-edge-mcp-public-'));
  let published: TestWorker;
  beforeAll(async () => {
    published = await startWorker(dir, { PUBLIC_ORIGIN: { type: 'plain_text', value: PUBLIC_ORIGIN } });
  });
  afterAll(async () => {
    await published?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (headers: Record<string, string>) => {
    const url = new URL(`${published.base}/api/mcp/public`);
    return new Promise<number>((resolve, reject) => {
      const req = request(
        { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...SPEC_MCP_HEADERS, ...headers } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(specInitialize('published')));
    });
  };

  it('serves its public Host and Origin, and refuses an Origin derived from another Host', async () => {
    expect(await post({ host: 'fund-edge.example.com', origin: PUBLIC_ORIGIN })).toBe(200);
    expect(await post({ host: 'fund-edge.example.com' })).toBe(200);
    expect(await post({ host: 'evil.example', origin: 'http://evil.example' })).toBe(403);
    expect(await post({ host: 'fund-edge.example.com', origin: 'http://localhost:8787' })).toBe(403);
  });
});

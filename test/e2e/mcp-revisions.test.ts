/**
 * Both MCP revisions in workerd over real HTTP (docs/mcp.md#protocol-revisions): the v2 SDK's client pinned
 * to 2026-07-28 and the v1 SDK's client (2025-11-25) list the tools of both servers and call one of each,
 * the fund server with a key minted by the real CLI. Proves the v2 SDK bundles and runs in workerd (its
 * workerd build, the JSON Schema validator that compiles no code) beside the v1 SDK.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-mcp-revisions-'));
let worker: TestWorker;
let key: string;

beforeAll(async () => {
  key = await mintKey(persistDir, ['--fund', 'sample-fund', '--label', 'mcp revisions e2e']);
  worker = await startWorker(persistDir);
});

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

const SERVERS = [
  ['public', '/api/mcp/public', PUBLIC_TOOL_NAMES, 'calc_fee_calculator'],
  ['fund', '/api/mcp', FUND_TOOL_NAMES, 'get_fund_overview'],
] as const;

/** What a client of either SDK does here: list the tools, call one with no arguments. */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/** Lists the server's tools (exactly `names`) and calls `tool`: a result with structured content, not an error. */
async function listsAndCalls(client: ToolClient, names: readonly string[], tool: string): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...names].sort());
  const result = (await client.callTool({ name: tool, arguments: {} })) as { isError?: boolean; structuredContent?: object };
  expect(result.isError).toBeFalsy();
  expect(Object.keys(result.structuredContent ?? {}).length).toBeGreaterThan(0);
}

describe.each(SERVERS)('the %s server in workerd', (name, path, names, tool) => {
  const headers = (): Record<string, string> =>
    name === 'fund' ? { authorization: `Bearer ${key}` } : { 'cf-connecting-ip': '198.51.100.90' };

  it('an SDK v2 client at 2026-07-28 lists the tools and calls one', async () => {
    const client = new ClientV2({ name: 'e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`${worker.base}${path}`), { requestInit: { headers: headers() } }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: name === 'fund' ? 'fund-edge-fund-data' : 'fund-edge-calculators' });
      await listsAndCalls(client, names, tool);
    } finally {
      await client.close();
    }
  });

  it('a 2025-11-25 client (SDK v1) lists the tools and calls one', async () => {
    const client = new ClientV1({ name: 'e2e-v1', version: '1.0.0' });
    const transport = new TransportV1(new URL(`${worker.base}${path}`), { requestInit: { headers: headers() } });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      await listsAndCalls(client, names, tool);
    } finally {
      await client.close();
    }
  });
});

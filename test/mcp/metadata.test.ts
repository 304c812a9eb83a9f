/**
 * MCP metadata a client shows or checks: `serverInfo` with title and websiteUrl, tool schemas with nullable
 * fields as `anyOf` with null (no `type` arrays), units in every tool description, and an unknown-tool error
 * that names the tool asked for, only when the name has the shape of a tool name.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { CATALOG } from '../../lib/registry.ts';
import { fundServer } from '../../lib/mcp/fund-server.ts';
import { publicServer } from '../../lib/mcp/public-server.ts';
import { withNullAsAnyOf } from '../../lib/mcp/portable-schema.ts';
import { unknownToolMessage } from '../../lib/mcp/sdk-adapter.ts';
import { fakeEnv } from '../support/fakes.ts';

const app = createApp();
const ORIGIN = 'https://fund-edge.example';

async function rpc(body: unknown): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const res = await app.request(
    `${ORIGIN}/api/mcp/public`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'cf-connecting-ip': '192.0.2.9' },
      body: JSON.stringify(body),
    },
    fakeEnv({ PUBLIC_ORIGIN: ORIGIN }).env,
  );
  expect(res.status).toBe(200);
  return res.json();
}

describe('serverInfo', () => {
  it('carries name, title, version and the home page as websiteUrl', async () => {
    const { result } = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    expect(result.serverInfo).toEqual({
      name: 'fund-edge-calculators',
      title: 'fund-edge calculators',
      version: '1.0.0',
      websiteUrl: `${ORIGIN}/`,
    });
  });
});

describe('tool schemas', () => {
  it('tools/list has no type arrays; nullable fields are anyOf with null', async () => {
    const { result } = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const text = JSON.stringify(result);
    expect(text).not.toMatch(/"type":\[/);
    const fee = result.tools.find((t: { name: string }) => t.name === 'calc_fee_calculator');
    expect(fee.outputSchema.properties.finalHwmUsd).toEqual({
      description: 'High-water mark at the end; null without HWM.',
      anyOf: [{ type: 'number' }, { type: 'null' }],
    });
  });

  it('the fund server too', () => {
    for (const tool of fundServer.definitions(CATALOG)) {
      expect(JSON.stringify([tool.inputSchema, tool.outputSchema]), tool.name).not.toMatch(/"type":\[/);
    }
  });

  it('withNullAsAnyOf keeps the type keywords in the branch and the annotations outside', () => {
    expect(
      withNullAsAnyOf({
        type: 'object',
        properties: { a: { type: ['number', 'null'], minimum: 0, description: 'A, USD.', default: null } },
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { description: 'A, USD.', default: null, anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] } },
    });
    expect(withNullAsAnyOf({ type: ['string', 'integer', 'null'], enum: ['x', 1, null] })).toEqual({
      anyOf: [{ type: 'string', enum: ['x', 1, null] }, { type: 'integer', enum: ['x', 1, null] }, { type: 'null' }],
    });
    expect(withNullAsAnyOf({ type: ['string', 'number'] })).toEqual({ type: ['string', 'number'] });
  });
});

describe('tool descriptions say their units', () => {
  it.each([...publicServer.definitions(CATALOG), ...fundServer.definitions(CATALOG)].map((t) => [t.name, t.description!] as const))(
    '%s',
    (_name, description) => {
      expect(description).toMatch(/USD|base currency/);
      expect(description).toMatch(/percent/);
    },
  );
});

describe('an unknown tool', () => {
  it('is named in the -32602 error when the name has the shape of a tool name', async () => {
    const { error } = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'calc_no_such_tool', arguments: {} } });
    expect(error).toEqual({ code: -32602, message: 'Unknown tool "calc_no_such_tool": tools/list names every tool of this server.' });
  });

  it.each([
    ['upper case', 'Calc_Fee'],
    ['a hyphen', 'calc-fee'],
    ['markup', 'calc_<script>'],
    ['65 characters', `c${'a'.repeat(64)}`],
    ['a newline', 'calc_fee\nInjected'],
  ])('is not named when it has %s', async (_label, name) => {
    const { error } = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name, arguments: {} } });
    expect(error).toEqual({ code: -32602, message: 'Unknown tool: tools/list names every tool of this server.' });
    expect(unknownToolMessage(name)).not.toContain(name);
  });
});

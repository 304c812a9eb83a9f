/**
 * Why the MCP servers keep their own HTTP framing (docs/mcp.md#why-the-http-framing-is-the-services-own): the
 * SDK transport's DNS-rebinding options (`enableDnsRebindingProtection` with `allowedHosts` and
 * `allowedOrigins`), which `@hono/mcp`'s transport copies, would break rules the service holds (lib/origin.ts,
 * lib/mcp/dispatch.ts). Each assertion is one reason, run against the pinned SDK, so an upgrade that removes
 * the reason fails here and asks for the decision to be made again; beside it, the service's own answer to the
 * same request.
 */
import { describe, expect, it } from 'vitest';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createApp } from '../../lib/service.ts';
import { fakeEnv } from '../support/fakes.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';

/** The SDK transport alone, with its DNS-rebinding protection on, answering one request. */
async function sdkAnswer(options: { allowedHosts?: string[]; allowedOrigins?: string[] }, headers: Record<string, string>) {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableDnsRebindingProtection: true,
    ...options,
  });
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  await server.connect(transport);
  const res = await transport.handleRequest(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...SPEC_MCP_HEADERS, ...headers },
      body: JSON.stringify(specInitialize()),
    }),
  );
  return { status: res.status, text: await res.text() };
}

/** The service's public MCP server answering the same request through the app. */
async function serviceAnswer(headers: Record<string, string>) {
  const res = await createApp().request(
    '/api/mcp/public',
    { method: 'POST', headers: { ...SPEC_MCP_HEADERS, ...headers }, body: JSON.stringify(specInitialize()) },
    fakeEnv().env,
  );
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe("the SDK transport's allowedHosts, against lib/origin.ts", () => {
  it('matches a Host with its port exactly, so it cannot say "any port on a loopback name" (npm run dev, port 0 in tests)', async () => {
    expect((await sdkAnswer({ allowedHosts: ['localhost'] }, { host: 'localhost:8787' })).status).toBe(403);
    expect((await serviceAnswer({ host: 'localhost:54321' })).status).toBe(200);
  });

  it('refuses a foreign Host with 403 and a JSON-RPC body quoting it; the service answers 421 problem+json that quotes nothing sent', async () => {
    const sdk = await sdkAnswer({ allowedHosts: ['localhost:8787'] }, { host: 'evil.example' });
    expect(sdk.status).toBe(403);
    expect(sdk.text).toContain('evil.example');
    const own = await serviceAnswer({ host: 'evil.example' });
    expect(own.status).toBe(421);
    expect(own.type).toContain('application/problem+json');
    expect(own.text).not.toContain('evil.example');
  });
});

describe("the SDK transport's allowedOrigins, against lib/origin.ts", () => {
  it('takes exact origins only: no "*", no loopback origin on any port', async () => {
    expect((await sdkAnswer({ allowedOrigins: ['*'] }, { host: 'localhost', origin: 'https://app.example' })).status).toBe(403);
    expect((await serviceAnswer({ host: 'localhost', origin: 'http://localhost:3000' })).status).toBe(200);
  });

  it('quotes the refused Origin back; the service answers 403 origin_not_allowed without it', async () => {
    const sdk = await sdkAnswer({ allowedOrigins: ['http://localhost:8787'] }, { host: 'localhost', origin: 'https://evil.example' });
    expect(sdk.text).toContain('https://evil.example');
    const own = await serviceAnswer({ host: 'localhost', origin: 'https://evil.example' });
    expect(own.status).toBe(403);
    expect(JSON.parse(own.text)).toMatchObject({ code: 'origin_not_allowed' });
    expect(own.text).not.toContain('evil.example');
  });
});

describe('the SDK transport alone, against lib/mcp/dispatch.ts', () => {
  it('refuses a client that accepts application/json only (406); the service answers it in JSON', async () => {
    expect((await sdkAnswer({}, { host: 'localhost', accept: 'application/json' })).status).toBe(406);
    expect((await serviceAnswer({ host: 'localhost', accept: 'application/json' })).status).toBe(200);
  });
});

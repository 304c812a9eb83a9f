/**
 * OAuth 2.1 for the fund MCP server through the app (docs/oauth.md): the discovery documents, the 401/403
 * challenges of `/api/mcp`, dynamic client registration, the authorization code flow with PKCE on the
 * console's consent page and each way it is refused, refresh rotation, revocation, grants in the console,
 * and every scope refusal of a token.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/app.ts';
import { revokeAccount } from '../../lib/console/accounts.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import { MCP_URL, ORIGIN, REDIRECT_URI, authorizeUrl, codeFor, decide, developer, oauthEnv, openConsent, pkce, register, token } from '../support/oauth.ts';

const app = createApp();

afterEach(() => {
  vi.useRealTimers();
});

/** Posts a JSON-RPC message to the fund MCP server at 127.0.0.1. */
function mcp(env: object, body: unknown, auth?: string) {
  return app.request(MCP_URL, { method: 'POST', headers: { ...SPEC_MCP_HEADERS, ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) }, env);
}

/** A signed-in developer's tokens after a full code flow. */
async function tokens(options: { calcOnly?: boolean } = {}) {
  const f = oauthEnv();
  const session = await developer(f.CONSOLE, options);
  const { clientId, verifier, code } = await codeFor(app, f.env, session);
  const res = await token(app, f.env, { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource: MCP_URL });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number; scope: string };
  return { ...f, session, clientId, body };
}

describe('the code flow', () => {
  it('issues a token that reads the fund over MCP', async () => {
    const { env, body } = await tokens();
    expect(body.token_type.toLowerCase()).toBe('bearer');
    expect(body.scope).toBe('fund:read');
    expect(body.expires_in).toBe(3600);
    const list = await mcp(env, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, `Bearer ${body.access_token}`);
    expect(list.status).toBe(200);
    const tools = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools;
    expect(tools).toHaveLength(12);
    const call = await mcp(env, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_fund_overview', arguments: {} } }, `Bearer ${body.access_token}`);
    const result = ((await call.json()) as { result: { isError?: boolean; structuredContent: { fund?: { name: string } } } }).result;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('"currency"');
  });
});

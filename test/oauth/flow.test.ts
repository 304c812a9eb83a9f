/**
 * OAuth 2.1 for the fund MCP server through the app (docs/oauth.md): the discovery documents, the 401/403
 * challenges of `/api/mcp`, dynamic client registration, the authorization code flow with PKCE on the
 * console's consent page and each way it is refused, refresh rotation, revocation, grants in the console,
 * and every scope refusal of a token.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { revokeAccount } from '../../lib/console/accounts.ts';
import { REFRESH_REUSE_DESCRIPTION } from '../../lib/oauth/routes.ts';
import { UNKNOWN_SCOPE_DESCRIPTION } from '../../lib/console/consent.tsx';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import {
  MCP_URL,
  ORIGIN,
  REDIRECT_URI,
  applicationsPage,
  authorizeUrl,
  codeFlowTokens,
  codeFor,
  decide,
  developer,
  exchangeCode,
  firstGrant,
  oauthEnv,
  openConsent,
  pkce,
  register,
  revokeInConsole,
  token,
} from '../support/oauth.ts';
import { FUND_TOOL_NAMES } from '../support/declared.ts';

const app = createApp();

afterEach(() => {
  vi.useRealTimers();
});

/** Posts a JSON-RPC message to the fund MCP server at 127.0.0.1. */
function mcp(env: object, body: unknown, auth?: string) {
  return app.request(
    MCP_URL,
    { method: 'POST', headers: { ...SPEC_MCP_HEADERS, ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) },
    env,
  );
}

describe('the code flow', () => {
  it('issues a token that reads the fund over MCP', async () => {
    const { env, body } = await codeFlowTokens(app);
    expect(body.token_type.toLowerCase()).toBe('bearer');
    expect(body.scope).toBe('fund:read');
    expect(body.expires_in).toBe(3600);
    const list = await mcp(env, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, `Bearer ${body.access_token}`);
    expect(list.status).toBe(200);
    const tools = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools;
    expect(tools).toHaveLength(FUND_TOOL_NAMES.length);
    const call = await mcp(
      env,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_fund_overview', arguments: {} } },
      `Bearer ${body.access_token}`,
    );
    const result = ((await call.json()) as { result: { isError?: boolean; structuredContent: { fund?: { name: string } } } }).result;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('"currency"');
  });
});

describe('discovery', () => {
  it('a 401 without a credential names the protected resource metadata, served at the resource path only', async () => {
    const { env } = oauthEnv();
    const res = await mcp(env, specInitialize());
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toBe(
      'Bearer realm="fund-data", resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/api/mcp", scope="fund:read"',
    );
    // No path-less copy (docs/oauth.md#roles-and-names): a client of the public server that looks there
    // would be sent to the fund server's authorization.
    const root = await app.request('http://127.0.0.1:8787/.well-known/oauth-protected-resource', {}, env);
    expect(root.status).toBe(404);
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp']) {
      const doc = await app.request(`http://127.0.0.1:8787${path}`, {}, env);
      expect(doc.status).toBe(200);
      expect(await doc.json()).toEqual({
        resource: MCP_URL,
        authorization_servers: ['http://localhost:8787'],
        scopes_supported: ['fund:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'fund-edge fund data (MCP)',
      });
    }
  });

  it('deployed, the documents name PUBLIC_ORIGIN and are cacheable', async () => {
    const { env } = oauthEnv({ PUBLIC_ORIGIN: 'https://fund.example.com' });
    const doc = await app.request('https://fund.example.com/.well-known/oauth-protected-resource/api/mcp', {}, env);
    expect(doc.headers.get('cache-control')).toBe('public, max-age=300');
    expect(((await doc.json()) as { resource: string }).resource).toBe('https://fund.example.com/api/mcp');
    const as = (await (await app.request('https://fund.example.com/.well-known/oauth-authorization-server', {}, env)).json()) as Record<
      string,
      unknown
    >;
    expect(as.issuer).toBe('https://fund.example.com');
    expect(as.authorization_endpoint).toBe('https://fund.example.com/developers/console/oauth/authorize');
  });

  it('serves RFC 8414 metadata: S256 only, DCR, refresh, revocation, the one scope', async () => {
    const { env } = oauthEnv();
    const res = await app.request(`${ORIGIN}/.well-known/oauth-authorization-server`, {}, env);
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toMatchObject({
      issuer: 'http://localhost:8787',
      authorization_endpoint: 'http://localhost:8787/developers/console/oauth/authorize',
      token_endpoint: 'http://localhost:8787/oauth/token',
      registration_endpoint: 'http://localhost:8787/oauth/register',
      revocation_endpoint: 'http://localhost:8787/oauth/token',
      scopes_supported: ['fund:read'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: false,
    });
    expect(m.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(m.protected_resources).toContain(MCP_URL);
  });

  it('refuses the discovery documents on a non-loopback host when local (421)', async () => {
    const { env } = oauthEnv();
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server', '/oauth/token']) {
      expect((await app.request(`http://evil.example${path}`, {}, env)).status).toBe(421);
    }
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client and refuses a remote http redirect URI', async () => {
    const { env } = oauthEnv();
    expect(await register(app, env)).toMatch(/\S{8,}/);
    const bad = await app.request(
      `${ORIGIN}/oauth/register`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://evil.example/cb'], token_endpoint_auth_method: 'none' }),
      },
      env,
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });
});

describe('refusals of the code flow', () => {
  async function approved() {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    return { ...f, session, ...(await codeFor(app, f.env, session)) };
  }

  it('redirects back with the code, the state and the issuer (RFC 9207)', async () => {
    const r = await approved();
    expect(r.res.status).toBe(302);
    expect(`${r.location.origin}${r.location.pathname}`).toBe(REDIRECT_URI);
    expect(r.location.searchParams.get('state')).toBe('state-123');
    expect(r.location.searchParams.get('iss')).toBe('http://localhost:8787');
  });

  it('refuses a wrong PKCE verifier', async () => {
    const r = await approved();
    const res = await exchangeCode(app, r.env, r, { code_verifier: (await pkce()).verifier });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses a reused code', async () => {
    const r = await approved();
    expect((await exchangeCode(app, r.env, r)).status).toBe(200);
    const again = await exchangeCode(app, r.env, r);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses an expired code (codes live 10 minutes)', async () => {
    const r = await approved();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    const res = await exchangeCode(app, r.env, r);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses another redirect URI at the token endpoint', async () => {
    const r = await approved();
    const res = await exchangeCode(app, r.env, r, { redirect_uri: 'http://127.0.0.1:9999/other' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('shows an unregistered redirect URI on the page and never redirects to it', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const clientId = await register(app, f.env);
    const res = await app.request(
      authorizeUrl(clientId, (await pkce()).challenge, { redirect_uri: 'http://127.0.0.1:9999/evil' }),
      { headers: { cookie: session.cookie } },
      f.env,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('refuses another resource at authorization and at the token endpoint', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const clientId = await register(app, f.env);
    const res = await app.request(
      authorizeUrl(clientId, (await pkce()).challenge, { resource: 'https://elsewhere.example/api/mcp' }),
      { headers: { cookie: session.cookie } },
      f.env,
    );
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    const r = await approved();
    const other = await exchangeCode(app, r.env, r, { resource: 'https://elsewhere.example/api/mcp' });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toBe('invalid_target');
  });

  it('a token for http://127.0.0.1:8787/api/mcp is refused at http://localhost:8787/api/mcp (RFC 8707 audience)', async () => {
    const { env, body } = await codeFlowTokens(app);
    const res = await app.request(
      `${ORIGIN}/api/mcp`,
      {
        method: 'POST',
        headers: { ...SPEC_MCP_HEADERS, authorization: `Bearer ${body.access_token}` },
        body: JSON.stringify(specInitialize()),
      },
      env,
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('denied consent redirects with access_denied and issues nothing', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const clientId = await register(app, f.env);
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const page = await openConsent(app, f.env, url, session);
    const res = await decide(app, f.env, url, session, page.handle!, page.binding, 'deny');
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('code')).toBeNull();
    expect([...f.OAUTH_KV.data.keys()].filter((k) => k.startsWith('grant:'))).toEqual([]);
  });

  it('the consent form works once, only with its binding cookie and the session CSRF token', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const clientId = await register(app, f.env);
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const page = await openConsent(app, f.env, url, session);
    expect((await decide(app, f.env, url, { ...session, csrf: 'forged' }, page.handle!, page.binding, 'approve')).status).toBe(403);
    expect((await decide(app, f.env, url, session, page.handle!, [], 'approve')).status).toBe(400);
    expect((await decide(app, f.env, url, session, page.handle!, page.binding, 'approve')).status).toBe(302);
    expect((await decide(app, f.env, url, session, page.handle!, page.binding, 'approve')).status).toBe(400);
  });
});

describe('the consent page', () => {
  it('shows the sign-in page without a session, and once signed in the client, redirect host and scope', async () => {
    const f = oauthEnv();
    const clientId = await register(app, f.env, { client_name: '<b>Evil</b> Client' });
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const anonymous = await (await app.request(url, {}, f.env)).text();
    expect(anonymous).toContain('data-action="login"');
    const session = await developer(f.CONSOLE);
    const page = await openConsent(app, f.env, url, session);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('&lt;b&gt;Evil&lt;/b&gt; Client');
    // With its port: another application on this computer listens on another one.
    expect(page.html).toContain('<strong id="redirect-host">127.0.0.1:9999</strong>');
    expect(page.html).toContain('read this fund&#39;s data');
    expect(page.html).toContain('value="approve"');
    expect(page.res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9999");
    expect(page.binding).toHaveLength(1);
  });

  it('refuses a scope the server does not grant: back to the client with invalid_scope, the state and the issuer (RFC 6749 §4.1.2.1)', async () => {
    const f = oauthEnv();
    const clientId = await register(app, f.env);
    const session = await developer(f.CONSOLE);
    for (const scope of ['calculators-only', 'fund:read fund:write', 'openid']) {
      const res = await app.request(
        authorizeUrl(clientId, (await pkce()).challenge, { scope }),
        { headers: { cookie: session.cookie } },
        f.env,
      );
      expect(res.status).toBe(302);
      const to = new URL(res.headers.get('location')!);
      expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
      expect(Object.fromEntries(to.searchParams)).toEqual({
        error: 'invalid_scope',
        error_description: UNKNOWN_SCOPE_DESCRIPTION,
        state: 'state-123',
        iss: ORIGIN,
      });
    }
  });

  it('shows what will be granted, fund:read, whether the request named it, named offline_access too, or named none', async () => {
    const f = oauthEnv();
    const clientId = await register(app, f.env);
    const session = await developer(f.CONSOLE);
    for (const scope of ['fund:read', 'fund:read offline_access', 'offline_access', null]) {
      const url = authorizeUrl(clientId, (await pkce()).challenge, { scope });
      const page = await openConsent(app, f.env, url, session);
      expect(page.res.status).toBe(200);
      const listed = /<ul id="scopes">(.*?)<\/ul>/s.exec(page.html)![1]!;
      expect(listed).toBe('<li>read this fund&#39;s data (read-only) of <code>sample-fund</code></li>');
      const approved = await decide(app, f.env, url, session, page.handle!, page.binding, 'approve');
      expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    }
  });

  it('refuses a consent form over its bounds before reading its fields (413, 400)', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const url = authorizeUrl(await register(app, f.env), (await pkce()).challenge);
    for (const [body, status] of [
      [`csrf=${session.csrf}&${'x='.repeat(40_000)}`, 413],
      [`csrf=${session.csrf}&${Array.from({ length: 40 }, (_, i) => `f${i}=1`).join('&')}`, 400],
    ] as const) {
      const res = await app.request(
        url,
        { method: 'POST', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN }, body },
        f.env,
      );
      expect(res.status).toBe(status);
    }
  });

  it('a calc-only account cannot approve: the page says why and Cancel sends access_denied', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE, { calcOnly: true });
    const clientId = await register(app, f.env);
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const page = await openConsent(app, f.env, url, session);
    expect(page.html).not.toContain('value="approve"');
    expect(page.html).toContain('no access to this fund');
    const res = await decide(app, f.env, url, session, page.handle!, page.binding, 'approve');
    const to = new URL(res.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('error_description')).toContain('no access to this fund');
  });
});

describe('refresh, revocation and grants', () => {
  it('rotates the refresh token: each new one works once', async () => {
    const { env, body, clientId } = await codeFlowTokens(app);
    const first = await token(app, env, {
      grant_type: 'refresh_token',
      refresh_token: body.refresh_token,
      client_id: clientId,
      resource: MCP_URL,
    });
    expect(first.status).toBe(200);
    const one = (await first.json()) as { access_token: string; refresh_token: string };
    expect(one.refresh_token).not.toBe(body.refresh_token);
    expect((await mcp(env, specInitialize(), `Bearer ${one.access_token}`)).status).toBe(200);
    const second = await token(app, env, { grant_type: 'refresh_token', refresh_token: one.refresh_token, client_id: clientId });
    expect(second.status).toBe(200);
    const two = (await second.json()) as { access_token: string; refresh_token: string };
    expect((await mcp(env, specInitialize(), `Bearer ${two.access_token}`)).status).toBe(200);
  });

  it('a refresh token used a second time revokes the grant: the newer refresh token and its access tokens stop (RFC 9700 §4.14.2)', async () => {
    const { env, body, clientId, session } = await codeFlowTokens(app);
    const refresh = (refreshToken: string) =>
      token(app, env, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    const rotated = await refresh(body.refresh_token);
    expect(rotated.status).toBe(200);
    const two = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect((await mcp(env, specInitialize(), `Bearer ${two.access_token}`)).status).toBe(200);
    // The library alone would accept the previous token again (to recover a lost response).
    const replay = await refresh(body.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ error: 'invalid_grant', error_description: REFRESH_REUSE_DESCRIPTION });
    expect((await refresh(two.refresh_token)).status).toBe(400);
    expect((await mcp(env, specInitialize(), `Bearer ${two.access_token}`)).status).toBe(401);
    expect((await mcp(env, specInitialize(), `Bearer ${body.access_token}`)).status).toBe(401);
    expect(await applicationsPage(app, env, session)).toContain('No application is authorized');
  });

  it('ten presentations of one refresh token at once: at most one is answered, and the grant ends revoked', async () => {
    const { env, body, clientId } = await codeFlowTokens(app);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        token(app, env, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId }),
      ),
    );
    const issued = answers.filter((r) => r.status === 200);
    expect(issued.length).toBeLessThanOrEqual(1);
    expect(answers.filter((r) => r.status === 400)).toHaveLength(10 - issued.length);
    for (const r of issued) {
      const t = (await r.json()) as { access_token: string; refresh_token: string };
      expect((await mcp(env, specInitialize(), `Bearer ${t.access_token}`)).status).toBe(401);
      expect((await token(app, env, { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: clientId })).status).toBe(
        400,
      );
    }
    expect((await mcp(env, specInitialize(), `Bearer ${body.access_token}`)).status).toBe(401);
  });

  it('two simultaneous refreshes with a made-up token of the grant revoke nothing (knowing a grant id is not enough)', async () => {
    const { env, body, clientId } = await codeFlowTokens(app);
    const [userId, grantId] = body.refresh_token.split(':');
    const forged = `${userId}:${grantId}:${'A'.repeat(32)}`;
    const answers = await Promise.all(
      [1, 2].map(() => token(app, env, { grant_type: 'refresh_token', refresh_token: forged, client_id: clientId })),
    );
    expect(answers.map((r) => r.status)).toEqual([400, 400]);
    expect((await token(app, env, { grant_type: 'refresh_token', refresh_token: forged, client_id: clientId })).status).toBe(400);
    const ok = await token(app, env, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId });
    expect(ok.status).toBe(200);
    expect((await mcp(env, specInitialize(), `Bearer ${body.access_token}`)).status).toBe(200);
  });

  it('a refresh the library refuses (another client) spends nothing: the token still works once', async () => {
    const { env, body, clientId } = await codeFlowTokens(app);
    const other = await register(app, env, { client_name: 'Other' });
    const refused = await token(app, env, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: other });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    const ok = await token(app, env, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId });
    expect(ok.status).toBe(200);
  });

  it('revokes an access token at the revocation endpoint (RFC 7009)', async () => {
    const { env, body, clientId } = await codeFlowTokens(app);
    const res = await token(app, env, { token: body.access_token, client_id: clientId });
    expect(res.status).toBe(200);
    expect((await mcp(env, specInitialize(), `Bearer ${body.access_token}`)).status).toBe(401);
  });

  it('lists the grant in the console and revokes it there; its tokens stop at once', async () => {
    const { env, body, session } = await codeFlowTokens(app);
    const page = await applicationsPage(app, env, session);
    expect(page).toContain('Test Client');
    expect(page).toContain('127.0.0.1:9999');
    const grant = firstGrant(page);
    const forged = await revokeInConsole(app, env, session, grant, 'x');
    expect(forged.status).toBe(403);
    expect((await mcp(env, specInitialize(), `Bearer ${body.access_token}`)).status).toBe(200);
    const res = await revokeInConsole(app, env, session, grant, session.csrf);
    expect(res.status).toBe(303);
    const refused = await mcp(env, specInitialize(), `Bearer ${body.access_token}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await applicationsPage(app, env, session)).toContain('No application is authorized');
  });
});

describe('scope refusals of /api/mcp', () => {
  it('a token of a revoked account is the same 401 as an unknown token', async () => {
    const { env, body, session, CONSOLE, API_KEYS } = await codeFlowTokens(app);
    await revokeAccount(CONSOLE, API_KEYS, session.account.accountId);
    const revoked = await mcp(env, specInitialize(), `Bearer ${body.access_token}`);
    const unknown = await mcp(env, specInitialize(), `Bearer ${body.access_token.replace(/.$/, (ch) => (ch === 'a' ? 'b' : 'a'))}`);
    for (const res of [revoked, unknown]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token", error_description="The access token is not valid here');
      expect(((await res.json()) as { detail: string }).detail).toMatch(/^The access token is not valid here/);
    }
  });

  it('a token of an account that lost the fund is 403 and says so, with no challenge (authorizing again cannot help)', async () => {
    const { env, body, session, CONSOLE } = await codeFlowTokens(app);
    const { saveAccount } = await import('../../lib/console/accounts.ts');
    await saveAccount(CONSOLE, { ...session.account, fundIds: [] });
    const res = await mcp(env, specInitialize(), `Bearer ${body.access_token}`);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(((await res.json()) as { detail: string }).detail).toContain('no access to this fund');
  });

  it('the demo key and a calc key are 403 without a challenge (no client turns them into an OAuth login); keys still work', async () => {
    const { env, API_KEYS } = oauthEnv();
    const { createKey, DEMO_API_KEY } = await import('../../lib/keys.ts');
    const demo = await mcp(env, specInitialize(), `Bearer ${DEMO_API_KEY}`);
    expect(demo.status).toBe(403);
    expect(((await demo.json()) as { detail: string }).detail).toContain('demo key');
    const calc = await mcp(env, specInitialize(), `Bearer ${(await createKey(API_KEYS, { fundId: null, scope: 'calc' })).key}`);
    expect(calc.status).toBe(403);
    expect(((await calc.json()) as { detail: string }).detail).toContain('calc key');
    for (const res of [demo, calc]) expect(res.headers.get('www-authenticate')).toBeNull();
    expect((await mcp(env, specInitialize(), `Bearer ${(await createKey(API_KEYS, { fundId: 'sample-fund' })).key}`)).status).toBe(200);
  });
});

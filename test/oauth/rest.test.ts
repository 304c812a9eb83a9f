/**
 * The service's OAuth access tokens on the REST fund-data endpoints (docs/oauth.md#reading-fund-data-over-rest):
 * a token with `fund:read` for this deployment reads `GET /api/v1/fund/*` as a fund key of its account does,
 * counts against the same burst limit, and stops with its grant (revocation endpoint or the console).
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { createKey } from '../../lib/keys.ts';
import { FakeBurst } from '../support/fakes.ts';
import { applicationsPage, codeFlowTokens, firstGrant, oauthEnv, revokeInConsole, token } from '../support/oauth.ts';
import { fundPath } from '../support/declared.ts';

const app = createApp();
const OVERVIEW = `http://127.0.0.1:8787${fundPath('get_fund_overview')}`;

function get(env: object, url: string, auth?: string) {
  return app.request(url, { headers: auth ? { authorization: auth } : {} }, env);
}

describe('an OAuth access token on the REST fund endpoints', () => {
  it('reads the fund overview (get_fund_overview) as a fund key of the same fund does, and stops when revoked (RFC 7009)', async () => {
    const {
      env,
      body: { access_token: accessToken },
      clientId,
      API_KEYS,
    } = await codeFlowTokens(app);
    const res = await get(env, OVERVIEW, `Bearer ${accessToken}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const { key } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const byKey = await get(env, OVERVIEW, `Bearer ${key}`);
    expect(await res.text()).toBe(await byKey.text());

    expect((await token(app, env, { token: accessToken, client_id: clientId })).status).toBe(200);
    const refused = await get(env, OVERVIEW, `Bearer ${accessToken}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await refused.json()) as { code: string; detail: string }).detail).toMatch(/^The access token is not valid here/);
  });

  it('stops when the account revokes the application in the console', async () => {
    const {
      env,
      body: { access_token: accessToken },
      session,
    } = await codeFlowTokens(app);
    expect((await get(env, OVERVIEW, `Bearer ${accessToken}`)).status).toBe(200);
    const grant = firstGrant(await applicationsPage(app, env, session));
    const revoked = await revokeInConsole(app, env, session, grant, session.csrf);
    expect(revoked.status).toBe(303);
    expect((await get(env, OVERVIEW, `Bearer ${accessToken}`)).status).toBe(401);
  });

  it('counts against the fund-data burst limit of its account and client, as a key counts', async () => {
    const fundBurst = new FakeBurst(1);
    const {
      env,
      body: { access_token: accessToken },
      session,
      clientId,
    } = await codeFlowTokens(app, { fundBurst });
    expect((await get(env, OVERVIEW, `Bearer ${accessToken}`)).status).toBe(200);
    expect([...fundBurst.counts.keys()]).toEqual([`key:oauth_${session.account.accountId}_${clientId}`]);
    const limited = await get(env, OVERVIEW, `Bearer ${accessToken}`);
    expect(limited.status).toBe(429);
  });

  it('refuses a token whose audience is another deployment (here: another loopback name)', async () => {
    const {
      env,
      body: { access_token: accessToken },
    } = await codeFlowTokens(app);
    const res = await get(env, OVERVIEW.replace('127.0.0.1', 'localhost'), `Bearer ${accessToken}`);
    expect(res.status).toBe(401);
  });

  it('refuses a token of an account without the fund with 403, and a token-shaped value that is no token with 401', async () => {
    const {
      env,
      body: { access_token: accessToken },
      session,
      CONSOLE,
    } = await codeFlowTokens(app);
    const { saveAccount } = await import('../../lib/console/accounts.ts');
    await saveAccount(CONSOLE, { ...session.account, fundIds: [] });
    expect((await get(env, OVERVIEW, `Bearer ${accessToken}`)).status).toBe(403);
    expect((await get(env, OVERVIEW, 'Bearer a:b:c')).status).toBe(401);
  });

  it('keeps the answers of requests without a token: 401 naming both credentials, a malformed key as before', async () => {
    const { env } = oauthEnv();
    const none = await get(env, OVERVIEW);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { detail: string }).detail).toContain('OAuth access token');
    const garbage = await get(env, OVERVIEW, 'Bearer not-a-key');
    expect(garbage.status).toBe(401);
    expect(((await garbage.json()) as { detail: string }).detail).toBe('The API key is malformed.');
  });
});

/**
 * Refresh-token reuse detection for a token the OAuth library no longer accepts (docs/oauth.md#refresh-tokens):
 * the library keeps a grant's current and previous refresh token only, so RT1 presented after RT1 → RT2 → RT3
 * is refused by the library as not matching its grant. It was spent in the grant's atomic record, though: it
 * is a reuse, and the grant is revoked. A made-up token of the grant is refused without revoking anything or
 * writing a record, and neither is a token of a grant that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { REFRESH_REUSE_DESCRIPTION } from '../../lib/oauth/routes.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';
import { MCP_URL, codeFlowTokens, token } from '../support/oauth.ts';

const app = createApp();

/** The status of an MCP `initialize` on the fund server with an access token. */
async function mcpStatus(env: object, accessToken: string): Promise<number> {
  const res = await app.request(
    MCP_URL,
    { method: 'POST', headers: { ...SPEC_MCP_HEADERS, authorization: `Bearer ${accessToken}` }, body: JSON.stringify(specInitialize()) },
    env,
  );
  return res.status;
}

/** A developer's first tokens, and a refresh of the same client. */
async function grant() {
  const { body: first, clientId, ...f } = await codeFlowTokens(app);
  const refresh = (refreshToken: string) =>
    token(app, f.env, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
  return { ...f, first, refresh };
}

describe('a refresh token rotated out twice', () => {
  it('presented again is a reuse: refused, and the grant revoked with its newest tokens', async () => {
    const { env, first, refresh } = await grant();
    const second = (await (await refresh(first.refresh_token)).json()) as { access_token: string; refresh_token: string };
    const third = (await (await refresh(second.refresh_token)).json()) as { access_token: string; refresh_token: string };
    expect(await mcpStatus(env, third.access_token)).toBe(200);
    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ error: 'invalid_grant', error_description: REFRESH_REUSE_DESCRIPTION });
    expect((await refresh(third.refresh_token)).status).toBe(400);
    expect(await mcpStatus(env, third.access_token)).toBe(401);
  });

  it('a made-up token of the grant revokes nothing and writes no record; nor does one of a grant that does not exist', async () => {
    const { env, first, refresh, ATOMIC } = await grant();
    const [userId, grantId] = first.refresh_token.split(':');
    const madeUp = await refresh(`${userId}:${grantId}:${'A'.repeat(32)}`);
    expect(madeUp.status).toBe(400);
    expect(((await madeUp.json()) as { error_description: string }).error_description).not.toBe(REFRESH_REUSE_DESCRIPTION);
    expect((await refresh(`${userId}:nosuchgrant:${'A'.repeat(32)}`)).status).toBe(400);
    const written = [...ATOMIC.records].filter(([name, r]) => name.startsWith('grant:') && r.data.size > 0);
    expect(written).toEqual([]);
    expect(await mcpStatus(env, first.access_token)).toBe(200);
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });
});

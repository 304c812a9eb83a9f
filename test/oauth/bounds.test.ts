/**
 * What reaches the OAuth library (lib/oauth/routes.ts, docs/oauth.md#bounds), through the app: the body and
 * field caps of the token endpoint and revocation, the bounds and daily cap of client registration, all
 * refused as problem+json before the library reads the body; the consent form's bounds; and the endpoints on
 * a `127.0.0.1` Host. The sizes (40,000 and 80,000 fields) in workerd: test/e2e/security.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/service.ts';
import {
  OAUTH_CLIENT_NAME_MAX_CHARS,
  OAUTH_MAX_BODY_BYTES,
  OAUTH_MAX_FORM_FIELDS,
  OAUTH_REDIRECT_URIS_MAX,
  OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY,
} from '../../lib/limits.ts';
import { formFieldCount } from '../../lib/body.ts';
import { expectProblem } from '../support/problems.ts';
import { ORIGIN, REDIRECT_URI, codeFor, developer, oauthEnv } from '../support/oauth.ts';

const app = createApp();

afterEach(() => vi.restoreAllMocks());

/** A form of `n` distinct fields (`f0=x&f1=x&…`). */
const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=x`).join('&');

function post(path: string, env: object, body: BodyInit, type: string, headers: Record<string, string> = {}) {
  return app.request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body }, env);
}

/** Spies on the library's entry point: nothing may reach it for a refused request. */
async function libraryCalls() {
  const { OAuthAuthorizationServer } = await import('@cloudflare/workers-oauth-provider');
  return vi.spyOn(OAuthAuthorizationServer.prototype, 'fetch');
}

describe('formFieldCount', () => {
  it('counts fields as URLSearchParams reads them', () => {
    for (const text of ['', 'a=1', 'a=1&b=2', '&&a=1&&', 'a&b&c', '=&=', fields(1000)]) {
      expect(formFieldCount(text)).toBe([...new URLSearchParams(text)].length);
    }
  });
});

describe('the token endpoint and revocation', () => {
  it.each([
    ['a form of 40,000 fields (too large)', fields(40_000), 413, 'payload_too_large'],
    ['a form of 80,000 fields (too large)', fields(80_000), 413, 'payload_too_large'],
    [`a form of ${OAUTH_MAX_FORM_FIELDS + 1} fields`, fields(OAUTH_MAX_FORM_FIELDS + 1), 400, 'invalid_request'],
    [
      'a form of 3,000 empty-valued fields within the byte cap',
      Array.from({ length: 3000 }, (_, i) => `${i}`).join('&'),
      400,
      'invalid_request',
    ],
  ])('%s is refused as problem+json before the library reads it', async (_, body, status, code) => {
    const f = oauthEnv();
    const calls = await libraryCalls();
    for (const declared of [true, false]) {
      const stream = new Response(body).body!;
      const res = await app.request(
        `${ORIGIN}/oauth/token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(declared ? { 'content-length': String(body.length) } : {}) },
          body: declared ? body : stream,
          duplex: 'half',
        } as RequestInit,
        f.env,
      );
      const { problem } = await expectProblem(res, status, code);
      expect(problem.detail).toMatch(
        status === 413 ? `at most ${OAUTH_MAX_BODY_BYTES / 1024} KiB` : `at most ${OAUTH_MAX_FORM_FIELDS} fields`,
      );
    }
    expect(calls).not.toHaveBeenCalled();
  });

  it(`a form of ${OAUTH_MAX_FORM_FIELDS} fields reaches the library, which answers in RFC 6749 terms`, async () => {
    const f = oauthEnv();
    const res = await post('/oauth/token', f.env, fields(OAUTH_MAX_FORM_FIELDS), 'application/x-www-form-urlencoded');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('a code exchange and a revocation within the bounds work as before', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const { clientId, verifier, code } = await codeFor(app, f.env, session);
    const exchanged = await post(
      '/oauth/token',
      f.env,
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
      }),
      'application/x-www-form-urlencoded',
    );
    expect(exchanged.status).toBe(200);
    const { access_token } = (await exchanged.json()) as { access_token: string };
    const revoked = await post(
      '/oauth/token',
      f.env,
      new URLSearchParams({ token: access_token, client_id: clientId }),
      'application/x-www-form-urlencoded',
    );
    expect(revoked.status).toBe(200);
  });
});

describe('dynamic client registration', () => {
  const valid = { redirect_uris: [REDIRECT_URI], client_name: 'Test Client', token_endpoint_auth_method: 'none' };

  it.each([
    ['a 900 KB client_name', { ...valid, client_name: 'n'.repeat(900_000) }, 413, 'payload_too_large', undefined],
    [
      '20,000 redirect URIs',
      { ...valid, redirect_uris: Array.from({ length: 20_000 }, (_, i) => `http://127.0.0.1/${i}`) },
      413,
      'payload_too_large',
      undefined,
    ],
    [
      `a client_name of ${OAUTH_CLIENT_NAME_MAX_CHARS + 1} characters`,
      { ...valid, client_name: 'n'.repeat(OAUTH_CLIENT_NAME_MAX_CHARS + 1) },
      400,
      'invalid_request',
      '/body/client_name',
    ],
    [
      `${OAUTH_REDIRECT_URIS_MAX + 1} redirect URIs`,
      { ...valid, redirect_uris: Array.from({ length: OAUTH_REDIRECT_URIS_MAX + 1 }, (_, i) => `http://127.0.0.1/${i}`) },
      400,
      'invalid_request',
      '/body/redirect_uris',
    ],
    [
      'a redirect URI of 2,001 characters',
      { ...valid, redirect_uris: [`http://127.0.0.1/${'p'.repeat(1984)}`] },
      400,
      'invalid_request',
      '/body/redirect_uris',
    ],
    [
      '40 members',
      { ...valid, ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`x${i}`, 1])) },
      400,
      'invalid_request',
      '/body',
    ],
    ['a JSON array', [valid], 400, 'malformed_json', undefined],
  ])('%s is refused as problem+json before the library reads it, and stores nothing', async (_, body, status, code, pointer) => {
    const f = oauthEnv();
    const calls = await libraryCalls();
    const res = await post('/oauth/register', f.env, JSON.stringify(body), 'application/json');
    const { problem } = await expectProblem(res, status, code);
    if (pointer) expect(problem.errors?.map((e) => e.pointer)).toEqual([pointer]);
    expect(calls).not.toHaveBeenCalled();
    expect(f.OAUTH_KV.data.size).toBe(0);
  });

  it('the same bounds whatever the Content-Type (the library parses any body as JSON)', async () => {
    const f = oauthEnv();
    const res = await post('/oauth/register', f.env, JSON.stringify({ ...valid, client_name: 'n'.repeat(201) }), 'text/plain');
    await expectProblem(res, 400, 'invalid_request');
  });

  it(`registers at most ${OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY} clients per client network and UTC day (429); refused registrations do not count`, async () => {
    const f = oauthEnv();
    const from = (ip: string, body: unknown = valid) =>
      post('/oauth/register', f.env, JSON.stringify(body), 'application/json', { 'cf-connecting-ip': ip });
    expect((await from('203.0.113.9', { redirect_uris: ['http://remote.example/cb'] })).status).toBe(400);
    const answers = await Promise.all(Array.from({ length: OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY + 5 }, () => from('203.0.113.9')));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    await expectProblem(refused[0]!, 429, 'rate_limited');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another network has its own count.
    expect((await from('203.0.113.10')).status).toBe(201);
  });
});

describe('on a 127.0.0.1 Host (npm run dev prints that address)', () => {
  it('the metadata and the token endpoint answer as on localhost: the issuer is http://localhost:<port>', async () => {
    const f = oauthEnv();
    const metadata = await app.request('http://127.0.0.1:8787/.well-known/oauth-authorization-server', {}, f.env);
    expect(metadata.status).toBe(200);
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe('http://localhost:8787');
    const res = await app.request(
      'http://127.0.0.1:8787/oauth/token',
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token' },
      f.env,
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    const registered = await app.request(
      'http://127.0.0.1:8787/oauth/register',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      },
      f.env,
    );
    expect(registered.status).toBe(201);
  });

  it("the library's bodiless refusals are problem+json", async () => {
    const f = oauthEnv();
    const res = await app.request('http://127.0.0.1:8787/.well-known/oauth-authorization-server', { method: 'POST', body: '' }, f.env);
    const { problem } = await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(problem.detail).toBe('This path accepts GET, HEAD.');
  });
});

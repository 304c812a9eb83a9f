/**
 * Client ID Metadata Documents through the app (docs/oauth.md#client-id-metadata-documents): a client
 * identified by the https URL of its document completes the code flow with no registration and reads the
 * fund; the consent page shows the document's name and host; a document too large, too slow, on an address
 * that is not public, or without the redirect URI is refused; dynamic registration still works beside it.
 *
 * How a test serves the document: the Worker's `fetch` is replaced by one that answers the document's public
 * URL (`https://client.example/...`), as the internet would, and counts what it was asked; `Cloudflare`'s
 * compatibility flags say `global_fetch_strictly_public`, as the Worker's do (wrangler.toml), without which
 * the library refuses metadata documents. Deployed, the runtime enforces the flag; the private-address cases
 * here are refused by lib/oauth/cimd.ts before any fetch, which the fetch count shows. The library's fetch is
 * sent with `redirect: 'manual'` (lib/oauth/cimd.ts `guardMetadataFetch`), and the Worker's other requests
 * pass unchanged. The same flow, the revocation and the refusals of redirects run in workerd in
 * test/e2e/oauth-cimd.test.ts; this file keeps what needs Node: the 10 s bound on fake timers, every address
 * that is not public at both endpoints, and a document naming another client id.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { guardMetadataFetch } from '../../lib/oauth/cimd.ts';
import { fundPath } from '../support/declared.ts';
import {
  ORIGIN,
  REDIRECT_URI,
  authorizeUrl,
  clientMetadataDocument,
  decide,
  developer,
  exchangeCode,
  oauthEnv,
  openConsent,
  pkce,
  token,
} from '../support/oauth.ts';

const app = createApp();
const CLIENT_ID = 'https://client.example/oauth/client-metadata.json';
const OVERVIEW = `http://127.0.0.1:8787${fundPath('get_fund_overview')}`;

/** The document a conforming client publishes at its client id. */
const document = (overrides: Record<string, unknown> = {}) => clientMetadataDocument(CLIENT_ID, overrides);

/** What the replaced fetch answers, and the URLs it was asked for. */
let serve: (url: string, init: RequestInit | undefined) => Promise<Response>;
let fetched: string[];
/** How each of them was asked for: its `redirect` mode. */
let redirects: (RequestInit['redirect'] | undefined)[];
const realFetch = globalThis.fetch;

beforeEach(() => {
  fetched = [];
  redirects = [];
  serve = async () => Response.json(document());
  vi.stubGlobal('Cloudflare', { compatibilityFlags: { global_fetch_strictly_public: true } });
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    fetched.push(url);
    redirects.push(init?.redirect);
    return serve(url, init);
  }) as typeof fetch;
});

afterEach(() => {
  globalThis.fetch = realFetch;
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** The authorization URL of the metadata client (S256 challenge), and its verifier. */
async function authorization(clientId = CLIENT_ID, params: Record<string, string> = {}) {
  const { verifier, challenge } = await pkce();
  return { url: authorizeUrl(clientId, challenge, params), verifier };
}

describe('a client identified by its metadata document', () => {
  it('completes OAuth with no registration, the consent page showing the name and host from the document, and reads the fund', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const { url, verifier } = await authorization();
    const page = await openConsent(app, f.env, url, session);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('<span id="client-name">Metadata Client</span>');
    expect(page.html).toContain('<strong id="client-domain">client.example</strong>');
    // Fetched from its URL only (once per lookup: Node has no Cache API, where workerd keeps it).
    expect(new Set(fetched)).toEqual(new Set([CLIENT_ID]));
    // Never following a redirect (lib/oauth/cimd.ts).
    expect(new Set(redirects)).toEqual(new Set(['manual']));
    const approved = await decide(app, f.env, url, session, page.handle!, page.binding, 'approve');
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const res = await exchangeCode(app, f.env, { clientId: CLIENT_ID, verifier, code });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as { access_token: string };
    expect((await app.request(OVERVIEW, { headers: { authorization: `Bearer ${access_token}` } }, f.env)).status).toBe(200);
    // Nothing was registered: the library stores no client record for a metadata document's client.
    expect([...f.OAUTH_KV.data.keys()].filter((k) => k.startsWith('client:'))).toEqual([]);
  });

  it('refuses a document over 5 KiB, read or declared', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const large = JSON.stringify(document({ client_name: 'x'.repeat(200), software_statement: 'y'.repeat(6000) }));
    for (const answer of [
      () => new Response(large, { headers: { 'content-type': 'application/json' } }),
      () => new Response(new Blob([large]).stream(), { headers: { 'content-type': 'application/json' } }),
    ]) {
      serve = async () => answer();
      const { url } = await authorization();
      const page = await openConsent(app, f.env, url, session);
      expect(page.res.status).toBe(400);
      expect(page.html).toContain('at most 5 KiB');
      expect(page.handle).toBeUndefined();
    }
  });

  it('refuses a document that takes longer than 10 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    let asked!: () => void;
    const started = new Promise<void>((resolve) => {
      asked = resolve;
    });
    serve = (_url, init) => {
      asked();
      return new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError'))));
    };
    const { url } = await authorization();
    const opened = openConsent(app, f.env, url, session);
    await started;
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void opened.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const page = await opened;
    expect(page.res.status).toBe(400);
    expect(page.handle).toBeUndefined();
  });

  it.each([
    'https://10.0.0.5/client.json',
    'https://127.0.0.1/client.json',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/client.json',
    'https://[fd00::1]/client.json',
    'https://localhost/client.json',
    'https://metadata.internal/client.json',
    'https://intranet/client.json',
  ])('refuses %s, an address that is not public, without fetching it (authorization and token endpoint)', async (clientId) => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    serve = async () => Response.json(document({ client_id: clientId }));
    const { url } = await authorization(clientId);
    const page = await openConsent(app, f.env, url, session);
    expect(page.res.status).toBe(400);
    expect(page.html).toContain('not public');
    expect(page.html).not.toContain(clientId);
    const res = await token(app, f.env, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: 'v',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    expect(fetched).toEqual([]);
  });

  it('refuses a redirect URI the document does not list, on the page, never redirecting to it', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    const { url } = await authorization(CLIENT_ID, { redirect_uri: 'http://127.0.0.1:9999/elsewhere' });
    const page = await openConsent(app, f.env, url, session);
    expect(page.res.status).toBe(400);
    expect(page.res.headers.get('location')).toBeNull();
    expect(page.handle).toBeUndefined();
  });

  it('refuses a document whose client_id is not its own URL', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    serve = async () => Response.json(document({ client_id: 'https://other.example/oauth/client-metadata.json' }));
    const page = await openConsent(app, f.env, (await authorization()).url, session);
    expect(page.res.status).toBe(400);
  });

  it('a redirect of the document is refused without asking for its Location; the other requests pass unchanged', async () => {
    const f = oauthEnv();
    const session = await developer(f.CONSOLE);
    serve = async (url) =>
      url === CLIENT_ID
        ? new Response(null, { status: 307, headers: { location: 'https://other.example/c.json' } })
        : Response.json(document());
    const page = await openConsent(app, f.env, (await authorization()).url, session);
    expect(page.res.status).toBe(400);
    expect(page.html).not.toContain('other.example');
    expect(fetched).toEqual([CLIENT_ID]);
    // A request that is not the library's: the same input and init reach the fetch beneath.
    guardMetadataFetch();
    const init = { method: 'POST', headers: { 'user-agent': 'other/1.0' }, body: 'q' };
    await fetch('https://db.example/sql', init);
    expect(fetched.at(-1)).toBe('https://db.example/sql');
    expect(redirects.at(-1)).toBeUndefined();
  });

  it('the authorization server says it supports metadata documents, and dynamic registration stays', async () => {
    const { env } = oauthEnv();
    const m = (await (await app.request(`${ORIGIN}/.well-known/oauth-authorization-server`, {}, env)).json()) as Record<string, unknown>;
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.registration_endpoint).toBe(`${ORIGIN}/oauth/register`);
  });
});

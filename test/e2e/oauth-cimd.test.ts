/**
 * Client ID Metadata Documents in workerd, as deployed (docs/oauth.md#client-id-metadata-documents), with
 * wrangler.toml's `global_fetch_strictly_public` flag: the library offers them in its metadata; a client
 * identified by the URL of its document completes the code flow with no registration, reads the fund over
 * REST, and its token stops working once the account revokes the application in the console; a document
 * over 5 KiB (declared or streamed; 5 KiB itself is used), one answered after the library's 10 s, one without the request's
 * redirect URI, and one whose URL answers with a redirect (to a private address, or to another public host:
 * lib/oauth/cimd.ts `guardMetadataFetch`) are refused with a 400 page that quotes no URL, never a redirect
 * to the client or a 500; so are an address that is not public and a host that cannot be reached.
 *
 * How the test serves the documents: the Worker's outbound `fetch` is answered by this process
 * (test/support/worker.ts `outbound`), so the Worker asks for the public URL (`https://client.example.com/…`)
 * and the test answers it as the internet would, recording every URL asked for, each redirect hop apart.
 * A URL it has no answer for fails as an unreachable host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { fundPath } from '../support/declared.ts';
import { operatorInvite } from '../support/browser.ts';
import { clientMetadataDocument, exchangeCodeAt, pkce, REDIRECT_URI } from '../support/oauth.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-cimd-'));
const CLIENT_ID = 'https://client.example.com/oauth/client.json';
let worker: TestWorker;
/** The console's origin: `localhost` on the Worker's port (passkeys refuse an IP address). */
let origin: string;
/** A signed-up account with the served fund. */
let developer: ConsoleClient;

/** What this process answers the Worker's outbound requests with, by URL; and every URL it was asked for. */
const served = new Map<string, (request: Request) => Response | Promise<Response>>();
const asked: string[] = [];

beforeAll(async () => {
  const invitation = (await operatorInvite(['--fund', 'sample-fund'], 'http://localhost', persistDir)).split('#')[1]!;
  worker = await startWorker(persistDir, {}, 'none', {
    outbound: (request) => {
      asked.push(request.url);
      const answer = served.get(request.url);
      if (!answer) throw new Error('no such host');
      return answer(request);
    },
  });
  origin = worker.base.replace('127.0.0.1', 'localhost');
  developer = new ConsoleClient(origin, '198.51.100.7');
  expect((await developer.signUp(invitation)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

beforeEach(() => {
  served.clear();
  asked.length = 0;
});

/** The authorization request path of a client identified by `clientId`, and its PKCE verifier. */
async function authorization(clientId: string, redirectUri = REDIRECT_URI): Promise<{ path: string; verifier: string }> {
  const { verifier, challenge } = await pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'fund:read',
    resource: `${worker.base}/api/mcp`,
    state: 's',
  });
  return { path: `/developers/console/oauth/authorize?${query}`, verifier };
}

/** The fund overview over REST with an access token: its status. */
async function overviewStatus(accessToken: string): Promise<number> {
  const res = await fetch(`${worker.base}${fundPath('get_fund_overview')}`, { headers: { authorization: `Bearer ${accessToken}` } });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Opens the authorization page of `clientId`, signed in, and checks it is the refusal page: a 400 that sends
 * nowhere, offers no consent form and quotes none of `unquoted`.
 * @returns the page's HTML
 */
async function refused(clientId: string, unquoted: string[], redirectUri = REDIRECT_URI): Promise<string> {
  const res = await developer.request((await authorization(clientId, redirectUri)).path);
  const html = await res.text();
  expect(res.status, html).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(html).not.toContain('name="handle"');
  for (const text of [clientId, ...unquoted]) {
    expect(html).not.toContain(text);
    expect(html).not.toContain(encodeURIComponent(text));
  }
  return html;
}

describe('client ID metadata documents in workerd', () => {
  it('are offered in the authorization server metadata, dynamic registration beside them', async () => {
    const m = (await (await fetch(`${worker.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.registration_endpoint).toMatch(/\/oauth\/register$/);
  });

  it('a client identified by its document completes OAuth with no registration, reads the fund, and stops once revoked', async () => {
    served.set(CLIENT_ID, () => Response.json(clientMetadataDocument(CLIENT_ID)));
    const { path, verifier } = await authorization(CLIENT_ID);
    const page = await developer.request(path);
    const html = await page.text();
    expect(page.status, html).toBe(200);
    expect(html).toContain('<span id="client-name">Metadata Client</span>');
    expect(html).toContain('<strong id="client-domain">client.example.com</strong>');
    const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
    expect(handle).toBeTruthy();
    const decided = await developer.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ handle: handle!, csrf: developer.csrf, decision: 'approve' }),
    });
    expect(decided.status).toBe(302);
    const location = new URL(decided.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    const code = location.searchParams.get('code')!;
    // The client id is the document's URL, never registered: the token endpoint resolves it from the document.
    const exchanged = await exchangeCodeAt(worker.base, { clientId: CLIENT_ID, code, verifier });
    expect(exchanged.status, await exchanged.clone().text()).toBe(200);
    const { access_token } = (await exchanged.json()) as { access_token: string };
    expect(await overviewStatus(access_token)).toBe(200);
    // Only the document's own URL was fetched (for the page, the approval and the exchange).
    expect(new Set(asked)).toEqual(new Set([CLIENT_ID]));

    const applications = await (await developer.request('/developers/console/oauth/applications')).text();
    expect(applications).toContain('Metadata Client');
    const grant = /name="grant" value="([^"]+)"/.exec(applications)?.[1];
    expect(grant).toBeTruthy();
    const revoked = await developer.request('/developers/console/oauth/applications/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ grant: grant!, csrf: developer.csrf }),
    });
    expect(revoked.status).toBe(303);
    expect(await overviewStatus(access_token)).toBe(401);
  });

  it('a client id on a private address is refused with a 400 page that does not quote it, nothing fetched', async () => {
    const html = await refused('https://10.1.2.3/client.json', []);
    expect(html).toContain('not public');
    expect(asked).toEqual([]);
  });

  it('a document the Worker cannot fetch is a 400 page, not a redirect or a 500', async () => {
    const html = await refused('https://client.invalid/oauth/client-metadata.json', []);
    expect(html).toContain('metadata document');
  });

  it('a document over 5 KiB (5,121 bytes) is refused, its size declared or streamed; one of 5,120 bytes is used', async () => {
    /** The document of `clientId` padded to exactly `bytes` bytes (an extension member, which the library ignores). */
    const padded = (clientId: string, bytes: number) => {
      const bare = JSON.stringify(clientMetadataDocument(clientId, { x_padding: '' }));
      return JSON.stringify(clientMetadataDocument(clientId, { x_padding: 'y'.repeat(bytes - bare.length) }));
    };
    const declared = 'https://client.example.com/oauth/declared.json';
    const streamed = 'https://client.example.com/oauth/streamed.json';
    const fits = 'https://client.example.com/oauth/fits.json';
    const json = { 'content-type': 'application/json' };
    const over = padded(declared, 5_121);
    expect(new TextEncoder().encode(over).length).toBe(5_121);
    served.set(declared, () => new Response(over, { headers: { ...json, 'content-length': String(over.length) } }));
    // Without Content-Length: sent chunked, counted while read.
    served.set(streamed, () => new Response(new Blob([padded(streamed, 5_121)]).stream(), { headers: json }));
    served.set(fits, () => new Response(new Blob([padded(fits, 5_120)]).stream(), { headers: json }));
    for (const clientId of [declared, streamed]) {
      expect(await refused(clientId, [])).toContain('at most 5 KiB');
      expect(asked).toContain(clientId);
    }
    const page = await developer.request((await authorization(fits)).path);
    expect(page.status, await page.text()).toBe(200);
  });

  it('a document answered after 10 s is refused once the 10 s have passed', async () => {
    const clientId = 'https://client.example.com/oauth/slow.json';
    // Answered 12 s after it was asked for (the library gives up at 10 s), or when the Worker hangs up.
    served.set(clientId, (request) => {
      return new Promise<Response>((resolve) => {
        const timer = setTimeout(() => resolve(Response.json(clientMetadataDocument(clientId))), 12_000);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(Response.json(clientMetadataDocument(clientId)));
        });
      });
    });
    const started = performance.now();
    await refused(clientId, []);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(9_900);
    expect(elapsed).toBeLessThan(12_000);
  }, 30_000);

  it('a redirect URI the document does not list is refused on the page, never redirected to', async () => {
    served.set(CLIENT_ID, () => Response.json(clientMetadataDocument(CLIENT_ID)));
    const elsewhere = 'http://127.0.0.1:9999/elsewhere';
    await refused(CLIENT_ID, [elsewhere], elsewhere);
    expect(asked).toContain(CLIENT_ID);
  });

  it.each([
    ['a private address', 'https://client.example.com/oauth/moved-inside.json', 'https://10.0.0.5/oauth/client.json'],
    ['another public host', 'https://client.example.com/oauth/moved-away.json', 'https://cdn.example.net/oauth/client.json'],
  ])('a document URL answering with a redirect to %s is refused, the redirect never followed', async (_, clientId, target) => {
    // The redirect's target serves a valid document of the client id: only the redirect itself is wrong.
    served.set(clientId, () => new Response(null, { status: 302, headers: { location: target } }));
    served.set(target, () => Response.json(clientMetadataDocument(clientId)));
    const html = await refused(clientId, [target]);
    expect(html).toContain('metadata document');
    // The token endpoint refuses the client too (the library's 401 for a client it cannot resolve).
    const res = await exchangeCodeAt(worker.base, { clientId, code: 'x', verifier: 'v' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    expect(asked).toContain(clientId);
    expect(asked).not.toContain(target);
  });
});

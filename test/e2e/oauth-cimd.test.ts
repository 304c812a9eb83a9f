/**
 * Client ID Metadata Documents in workerd, as deployed (docs/oauth.md#client-id-metadata-documents): with
 * wrangler.toml's `global_fetch_strictly_public` flag the library offers them in its metadata; a client id on
 * an address that is not public is refused before anything is fetched; one the Worker cannot fetch (this
 * test machine has no route to the internet) is a 400 page, never a 500 and never a redirect. The code flow
 * with a served document is in test/oauth/cimd.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-cimd-'));
let worker: TestWorker;

beforeAll(async () => {
  worker = await startWorker(persistDir);
});

afterAll(async () => {
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** An authorization request of a client identified by `clientId` (S256 challenge of a fixed verifier). */
function authorize(clientId: string): string {
  const url = new URL(`${worker.base.replace('127.0.0.1', 'localhost')}/developers/console/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9999/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    scope: 'fund:read',
    resource: `${worker.base}/api/mcp`,
    state: 's',
  }).toString();
  return url.toString();
}

describe('client ID metadata documents in workerd', () => {
  it('are offered in the authorization server metadata, dynamic registration beside them', async () => {
    const m = (await (await fetch(`${worker.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(m.client_id_metadata_document_supported).toBe(true);
    expect(m.registration_endpoint).toMatch(/\/oauth\/register$/);
  });

  it('a client id on a private address is refused with a 400 page that does not quote it', async () => {
    const res = await fetch(authorize('https://10.1.2.3/client.json'), { redirect: 'manual' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('not public');
    expect(html).not.toContain('10.1.2.3');
  });

  it('a document the Worker cannot fetch is a 400 page, not a redirect or a 500', async () => {
    const res = await fetch(authorize('https://client.invalid/oauth/client-metadata.json'), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('metadata document');
  });
});

/**
 * The MCP registry's `server.json` of each server (lib/mcp/server-json.ts), held to the registry's own JSON
 * Schema (test/fixtures/mcp-registry/, the 2025-12-11 release, validated with Ajv): the committed documents
 * are what `npm run build` writes from the declarations (scripts/server-json.ts), the served ones validate for
 * any origin, served with the committed origin they are the committed text, and the schema refuses what the
 * registry refuses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  COMMITTED_PATHS,
  EXAMPLE_ORIGIN,
  REGISTRY_PATHS,
  registryNamespace,
  SERVER_JSON_SCHEMA,
  serverJson,
  serverJsonAt,
} from '../../lib/mcp/server-json.ts';
import { mcpServerPaths } from '../../lib/mcp/endpoint.ts';
import { SERVER_VERSION } from '../../lib/mcp/tools.ts';
import { ROUTES } from '../../lib/registry.ts';
import { createApp } from '../../lib/service.ts';
import { committedServerJson, registryOrigin } from '../../scripts/server-json.ts';
import { fakeEnv } from '../support/fakes.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA_FILE = join(ROOT, 'test/fixtures/mcp-registry/server.schema.2025-12-11.json');
const SERVERS = ['public', 'fund'] as const;

// ajv-formats is CommonJS: its default export arrives as the module object under Node's ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
// A keyword Ajv does not know is an error (save the schema's documentation-only `example`); Ajv's lints of
// how a schema is written (a `required` member under `anyOf` not declared beside it, say) are not the
// document's business.
const ajv = new Ajv({ allErrors: true, strictSchema: true, strictRequired: false, strictTypes: false, strictTuples: false });
ajv.addKeyword('example');
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema's complaints about a document, as `path message` lines (none: valid). */
function problems(document: unknown): string[] {
  return validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

describe('the vendored schema', () => {
  it('is the release the documents name', () => {
    expect(schema.$id).toBe(SERVER_JSON_SCHEMA);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('refuses what the registry refuses', () => {
    const doc = serverJsonAt('fund', EXAMPLE_ORIGIN, ROUTES);
    expect(problems({ ...doc, name: 'no-slash' })).toEqual(['/name must match pattern "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"']);
    expect(problems({ ...doc, description: 'x'.repeat(101) })).toEqual(['/description must NOT have more than 100 characters']);
    expect(problems({ ...doc, version: undefined })).toEqual(["/ must have required property 'version'"]);
    expect(problems({ ...doc, websiteUrl: 'not a url' })).toEqual(['/websiteUrl must match format "uri"']);
    expect(problems({ ...doc, remotes: [{ type: 'stdio', url: 'https://x.example/mcp' }] })).toContain(
      '/remotes/0/type must be equal to one of the allowed values',
    );
    expect(problems({ ...doc, remotes: [{ type: 'streamable-http', headers: [{ value: 'x' }] }] })).toEqual(
      expect.arrayContaining(["/remotes/0 must have required property 'url'", "/remotes/0/headers/0 must have required property 'name'"]),
    );
  });
});

describe('the committed server.json files', () => {
  const { origin } = registryOrigin();

  it.each(SERVERS)('of the %s server are what npm run build writes from the declarations', (server) => {
    const expected = committedServerJson(origin).find((d) => d.path === COMMITTED_PATHS[server])!;
    expect(readFileSync(join(ROOT, COMMITTED_PATHS[server]), 'utf8')).toBe(expected.text);
  });

  it.each(SERVERS)('of the %s server validate against the schema', (server) => {
    expect(problems(JSON.parse(readFileSync(join(ROOT, COMMITTED_PATHS[server]), 'utf8')))).toEqual([]);
  });

  it('put the calculators at the root, where mcp-publisher looks by default', () => {
    expect(COMMITTED_PATHS.public).toBe('server.json');
    const root = JSON.parse(readFileSync(join(ROOT, 'server.json'), 'utf8')) as { name: string };
    expect(root.name.endsWith('/calculators')).toBe(true);
  });

  it.each([
    ['https://funds.acme.example', 'https://funds.acme.example', 'example.acme.funds/fund-data'],
    ['', EXAMPLE_ORIGIN, 'com.example.fund-edge/fund-data'],
    ['http://127.0.0.1:8787', EXAMPLE_ORIGIN, 'com.example.fund-edge/fund-data'],
  ])("name wrangler.toml's PUBLIC_ORIGIN when a deployment could use it (%j), else the example origin", (configured, origin, name) => {
    const dir = mkdtempSync(join(tmpdir(), 'fund-edge-server-json-'));
    try {
      writeFileSync(join(dir, 'wrangler.toml'), `name = "fund-edge"\n\n[vars]\nPUBLIC_ORIGIN = "${configured}"\n`);
      expect(registryOrigin(dir)).toEqual({ origin, configured: origin === configured });
      const fund = JSON.parse(committedServerJson(origin).find((d) => d.path === COMMITTED_PATHS.fund)!.text) as Record<string, unknown>;
      expect(fund.name).toBe(name);
      expect(problems(fund)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the served server.json documents', () => {
  const app = createApp();

  it.each(SERVERS)("of the %s server validate, each naming this deployment's URL and the servers' version", async (server) => {
    const paths = mcpServerPaths(ROUTES);
    for (const origin of ['https://fund-edge.example', 'http://127.0.0.1:8787', 'http://[::1]:8787']) {
      const res = await app.request(`${origin}${REGISTRY_PATHS[server]}`, {}, fakeEnv().env);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { version: string; remotes: { url: string }[] };
      expect(problems(doc), origin).toEqual([]);
      expect(doc.version).toBe(SERVER_VERSION);
      expect(doc.remotes.map((r) => r.url)).toEqual([`${origin}${paths[server]}`]);
    }
  });

  it.each(SERVERS)('of the %s server, with PUBLIC_ORIGIN the committed origin, are the committed text', async (server) => {
    const { origin } = registryOrigin();
    const res = await app.request(`${origin}${REGISTRY_PATHS[server]}`, {}, fakeEnv({ PUBLIC_ORIGIN: origin }).env);
    expect(await res.text()).toBe(readFileSync(join(ROOT, COMMITTED_PATHS[server]), 'utf8'));
  });
});

describe('serverJson', () => {
  it('gives an exact version (the registry refuses a range) and the schema it follows', () => {
    for (const server of SERVERS) {
      const doc = serverJson(server, EXAMPLE_ORIGIN, { public: `${EXAMPLE_ORIGIN}/p`, fund: `${EXAMPLE_ORIGIN}/f` }, `${EXAMPLE_ORIGIN}/c`);
      expect(doc.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(doc.$schema).toBe(SERVER_JSON_SCHEMA);
    }
  });

  it('takes its namespace from the host, reversed, with characters the registry refuses replaced', () => {
    expect(registryNamespace('https://fund-edge.example.com')).toBe('com.example.fund-edge');
    expect(registryNamespace('http://127.0.0.1:8787')).toBe('1.0.0.127');
    expect(registryNamespace('http://[::1]:8787')).toBe('--1');
  });
});

/**
 * The MCP SDK is pinned because `lib/mcp/sdk-adapter.ts` and `lib/mcp/dispatch.ts` lean on its internals. This suite fails loudly when an
 * upgrade changes any of them, naming what to re-check:
 * - the exact installed version equals the exact version in package.json (no range);
 * - the `send` wrapper: the transport's `send(message, options)` is a prototype method the wrapper can shadow
 *   per instance (that every error then goes through it is proven in `jsonrpc.test.ts` and `tools.test.ts`, where no SDK or zod
 *   text reaches a client);
 * - `ParamsCheckingServer`: the SDK's `Server` and `Protocol` constructors register their handlers
 *   (`initialize`, `ping`) through `this.setRequestHandler`, so that a subclass override sees them;
 * - the Ajv alias (wrangler.toml `[alias]` → `lib/mcp/ajv-unused.ts`): in a bundle built with those aliases,
 *   as wrangler builds the Worker, the only importer of `ajv`/`ajv-formats` is the SDK's Ajv provider, and
 *   serving both MCP servers never constructs the stand-in (it throws when called).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import ajvUnavailable from '../../lib/mcp/ajv-unused.ts';
import { wranglerAliases } from '../../bench/size.ts';
import { createKey } from '../../lib/keys.ts';
import { fakeEnv } from '../support/fakes.ts';
import { SPEC_MCP_HEADERS, specInitialize } from '../support/contract.ts';

const ROOT = process.cwd();
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, unknown>;

/** The SDK version lib/mcp/sdk-adapter.ts and dispatch.ts were written against. Upgrading: re-check every item of this file. */
const PINNED = '1.32.2';

describe('the pinned MCP SDK', () => {
  it('is declared with an exact version and installed at that version', () => {
    const declared = (readJson('package.json').dependencies as Record<string, string>)['@modelcontextprotocol/sdk'];
    expect(declared).toBe(PINNED);
    expect(readJson('node_modules/@modelcontextprotocol/sdk/package.json').version).toBe(PINNED);
    const lock = readJson('package-lock.json').packages as Record<string, { version: string }>;
    expect(lock['node_modules/@modelcontextprotocol/sdk']!.version).toBe(PINNED);
  });

  it('keeps send(message, options) a prototype method that an instance property shadows', async () => {
    const proto = WebStandardStreamableHTTPServerTransport.prototype;
    expect(typeof proto.send).toBe('function');
    expect(proto.send.length).toBe(2);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    expect(Object.hasOwn(transport, 'send')).toBe(false);
    await transport.close();
  });

  it("registers the constructors' own handlers through the overridable setRequestHandler", () => {
    const seen: string[] = [];
    class Recording extends Server {
      override setRequestHandler(...args: Parameters<Server['setRequestHandler']>): void {
        seen.push((args[0] as unknown as { shape: { method: { value: string } } }).shape.method.value);
        super.setRequestHandler(...args);
      }
    }
    const refuse = { getValidator: () => () => ({ valid: false as const, data: undefined, errorMessage: 'none' }) };
    new Recording({ name: 'pin', version: '0' }, { capabilities: { tools: {} }, jsonSchemaValidator: refuse });
    expect(seen).toEqual(expect.arrayContaining(['initialize', 'ping']));
  });
});

describe('the Ajv alias', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fund-edge-ajv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has a stand-in that throws when called or constructed', () => {
    expect(() => ajvUnavailable()).toThrow('Ajv is not bundled in this Worker.');
    expect(() => new (ajvUnavailable as unknown as new () => unknown)()).toThrow('Ajv is not bundled in this Worker.');
  });

  it('wrangler.toml aliases ajv and ajv-formats to the stand-in', () => {
    expect(wranglerAliases()).toMatchObject({ ajv: './lib/mcp/ajv-unused.ts', 'ajv-formats': './lib/mcp/ajv-unused.ts' });
  });

  it('bundled as wrangler does, both servers answer without ever constructing Ajv', async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `export { createApp } from ${JSON.stringify(join(ROOT, 'lib/service.ts'))};\n`);
    const outfile = join(dir, 'app.mjs');
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'es2024',
      alias: wranglerAliases(),
      outfile,
      metafile: true,
      logLevel: 'silent',
    });
    // The stand-in is in the bundle, imported only by the SDK's Ajv provider: nothing else reaches for Ajv.
    const importers = Object.entries(result.metafile.inputs)
      .filter(([, input]) => input.imports.some((i) => i.path === 'lib/mcp/ajv-unused.ts'))
      .map(([path]) => path);
    expect(importers).toEqual(['node_modules/@modelcontextprotocol/sdk/dist/esm/validation/ajv-provider.js']);
    expect(Object.keys(result.metafile.inputs).filter((p) => p.includes('node_modules/ajv'))).toEqual([]);

    const { createApp } = (await import(pathToFileURL(outfile).href)) as typeof import('../../lib/service.ts');
    const app = createApp();
    const { env, API_KEYS } = fakeEnv();
    const { key } = await createKey(API_KEYS, { fundId: 'sample-fund' });
    const calls = [
      ['/api/mcp/public', {}, 'calc_operating_cost_calculator'],
      ['/api/mcp', { authorization: `Bearer ${key}` }, 'get_fee_terms'],
    ] as const;
    for (const [path, auth, tool] of calls) {
      for (const body of [
        specInitialize(),
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool, arguments: {} } },
      ]) {
        const headers = { ...SPEC_MCP_HEADERS, ...auth, 'cf-connecting-ip': '192.0.2.9' };
        const res = await app.request(path, { method: 'POST', headers, body: JSON.stringify(body) }, env);
        const text = await res.text();
        expect(res.status, text).toBe(200);
        expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', id: body.id, result: expect.any(Object) });
        expect(JSON.parse(text).result.isError, text).toBeUndefined();
      }
    }
  });
});

/**
 * Real MCP clients against the Worker in workerd (docs/mcp.md#a-key-the-server-refuses):
 * mcp-remote (the bridge Claude Desktop and Cursor run, pinned as a devDependency), the MCP Inspector's CLI
 * (pinned likewise) and the MCP SDK's client with an OAuth provider, each given a key as the snippets of
 * lib/mcp/clients.ts configure it. With the demo key, a calc key or a mistyped key, each must end with the
 * server's sentence shown, and none may start OAuth (fetch the metadata, register, wait for a browser);
 * with no key, OAuth discovery must still start. A recording proxy in front of the Worker shows which
 * requests each client made. Every client runs with a deadline in its own process group, killed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, DEMO_API_KEY } from '../../lib/keys.ts';
import { clientSetups, type McpUrls } from '../../lib/mcp/clients.ts';
import { mcpServerPaths } from '../../lib/mcp/endpoint.ts';
import { ROUTES } from '../../lib/registry.ts';
import { wranglerKv } from '../../scripts/wrangler-kv.ts';
import { freePort, killClients, runClient, startRecordingProxy, type RecordingProxy } from '../support/clients.ts';
import { FUND_TOOL_NAMES, PUBLIC_TOOL_NAMES } from '../support/declared.ts';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-clients-'));
let worker: TestWorker;
let proxy: RecordingProxy;
let urls: McpUrls;
/** A fund key of the served fund, a calc key, and the fund key with its last character changed. */
const keys = { fund: '', calc: '', mistyped: '' };

/** A client that runs longer than this has hung (waiting for an authorization, say): the test fails. */
const DEADLINE_MS = 45_000;

beforeAll(async () => {
  keys.fund = await mintKey(persistDir, ['--fund', 'sample-fund', '--label', 'clients e2e']);
  keys.calc = (
    await createKey(wranglerKv('API_KEYS', { remote: false, persistTo: persistDir }), { fundId: null, scope: 'calc', label: 'clients e2e' })
  ).key;
  keys.mistyped = `${keys.fund.slice(0, -1)}${keys.fund.endsWith('x') ? 'y' : 'x'}`;
  worker = await startWorker(persistDir);
  proxy = await startRecordingProxy(worker.base);
  const paths = mcpServerPaths(ROUTES);
  urls = { public: `${proxy.base}${paths.public}`, fund: `${proxy.base}${paths.fund}` };
});

afterAll(async () => {
  killClients();
  await proxy?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** The wrong keys of the issue, and the first words of the sentence the server answers each with. */
const WRONG_KEYS = [
  ['the demo key', () => DEMO_API_KEY, 'The demo key reads the synthetic demo fund over REST only'],
  ['a calc key', () => keys.calc, 'This key is a calc key'],
  ['a mistyped key', () => keys.mistyped, 'The key in the Authorization header is not valid'],
] as const;

/** The sentence of a refusal as a client prints it: inside a JSON text, so its quotes may be escaped. */
function shown(output: string, sentence: string): boolean {
  return output.replace(/\\"/g, '"').includes(sentence);
}

/** Splits a snippet's shell command into words (double quotes group; the snippets use no other quoting). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('mcp-remote, as Claude Desktop runs it from the snippet', () => {
  /** The snippet's command and environment, with the installed mcp-remote and a free callback port. */
  async function bridge(
    variant: 'public' | 'fund-oauth' | 'fund-key',
    key?: string,
  ): Promise<{ args: string[]; env: Record<string, string> }> {
    const setup = clientSetups(urls, { fundKey: key }).find((s) => s.id === 'claude-desktop')!;
    const config = JSON.parse(setup.snippets.find((s) => s.variant === variant)!.text) as {
      mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
    };
    const entry = Object.values(config.mcpServers)[0]!;
    expect(entry.args.slice(0, 2)).toEqual(['-y', expect.stringMatching(/^mcp-remote@/)]);
    const [url, ...flags] = entry.args.slice(2);
    return { args: ['node_modules/mcp-remote/dist/proxy.js', url!, String(await freePort()), ...flags], env: entry.env ?? {} };
  }

  it.each(WRONG_KEYS)('with %s: exits with the server sentence, no OAuth', async (_label, key, sentence) => {
    const { args, env } = await bridge('fund-key', key());
    proxy.clear();
    const run = await runClient(args, { env, timeoutMs: DEADLINE_MS, until: /Please authorize|Waiting for authorization/ });
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.stopped, run.stderr).toBe(false);
    expect(run.code).toBe(1);
    expect(shown(run.stderr, sentence), run.stderr).toBe(true);
    expect(run.stderr).toContain('403');
    expect(proxy.requests.filter((r) => r.path === '/oauth/register')).toEqual([]);
  });

  it('with the fund key: bridges initialize and tools/list', async () => {
    const { args, env } = await bridge('fund-key', keys.fund);
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desktop', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const run = await runClient(args, {
      env,
      timeoutMs: DEADLINE_MS,
      until: /"id":2[,}]/,
      input: messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
    });
    expect(run.stopped, run.stderr).toBe(true);
    const list = JSON.parse(run.stdout.split('\n').find((l) => /"id":2[,}]/.test(l))!) as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((t) => t.name)).toEqual(FUND_TOOL_NAMES);
  });

  it('without a key: starts OAuth (registers and prints the console authorization URL)', async () => {
    const { args, env } = await bridge('fund-oauth');
    proxy.clear();
    const run = await runClient(args, {
      env,
      timeoutMs: DEADLINE_MS,
      until: /Please authorize this client by visiting:\s+\S+\/developers\/console\/oauth\/authorize/,
    });
    expect(run.stopped, run.stderr).toBe(true);
    expect(proxy.requests.some((r) => r.method === 'POST' && r.path === '/oauth/register' && r.status === 201)).toBe(true);
  });

  it('on the public server with a mistyped key: exits with the sentence, no OAuth', async () => {
    const setup = clientSetups(urls, { publicKey: keys.mistyped }).find((s) => s.id === 'claude-desktop')!;
    const entry = Object.values(
      (
        JSON.parse(setup.snippets.find((s) => s.variant === 'public')!.text) as {
          mcpServers: Record<string, { args: string[]; env: Record<string, string> }>;
        }
      ).mcpServers,
    )[0]!;
    const [url, ...flags] = entry.args.slice(2);
    proxy.clear();
    const run = await runClient(['node_modules/mcp-remote/dist/proxy.js', url!, String(await freePort()), ...flags], {
      env: entry.env,
      timeoutMs: DEADLINE_MS,
      until: /Please authorize|Waiting for authorization/,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(shown(run.stderr, 'The key in the Authorization header is not valid'), run.stderr).toBe(true);
    expect(shown(run.stderr, 'The public server needs no key'), run.stderr).toBe(true);
    expect(proxy.requests.filter((r) => r.path === '/oauth/register')).toEqual([]);
  });
});

describe('the MCP Inspector CLI, from the snippet', () => {
  const LAUNCHER = 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js';

  /** The snippet's command with the installed Inspector (no TTY: standard input is a pipe). */
  function inspector(variant: 'public' | 'fund-oauth' | 'fund-key', key?: string): string[] {
    const setup = clientSetups(urls, { fundKey: key }).find((s) => s.id === 'inspector')!;
    const command = words(setup.snippets.find((s) => s.variant === variant)!.text);
    expect(command.slice(0, 3)).toEqual(['npx', '-y', expect.stringMatching(/^@modelcontextprotocol\/inspector@/)]);
    return [LAUNCHER, ...command.slice(3)];
  }

  it.each(WRONG_KEYS)('with %s: exits with the server sentence, no OAuth', async (_label, key, sentence) => {
    proxy.clear();
    const run = await runClient(inspector('fund-key', key()), { timeoutMs: DEADLINE_MS, until: /Please navigate to/ });
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.code, run.stderr).not.toBe(0);
    expect(shown(run.stderr, sentence), run.stderr).toBe(true);
    expect(run.stderr).not.toMatch(/Interactive OAuth|Insufficient scope: required/);
    expect(proxy.sawOAuth(), JSON.stringify(proxy.requests)).toBe(false);
  });

  it('on the public server with a mistyped key: exits with the sentence, no OAuth', async () => {
    const setup = clientSetups(urls, { publicKey: keys.mistyped }).find((s) => s.id === 'inspector')!;
    proxy.clear();
    const run = await runClient([LAUNCHER, ...words(setup.snippets.find((s) => s.variant === 'public')!.text).slice(3)], {
      timeoutMs: DEADLINE_MS,
      until: /Please navigate to/,
    });
    expect(run.code, run.stderr).not.toBe(0);
    expect(shown(run.stderr, 'The public server needs no key'), run.stderr).toBe(true);
    expect(proxy.sawOAuth()).toBe(false);
  });

  it('with the fund key: lists the fund tools', async () => {
    const run = await runClient(inspector('fund-key', keys.fund), { timeoutMs: DEADLINE_MS });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(FUND_TOOL_NAMES);
  });

  it('on the public server without a key: lists the calculators', async () => {
    const run = await runClient(inspector('public'), { timeoutMs: DEADLINE_MS });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(PUBLIC_TOOL_NAMES);
  });

  it('without a key: starts OAuth (registers and prints the console authorization URL)', async () => {
    proxy.clear();
    // It signs in only where it can show a link (a terminal, or with MCP_AUTO_OPEN_ENABLED); its callback
    // listener on a free port instead of its fixed default.
    const run = await runClient(inspector('fund-oauth'), {
      env: { MCP_AUTO_OPEN_ENABLED: 'true', MCP_OAUTH_CALLBACK_URL: `http://127.0.0.1:${await freePort()}/oauth/callback` },
      timeoutMs: DEADLINE_MS,
      until: /\/developers\/console\/oauth\/authorize\?/,
    });
    expect(run.stopped, run.stderr + run.stdout).toBe(true);
    expect(proxy.requests.some((r) => r.method === 'POST' && r.path === '/oauth/register' && r.status === 201)).toBe(true);
  });
});

/** An MCP client's OAuth state in memory; the test records whether the client started an authorization. */
class RecordingProvider implements OAuthClientProvider {
  registered = false;
  redirected: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #verifier = '';
  get redirectUrl(): string {
    return 'http://127.0.0.1:9/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'clients e2e',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registered = true;
    this.#client = info;
  }
  tokens(): OAuthTokens | undefined {
    return undefined;
  }
  saveTokens() {}
  redirectToAuthorization(url: URL) {
    this.redirected = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

describe('the MCP SDK client with an OAuth provider and a key header', () => {
  async function connect(url: string, key?: string): Promise<{ provider: RecordingProvider; error: unknown }> {
    const provider = new RecordingProvider();
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider,
      ...(key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {}),
    });
    const client = new Client({ name: 'clients-e2e', version: '1.0.0' });
    let error: unknown;
    try {
      await client.connect(transport);
    } catch (err) {
      error = err;
    }
    await client.close();
    return { provider, error };
  }

  it.each(WRONG_KEYS)('with %s: throws the server sentence, no OAuth', async (_label, key, sentence) => {
    const { provider, error } = await connect(urls.fund, key());
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(403);
    expect(shown((error as Error).message, sentence)).toBe(true);
    expect(provider.registered).toBe(false);
    expect(provider.redirected).toBeUndefined();
  });

  it('on the public server with a mistyped key: throws the sentence, no OAuth', async () => {
    const { provider, error } = await connect(urls.public, keys.mistyped);
    expect((error as StreamableHTTPError).code).toBe(403);
    expect(shown((error as Error).message, 'The public server needs no key')).toBe(true);
    expect(provider.registered).toBe(false);
  });

  it('without a key: discovers, registers and sends the browser to the console', async () => {
    const { provider, error } = await connect(urls.fund);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(provider.registered).toBe(true);
    expect(provider.redirected?.pathname).toBe('/developers/console/oauth/authorize');
  });
});

/**
 * OAuth 2.1 end to end (docs/oauth.md): the Worker in workerd over real HTTP, a real Chromium with a CDP
 * virtual passkey, and the MCP TypeScript SDK's client with its OAuth client provider, which is given only
 * the URL of the fund MCP server. The client is refused (401), discovers the authorization server, registers
 * itself and sends the browser to the console's authorization page; the developer signs up with a passkey
 * through an operator invitation to the fund and approves; the client lists every fund tool and calls
 * `get_fund_overview`. A denied consent, a grant revoked in the console and a calc-only account each end in
 * a clear refusal. The same through `mcp-remote` (the stdio bridge desktop clients run), with no browser of
 * its own: the test opens the URL it prints. Screenshots go to test-results/screenshots/ (git-ignored).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, operatorInvite, pageWithPasskey, screenshot } from '../support/browser.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';
import { FUND_TOOL_NAMES } from '../support/declared.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-oauth-'));
let worker: TestWorker;
let browser: Browser;
let origin: string;
/** Where the client says it listens for the redirect (nothing does: the test reads the browser's request there). */
const CALLBACK = 'http://127.0.0.1:38123/callback';

beforeAll(async () => {
  [worker, browser] = await Promise.all([startWorker(persistDir), launchChromium()]);
  origin = worker.base.replace('127.0.0.1', 'localhost');
});

afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** An MCP client's OAuth state in memory, as a desktop client keeps it; the browser step is the test's. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E MCP client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A client connection to the fund MCP server given only its URL. */
function connect(provider: MemoryProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(`${worker.base}/api/mcp`), { authProvider: provider });
  const client = new Client({ name: 'fund-edge-oauth-e2e', version: '1.0.0' });
  return { transport, client, connected: client.connect(transport) };
}

/** An operator invitation link to the served fund, from the real CLI into the worker's local KV. */
function invite(): Promise<string> {
  return operatorInvite(['--fund', 'sample-fund'], origin, persistDir);
}

/** Signs up with the page's passkey from the page it is on, and waits for the dashboard. */
async function signUp(page: Page): Promise<void> {
  await page.waitForLoadState('load');
  await page.getByRole('button', { name: 'Create an account with a passkey' }).click();
  await page.getByRole('heading', { name: 'Your keys', level: 1 }).waitFor();
}

/** Opens the authorization URL, waits for the consent page, presses `button`, and returns where the browser was sent. */
async function consent(page: Page, url: URL, button: 'Approve' | 'Deny' | 'Cancel', shot: string): Promise<URL> {
  await page.goto(url.toString());
  await page.getByRole('heading', { name: 'Authorize an application' }).waitFor();
  await page.waitForLoadState('load');
  expect(await page.locator('#client-name').textContent()).toBe('E2E MCP client');
  expect(await page.locator('#redirect-host').textContent()).toBe('127.0.0.1:38123');
  await screenshot(page, shot);
  // The browser's request to the client's redirect URI (no one listens there; its URL is what the client reads).
  const sent = page.waitForRequest((request) => request.url().startsWith(CALLBACK));
  await page.getByRole('button', { name: button }).click();
  return new URL((await sent).url());
}

describe('an MCP client connects with OAuth, knowing only the URL', () => {
  let page: Page;
  let provider: MemoryProvider;

  it('is refused, discovers, registers, and after a passkey sign-up and one approval reads the fund', async () => {
    const ctx = await pageWithPasskey(browser, origin);
    page = ctx.page;
    await page.goto(await invite());
    await signUp(page);

    provider = new MemoryProvider();
    const first = connect(provider);
    await expect(first.connected).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.authorizationUrl!.origin).toBe(origin);
    expect(provider.authorizationUrl!.searchParams.get('resource')).toBe(`${worker.base}/api/mcp`);

    const back = await consent(page, provider.authorizationUrl!, 'Approve', 'oauth-01-consent');
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    await first.transport.finishAuth(code!);

    const { client, connected } = connect(provider);
    await connected;
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(FUND_TOOL_NAMES.length);
    const overview = await client.callTool({ name: 'get_fund_overview', arguments: {} });
    expect(overview.isError).toBeFalsy();
    expect(JSON.stringify(overview.structuredContent)).toContain('"currency"');
    await client.close();
  });

  it('lists the application in the console; revoking it ends in a clear refusal', async () => {
    await page.goto(`${origin}/developers/console`);
    await page.getByRole('link', { name: 'Authorized applications' }).click();
    await page.getByRole('cell', { name: 'E2E MCP client' }).waitFor();
    await screenshot(page, 'oauth-02-applications');
    // At phone width the table scrolls inside its wrapper, as the keys table does: the page itself does not,
    // and Revoke is reached by scrolling the table.
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(
      0,
    );
    expect(await page.locator('.scroll > table#applications').count()).toBe(1);
    await page.getByRole('button', { name: 'Revoke' }).scrollIntoViewIfNeeded();
    expect(await page.getByRole('button', { name: 'Revoke' }).isVisible()).toBe(true);
    await screenshot(page, 'oauth-02b-applications-phone');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No application is authorized.').waitFor();

    const res = await fetch(`${worker.base}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${provider.saved!.access_token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The SDK's client: its refresh token died with the grant, and it says so.
    await expect(connect(provider).connected).rejects.toThrow(/Grant not found/);
  });

  it('a denied consent sends access_denied back and gives the client no token', async () => {
    const denied = new MemoryProvider();
    await expect(connect(denied).connected).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await consent(page, denied.authorizationUrl!, 'Deny', 'oauth-03-deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(denied.saved).toBeUndefined();
    await page.context().close();
  });

  it('a calc-only account cannot approve: the page says why and the client gets access_denied', async () => {
    const { context, page: calcPage } = await pageWithPasskey(browser, origin);
    try {
      await calcPage.goto(`${origin}/developers/console`);
      await signUp(calcPage);
      const calcOnly = new MemoryProvider();
      await expect(connect(calcOnly).connected).rejects.toBeInstanceOf(UnauthorizedError);
      const back = await consent(calcPage, calcOnly.authorizationUrl!, 'Cancel', 'oauth-04-calc-only');
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('error_description')).toContain('no access to this fund');
    } finally {
      await context.close();
    }
  });
});

/** A free TCP port on loopback (for mcp-remote's OAuth callback server). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

describe('the same through mcp-remote', () => {
  it('prints the authorization URL, takes the approval, and bridges every fund tool and get_fund_overview', async () => {
    const { context, page } = await pageWithPasskey(browser, origin);
    const configDir = mkdtempSync(join(tmpdir(), 'fund-edge-mcp-remote-'));
    const bridge = spawn(
      process.execPath,
      ['node_modules/mcp-remote/dist/proxy.js', `${worker.base}/api/mcp`, String(await freePort()), '--transport', 'http-only'],
      {
        // No browser to open (DISPLAY empty, BROWSER a no-op): mcp-remote prints the URL instead.
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: '/bin/true', DISPLAY: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    bridge.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    bridge.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const answer = async (id: number) => {
      await expect.poll(() => stdout.split('\n').find((l) => l.includes(`"id":${id},`)), { timeout: 30_000 }).toBeDefined();
      return JSON.parse(stdout.split('\n').find((l) => l.includes(`"id":${id},`))!) as { result: Record<string, unknown> };
    };
    try {
      await page.goto(await invite());
      await signUp(page);
      const printed = /http:\/\/localhost:\d+\/developers\/console\/oauth\/authorize\S+/;
      await expect.poll(() => printed.exec(stderr)?.[0], { timeout: 30_000 }).toBeDefined();
      await page.goto(printed.exec(stderr)![0]);
      await page.getByRole('heading', { name: 'Authorize an application' }).waitFor();
      await page.waitForLoadState('load');
      await page.getByRole('button', { name: 'Approve' }).click();

      const send = (message: unknown) => bridge.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desktop', version: '1.0.0' } },
      });
      expect((await answer(1)).result.serverInfo).toMatchObject({ name: 'fund-edge-fund-data' });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(((await answer(2)).result.tools as unknown[]).length).toBe(FUND_TOOL_NAMES.length);
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_fund_overview', arguments: {} } });
      const overview = (await answer(3)).result;
      expect(overview.isError).toBeFalsy();
      expect(JSON.stringify(overview.structuredContent)).toContain('"currency"');
    } finally {
      bridge.kill();
      await context.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

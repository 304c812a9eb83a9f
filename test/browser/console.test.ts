/**
 * The developer console in a real Chromium (@sparticuz/chromium via playwright-core) against the Worker in
 * workerd over real HTTP, with a CDP virtual authenticator as the passkey: sign up, mint a key and copy it
 * from the page, call a calculator with it and see the account's plan limit in `RateLimit-Policy`; sign out
 * and back in with the same passkey; accept an operator invitation (the real `npm run console` CLI), mint a
 * fund key, read fund data with it, revoke it in the page and get 401; a calc key on fund data gets 403. A
 * key just minted is listed at once and filled into the MCP client snippets; the usage chart shows the call.
 * Screenshots of each main screen go to test-results/screenshots/ (git-ignored).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPath, fundPath } from '../support/declared.ts';
import { PLAN_DAILY_CALC_LIMITS } from '../../lib/identity.ts';
import { clientSetups, type McpUrls } from '../../lib/mcp/clients.ts';
import { launchChromium, operatorInvite, pageWithPasskey, screenshot } from '../support/browser.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-console-'));
let worker: TestWorker;
let browser: Browser;
/** The console's origin: `localhost` with the worker's port (WebAuthn refuses an IP address as RP id). */
let origin: string;

beforeAll(async () => {
  [worker, browser] = await Promise.all([startWorker(persistDir), launchChromium()]);
  origin = worker.base.replace('127.0.0.1', 'localhost');
});

afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** An operator invitation link from the real CLI, into the worker's local KV. */
function invite(args: string[]): Promise<string> {
  return operatorInvite(args, origin, persistDir);
}

/** Waits for the dashboard after a navigation, and for its script (so that buttons act). */
async function dashboardReady(page: Page): Promise<void> {
  await page.getByRole('heading', { name: 'Your keys', level: 1 }).waitFor();
  await page.waitForLoadState('load');
}

/** Creates an account with the page's passkey from the page it is on; waits for the dashboard. */
async function signUp(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Create an account with a passkey' }).click();
  await dashboardReady(page);
}

/** Mints a key from the dashboard; returns the key as copied to the clipboard with the page's button. */
async function mint(page: Page, label: string, scope: 'calc' | 'fund'): Promise<string> {
  await page.getByLabel('Label').fill(label);
  await page.locator(`input[name="scope"][value="${scope}"]`).check();
  await page.getByRole('button', { name: 'Mint key' }).click();
  const shown = page.getByTestId('new-key');
  await expect.poll(() => shown.textContent()).toMatch(/^svc_dk_[0-9A-Za-z]{32}$/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  const copied = await page.evaluate<string>('navigator.clipboard.readText()');
  expect(copied).toBe(await shown.textContent());
  return copied;
}

/** The MCP servers' URLs the quick starts' client section names. */
async function mcpUrls(page: Page): Promise<McpUrls> {
  const section = page.locator('section.clients');
  return { public: (await section.getAttribute('data-mcp-public'))!, fund: (await section.getAttribute('data-mcp-fund'))! };
}

function calc(key: string): Promise<Response> {
  return fetch(`${worker.base}${calcPath('fee-calculator')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'cf-connecting-ip': '203.0.113.9' },
    body: '{}',
  });
}

function overview(key: string): Promise<Response> {
  return fetch(`${worker.base}${fundPath('get_fund_overview')}`, { headers: { authorization: `Bearer ${key}` } });
}

describe('developer console in Chromium', () => {
  let calcKey: string;
  let accountId: string;

  it('redirects 127.0.0.1 to localhost and signs up with a passkey', async () => {
    const { context, page } = await pageWithPasskey(browser, origin);
    try {
      await page.goto(`${worker.base}/developers/console`);
      expect(page.url()).toBe(`${origin}/developers/console`);
      await screenshot(page, '01-welcome');
      await signUp(page);
      accountId = (await page.getByTestId('account-id').textContent())!;
      expect(accountId).toMatch(/^acct_[0-9A-Za-z]{16}$/);
      expect(await page.getByTestId('plan').textContent()).toBe('free');
      expect(await page.getByTestId('scopes').textContent()).toBe('calc');
      await screenshot(page, '02-dashboard-new-account');

      calcKey = await mint(page, 'laptop', 'calc');
      // Without pressing Done: the key list shows the new key, and the MCP snippets carry the key (a calc key
      // on the public server), as lib/mcp/clients.ts writes them.
      await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
      expect(await page.getByText('No keys yet.').count()).toBe(0);
      const mcp = await mcpUrls(page);
      for (const setup of clientSetups(mcp, { publicKey: calcKey })) {
        const shown = await page.locator(`[data-setup="${setup.id}:public"]`).textContent();
        expect(shown, setup.id).toBe(setup.snippets.find((s) => s.variant === 'public')!.text);
        expect(shown).toContain(calcKey);
      }
      await screenshot(page, '03-key-minted');

      const res = await calc(calcKey);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe(`"daily";q=${PLAN_DAILY_CALC_LIMITS.free};w=86400`);
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"daily";r=${PLAN_DAILY_CALC_LIMITS.free - 1};t=\\d+$`));

      const refused = await overview(calcKey);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { code: string }).code).toBe('insufficient_scope');

      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
      await page.waitForLoadState('load');
      expect(await page.getByTestId('usage').textContent()).toBe(`1 of ${PLAN_DAILY_CALC_LIMITS.free.toLocaleString('en-US')}`);
      // The last 30 days, today's bar holding the call, drawn by the server (the chart needs no script),
      // against an axis that runs to 1 (the limit, 1,000, is off that scale and the key under it says so).
      const bars = page.getByTestId('usage-chart').locator('rect.bar');
      expect(await bars.count()).toBe(30);
      expect(await bars.last().getAttribute('data-calls')).toBe('1');
      expect(await page.locator('figure.usage figcaption').textContent()).toMatch(
        /^Calculator calls a day, last 30 days \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, UTC\): 1 calculator call, at most 1 on \d{4}-\d\d-\d\d\.$/,
      );
      expect(await page.locator('figure.usage .axis li').allTextContents()).toEqual(['1', '0']);
      expect(await page.locator('figure.usage .key').textContent()).toBe("Your plan's limit 1,000 a day is off this scale (it runs to 1).");
      expect(Number(await bars.last().getAttribute('height'))).toBe(100);
      expect(await page.content()).not.toContain(calcKey);
      await expect.poll(() => page.locator('tbody tr').first().textContent()).toContain(calcKey.slice(0, 12));
      await screenshot(page, '04-keys-listed');

      await page.setViewportSize({ width: 390, height: 844 });
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, '04b-dashboard-phone');
      await page.setViewportSize({ width: 1100, height: 900 });

      await page.getByRole('button', { name: 'Sign out' }).click();
      // Signing back in with the keyboard alone: focus the button, press Enter (once the script is loaded).
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      await page.waitForLoadState('load');
      await page.getByRole('button', { name: 'Sign in with a passkey' }).focus();
      await page.keyboard.press('Enter');
      await dashboardReady(page);
      expect(await page.getByTestId('account-id').textContent()).toBe(accountId);
    } finally {
      await context.close();
    }
  });

  it('accepts an operator invitation, reads fund data with a fund key, and revokes it (401)', async () => {
    const link = await invite(['--fund', 'sample-fund', '--plan', 'paid', '--expires', '1d']);
    expect(link).toMatch(new RegExp(`^${origin}/developers/console/invite#[0-9A-Za-z]{32}$`));
    const { context, page } = await pageWithPasskey(browser, origin);
    // The token is the link's fragment: no request the browser makes carries it in its URL.
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    try {
      await page.goto(link);
      await page.getByRole('heading', { name: 'You are invited to fund data' }).waitFor();
      await screenshot(page, '05-invitation');
      await signUp(page);
      expect(await page.getByTestId('plan').textContent()).toBe('paid');
      expect(await page.getByTestId('scopes').textContent()).toBe('calc, fund (sample-fund)');

      const fundKey = await mint(page, 'desk', 'fund');
      await page.getByRole('cell', { name: 'desk', exact: true }).waitFor();
      const mcp = await mcpUrls(page);
      for (const setup of clientSetups(mcp, { publicKey: fundKey, fundKey })) {
        const snippet = setup.snippets.find((s) => s.variant === 'fund-key')!;
        expect(await page.locator(`[data-setup="${setup.id}:fund-key"]`).textContent(), setup.id).toBe(snippet.text);
        if (snippet.link) expect(await page.locator(`[data-setup-link="${setup.id}:fund-key"]`).getAttribute('href')).toBe(snippet.link);
      }
      await screenshot(page, '06-fund-key-minted');
      const res = await overview(fundKey);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { currency: string }).currency).toBe('USD');
      const quota = await calc(fundKey);
      expect(quota.headers.get('ratelimit-policy')).toBe(`"daily";q=${PLAN_DAILY_CALC_LIMITS.paid};w=86400`);

      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('cell', { name: 'desk', exact: true }).waitFor();
      await page.waitForLoadState('load');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: /^Revoke key/ }).click();
      await page.getByRole('cell', { name: 'revoked', exact: true }).waitFor();
      await screenshot(page, '07-key-revoked');
      const gone = await overview(fundKey);
      expect(gone.status).toBe(401);
      expect(((await gone.json()) as { code: string }).code).toBe('unauthorized');

      // The invitation was single use.
      await page.goto(link);
      await page.getByRole('heading', { level: 1, name: 'This invitation is not valid' }).waitFor();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This invitation is not valid');
      await screenshot(page, '08-invitation-used');

      // An invitation can also be accepted by signing in to an existing account from its page.
      await page.goto(`${origin}/developers/console`);
      await page.waitForLoadState('load');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
      const second = await invite(['--fund', 'other-fund']);
      await page.goto(second);
      await page.getByRole('heading', { name: 'You are invited to fund data' }).waitFor();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await dashboardReady(page);
      expect(await page.getByTestId('scopes').textContent()).toBe('calc, fund (sample-fund), fund (other-fund)');
      expect(requested.some((url) => url.includes('/invite'))).toBe(true);
      for (const token of [link, second].map((l) => l.split('#')[1]!)) expect(requested.filter((url) => url.includes(token))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is readable on a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/developers/console`);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, '09-phone-welcome');
    } finally {
      await context.close();
    }
  });
});

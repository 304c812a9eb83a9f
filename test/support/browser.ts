/**
 * A real Chromium for browser tests: the build the npm package `@sparticuz/chromium` ships, driven by
 * `playwright-core`, headless, with the same-origin policy on (the package's defaults turn it off), and
 * background networking, component updates and first-run work off (the tests run offline). Pages get a CDP virtual authenticator (a platform passkey with user verification)
 * and screenshots go to `test-results/screenshots/` (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { runCli } from './worker.ts';

/** Where screenshots are written, relative to the project root. */
export const SCREENSHOT_DIR = join('test-results', 'screenshots');

/**
 * Arguments of `@sparticuz/chromium` (made for one-page Lambda runs) the tests must not inherit, because a
 * browser launched with them is one nobody uses: `--disable-web-security` turns off the same-origin policy
 * (every same-origin, CSP and cross-site assertion would pass whatever the service sent),
 * `--allow-running-insecure-content` lets an https page load http scripts, and `--single-process` ends the
 * whole browser when a context closes. `test/browser/web-security.test.ts` proves the policy holds.
 */
export const UNSAFE_ARGS = ['--disable-web-security', '--allow-running-insecure-content', '--single-process'];

/** The arguments the test browser is launched with: the package's, less {@link UNSAFE_ARGS}, and offline. */
export function chromiumArgs(): string[] {
  return [
    ...chromium.args.filter((a) => !UNSAFE_ARGS.includes(a)),
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ];
}

/**
 * Launches the packaged Chromium headless, with the same-origin policy on.
 * @param extraArgs more arguments (the web-security test launches one browser with the policy off, to show
 *   that its probe tells the two apart)
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromiumArgs(), ...extraArgs],
    headless: true,
  });
}

/**
 * A fresh context (its own cookies) with clipboard access for `origin`, and one page with a virtual
 * authenticator: CTAP2, internal transport, resident keys, user verification that always succeeds.
 */
export async function pageWithPasskey(browser: Browser, origin: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page };
}

/** Saves a full-page screenshot as `test-results/screenshots/<name>.png`; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * An operator invitation link from the real CLI (`npm run console -- invite ...`), written into the local KV
 * of a worker started with `persistDir`; the link points at `origin`.
 */
export async function operatorInvite(args: readonly string[], origin: string, persistDir: string): Promise<string> {
  return runCli('console.ts', ['invite', ...args, '--base', origin, '--persist-to', persistDir]);
}

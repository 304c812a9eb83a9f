/**
 * The test browser keeps the same-origin policy, so every same-origin, CSP and cross-site assertion of the
 * browser tests runs in a browser as users have it. `@sparticuz/chromium`'s default arguments turn the policy
 * off (`--disable-web-security`); test/support/browser.ts drops them. The probe: a page on one origin fetches
 * an answer from another origin that sends no CORS headers. With the policy on the read is refused; the same
 * probe in a browser launched with the flag reads the answer, so a launch that let the flag back in fails here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { UNSAFE_ARGS, chromiumArgs, launchChromium } from '../support/browser.ts';

const SECRET = 'cross-origin-secret-7f3a';

/** A server on 127.0.0.1, port 0, answering every path with `body` (HTML for `/`). */
async function serve(body: (path: string) => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    res.writeHead(200, { 'content-type': path === '/' ? 'text/html' : 'text/plain' });
    res.end(body(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What a page on `pageOrigin` gets when it reads `url`: the text, or `blocked` when the browser refuses. */
async function crossOriginRead(browser: Browser, pageOrigin: string, url: string): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/`);
    return await page.evaluate(async (target) => {
      try {
        return await (await fetch(target)).text();
      } catch {
        return 'blocked';
      }
    }, url);
  } finally {
    await context.close();
  }
}

describe('the test browser', () => {
  let site: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    [site, other, browser] = await Promise.all([
      serve(() => '<!doctype html><title>site</title>'),
      serve((path) => (path === '/' ? '<!doctype html><title>other</title>' : SECRET)),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    for (const s of [site?.server, other?.server]) await new Promise((resolve) => s?.close(resolve));
  });

  it('is launched without the arguments that turn the same-origin policy off', () => {
    for (const flag of UNSAFE_ARGS) expect(chromiumArgs()).not.toContain(flag);
  });

  it('refuses a page the answer of another origin that sends no CORS headers, and serves it to its own origin', async () => {
    expect(await crossOriginRead(browser, site.origin, `${other.origin}/secret`)).toBe('blocked');
    expect(await crossOriginRead(browser, other.origin, `${other.origin}/secret`)).toBe(SECRET);
  });

  it('tells a browser with the policy off apart: there the same read succeeds', async () => {
    const unsafe = await launchChromium(['--disable-web-security']);
    try {
      expect(await crossOriginRead(unsafe, site.origin, `${other.origin}/secret`)).toBe(SECRET);
    } finally {
      await unsafe.close();
    }
  });
});

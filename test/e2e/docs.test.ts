/**
 * The documentation as a visitor gets it from the Worker in workerd: the pages and llms files with their
 * content types and CSP, Swagger UI's files from wrangler's static assets, and a real browser (Chromium of
 * `@sparticuz/chromium`, driven by playwright-core) loading `/docs`: no request leaves the origin, the CSP
 * blocks nothing, every operation of the OpenAPI document is shown, and "try it" works against the origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPath } from '../support/declared.ts';
import type { Browser } from 'playwright-core';
import { launchChromium, screenshot } from '../support/browser.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-docs-'));
let worker: TestWorker;
let browser: Browser | undefined;

beforeAll(async () => {
  worker = await startWorker(persistDir);
});
afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

describe('pages over HTTP', () => {
  it.each([
    ['/', 'text/html; charset=UTF-8'],
    ['/docs', 'text/html; charset=UTF-8'],
    ['/llms.txt', 'text/markdown; charset=utf-8'],
    ['/llms-full.txt', 'text/markdown; charset=utf-8'],
  ])('%s answers %s with a CSP', async (path, type) => {
    const res = await fetch(`${worker.base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).not.toContain('{{origin}}');
  });

  it('serves Swagger UI and the design notes as static assets', async () => {
    for (const [path, type] of [
      ['/docs/assets/swagger-ui-bundle.js', /javascript/],
      ['/docs/assets/swagger-ui.css', /^text\/css/],
      ['/docs/design/api.md', /^text\/markdown/],
    ] as const) {
      const res = await fetch(`${worker.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(type);
      await res.arrayBuffer();
    }
  });
});

describe('/docs in a browser', () => {
  it('loads from the origin only, shows every operation, and "try it" answers', async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    // Runs in the page before its scripts (injected by the browser, so the page's CSP does not apply to it).
    await page.addInitScript({
      content:
        "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
    });
    await page.goto(`${worker.base}/docs`, { waitUntil: 'networkidle' });
    const doc = (await (await fetch(`${worker.base}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(doc.paths)
      .flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : [])))
      .sort();
    await page.waitForSelector('.opblock-summary-operation-id');
    const shown = (await page.locator('.opblock-summary-operation-id').allTextContents()).map((t) => t.trim()).sort();
    expect(shown).toEqual(operationIds);

    // Try it: the fee calculator with its declared example, against this origin.
    const op = page.locator('#operations-Calculators-calcFeeCalculator');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toMatch(/^200/);

    const origin = new URL(worker.base).origin;
    const elsewhere = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(requests).toContain(`${origin}/api/v1/openapi.json`);
    expect(requests).toContain(`${origin}${calcPath('fee-calculator')}`);
    expect(await page.evaluate('window.cspViolations')).toEqual([]);
    await screenshot(page, 'docs-reference');
  }, 120_000);

  it('shows the home page at phone width with no request leaving the origin', async () => {
    browser ??= await launchChromium();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${worker.base}/`, { waitUntil: 'networkidle' });
    const origin = new URL(worker.base).origin;
    expect(requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    // Nothing wider than the screen: the page is readable on a phone without scrolling sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    for (const link of ['/docs', '/developers/console', '/api/v1/openapi.json', '/llms.txt']) {
      expect(await page.locator(`a[href$="${link}"]`).count(), link).toBeGreaterThan(0);
    }
    await screenshot(page, 'home-phone');
  }, 120_000);
});

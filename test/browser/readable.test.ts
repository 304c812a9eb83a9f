/**
 * The pages a person looks at, read as a person reads them, in a real Chromium against the Worker in workerd,
 * at 1280 px and 390 px: the home page, the API reference (`/docs`, Swagger UI) and the developer console
 * (signed up with a CDP virtual passkey). On each: every visible text has a contrast of at least 4.5:1 against
 * its background (WCAG 2.2 AA, measured in the page: test/support/page-audit.ts), and no control or text is
 * cut off or scrolled out of its box. Beside that: the reference's operation ids never break inside a word
 * and its introduction sits in the operations' column and states the console's plan limits as configured;
 * the usage chart says in words when there were no calls, has an axis with its scale against the plan's
 * limit, and gives each day's value on hover and keyboard focus, to a screen reader too; the home page
 * installs no client with a placeholder key. Screenshots go to test-results/screenshots/ (git-ignored).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcPath } from '../support/declared.ts';
import { PLAN_DAILY_CALC_LIMITS } from '../../lib/identity.ts';
import { KEY_PLACEHOLDER } from '../../lib/mcp/clients.ts';
import { launchChromium, pageWithPasskey, screenshot } from '../support/browser.ts';
import { clipped, lowContrast } from '../support/page-audit.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-readable-'));
let worker: TestWorker;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  // A session secret of its own: without one each isolate makes a random secret, and a session would end
  // whenever workerd answered from a new isolate.
  [worker, browser] = await Promise.all([
    startWorker(persistDir, { CONSOLE_SESSION_SECRET: { type: 'plain_text', value: 'readable-pages-test-session-secret-0123456789' } }),
    launchChromium(),
  ]);
  origin = worker.base.replace('127.0.0.1', 'localhost');
});

afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

const WIDTHS = [
  ['desktop', 1280],
  ['phone', 390],
] as const;

/** A context of the width's viewport (a phone's with touch), with a passkey for the console. */
async function open(width: number): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await pageWithPasskey(browser, origin);
  await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
  return { context, page };
}

/** Contrast and clipping of the page as it stands. */
async function expectReadable(page: Page): Promise<void> {
  expect(await lowContrast(page)).toEqual([]);
  expect(await clipped(page)).toEqual([]);
}

/** Opens every `<details>` on the page, as a reader would to see the snippets. */
async function openAllDetails(page: Page): Promise<void> {
  for (const summary of await page.locator('details > summary').all())
    if ((await summary.locator('xpath=..').getAttribute('open')) === null) await summary.click();
}

describe.each(WIDTHS)('pages at %s width (%i px)', (label, width) => {
  it('the home page: readable, and no install link carries a placeholder key', async () => {
    const { context, page } = await open(width);
    try {
      await page.goto(`${origin}/`);
      await openAllDetails(page);
      await screenshot(page, `readable-home-${label}`);
      await expectReadable(page);
      for (const link of await page.locator('a[data-setup-link]').all()) {
        const raw = await link.getAttribute('href');
        if (raw === null) continue;
        const href = decodeURIComponent(raw);
        const config = href.startsWith('cursor:') ? atob(new URL(href).searchParams.get('config')!) : href;
        expect(config, href).not.toContain(KEY_PLACEHOLDER);
      }
    } finally {
      await context.close();
    }
  });

  it('the API reference: readable, ids unbroken, the introduction in the column, the plan limits as configured', async () => {
    const { context, page } = await open(width);
    try {
      await page.goto(`${origin}/docs`);
      await page.locator('.opblock').first().waitFor();
      await screenshot(page, `readable-docs-${label}`);
      await expectReadable(page);
      // An operation id is one word: it never wraps, at either width.
      const broken = await page.evaluate<string[]>(`[...document.querySelectorAll('.opblock-summary-operation-id')]
        .filter((el) => el.getClientRects().length > 1 || el.getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(el).lineHeight || '20'))
        .map((el) => el.textContent)`);
      expect(broken).toEqual([]);
      // The introduction's text is no wider than the operations' column, and starts where it starts.
      const [intro, ops] = await page.evaluate<[{ left: number; right: number }, { left: number; right: number }]>(`[
        document.querySelector('.information-container .info .description'),
        document.querySelector('.opblock-tag-section'),
      ].map((el) => { const r = el.getBoundingClientRect(); return { left: r.left, right: r.right }; })`);
      expect(Math.abs(intro.left - ops.left)).toBeLessThanOrEqual(2);
      expect(intro.right).toBeLessThanOrEqual(ops.right + 2);
      const text = (await page.locator('.information-container .info .description').textContent())!;
      const n = (x: number) => x.toLocaleString('en-US');
      expect(text).toContain(`free ${n(PLAN_DAILY_CALC_LIMITS.free)}`);
      expect(text).toContain(`paid ${n(PLAN_DAILY_CALC_LIMITS.paid)}`);
    } finally {
      await context.close();
    }
  });

  it('the console: readable with no calls and with calls, the keys table whole, the chart read by its axis', async () => {
    const { context, page } = await open(width);
    try {
      await page.goto(`${origin}/developers/console`);
      await screenshot(page, `readable-console-welcome-${label}`);
      await expectReadable(page);
      await page.getByRole('button', { name: 'Create an account with a passkey' }).click();
      await page.getByRole('heading', { name: 'Your keys', level: 1 }).waitFor();
      await page.waitForLoadState('load');

      // No calls yet: the chart says so in words, visibly.
      const chart = page.locator('figure.usage');
      await expect.poll(() => chart.textContent()).toContain('No calculator calls in the last 30 days');
      await openAllDetails(page);
      await screenshot(page, `readable-console-empty-${label}`);
      await expectReadable(page);

      // A key, 12 good calls and one the calculator refuses for its input.
      await page.getByLabel('Label').fill('laptop');
      await page.getByRole('button', { name: 'Mint key' }).click();
      await expect
        .poll(async () => (await page.getByTestId('new-key').textContent()) || (await page.locator('#status').textContent()))
        .toMatch(/^svc_dk_/);
      const key = (await page.getByTestId('new-key').textContent())!;
      const call = (body: string) =>
        fetch(`${worker.base}${calcPath('fee-calculator')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'cf-connecting-ip': '203.0.113.7' },
          body,
        });
      for (let i = 0; i < 12; i++) expect((await call('{}')).status).toBe(200);
      expect((await call('{"horizonYears":-1}')).status).toBe(400);
      await page.reload();
      await page.waitForLoadState('load');
      const limit = PLAN_DAILY_CALC_LIMITS.free.toLocaleString('en-US');
      // Refused calls count, and the page says so.
      expect(await page.getByTestId('usage').textContent()).toBe(`13 of ${limit}`);
      expect(await page.locator('#acct-h ~ *').first().textContent()).toMatch(/counts.*refused for its input \(400/);

      // The axis: its scale in numbers, and the limit named against it.
      const ticks = (await page.locator('figure.usage .axis li').allInnerTexts()).map((t) => Number(t.replaceAll(',', '')));
      expect(ticks.at(-1)).toBe(0);
      expect(ticks[0]).toBeGreaterThanOrEqual(13);
      const today = page.locator('figure.usage [data-calls="13"]');
      const [plot, bar] = await Promise.all([page.locator('svg.usage-chart').boundingBox(), today.boundingBox()]);
      expect(bar!.height / plot!.height).toBeCloseTo(13 / ticks[0]!, 1);
      expect(await chart.textContent()).toContain(`limit ${limit} a day`);
      // A day's value: by keyboard (the last day is today, with the 13 calls), shown and announced.
      let focused = '';
      for (let i = 0; i < 60 && !focused.includes('13 calculator calls'); i++) {
        await page.keyboard.press('Tab');
        focused = await page.evaluate<string>(`document.activeElement?.getAttribute('aria-label') ?? ''`);
      }
      expect(focused).toMatch(/^\d{4}-\d\d-\d\d: 13 calculator calls$/);
      await expect.poll(() => page.locator('figure.usage .readout').textContent()).toMatch(/13 calculator calls/);
      // The arrow keys move to the day before, which the read-out then gives.
      await page.keyboard.press('ArrowLeft');
      expect(await page.evaluate<string>(`document.activeElement?.getAttribute('aria-label') ?? ''`)).toMatch(/: 0 calculator calls$/);
      await expect
        .poll(() => page.locator('figure.usage .readout').textContent())
        .toMatch(/: 0 calculator calls \(0 % of the daily limit\)/);
      const aria = await chart.ariaSnapshot();
      expect(aria).toContain('13 calculator calls');
      expect(aria).toMatch(new RegExp(`limit ${limit}`));
      expect(aria).toMatch(/No calls|0 calculator calls/);
      // And by pointer.
      await today.hover();
      await expect.poll(() => page.locator('figure.usage .readout').textContent()).toMatch(/13 calculator calls/);
      await openAllDetails(page);
      await screenshot(page, `readable-console-calls-${label}`);
      // The parts a reader looks at closely, at the size they are drawn.
      await page
        .locator('section[aria-labelledby="acct-h"]')
        .screenshot({ path: `test-results/screenshots/readable-console-account-${label}.png` });
      await page.locator('#keys-card').screenshot({ path: `test-results/screenshots/readable-console-keys-${label}.png` });
      await expectReadable(page);
      // The keys table: Revoke and every column in view, without scrolling a box sideways.
      const revoke = page.getByRole('button', { name: /^Revoke key/ });
      expect(await revoke.isVisible()).toBe(true);
      for (const column of ['Created', 'Last used', 'State'])
        expect(await page.locator('#keys-card').getByText(column, { exact: true }).filter({ visible: true }).count(), column).toBe(1);
    } finally {
      await context.close();
    }
  });
});

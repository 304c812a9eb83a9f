/**
 * The home page's MCP client setups in a real Chromium against the Worker in workerd (docs/mcp.md#connecting-a-client): each
 * client opens (plain `<details>`, no script) on the snippets lib/mcp/clients.ts makes for this Worker's
 * URLs, the Cursor and VS Code install links carry the configuration shown beside them, and at phone width
 * (375 px) the page does not scroll sideways. Screenshots go to test-results/screenshots/ (git-ignored).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientSetups, type McpUrls } from '../../lib/mcp/clients.ts';
import { mcpServerPaths } from '../../lib/mcp/endpoint.ts';
import { ROUTES } from '../../lib/registry.ts';
import { launchChromium, screenshot } from '../support/browser.ts';
import { startWorker, type TestWorker } from '../support/worker.ts';

const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-home-'));
let worker: TestWorker;
let browser: Browser;
let urls: McpUrls;

beforeAll(async () => {
  [worker, browser] = await Promise.all([startWorker(persistDir), launchChromium()]);
  const paths = mcpServerPaths(ROUTES);
  urls = { public: `${worker.base}${paths.public}`, fund: `${worker.base}${paths.fund}` };
});

afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

/** Opens every client's setup on the page, by its summary (as a reader would). */
async function openAll(page: Page): Promise<void> {
  for (const summary of await page.locator('section.clients summary').all()) await summary.click();
}

describe('the home page in Chromium', () => {
  it.each([
    ['desktop', { width: 1100, height: 900 }],
    ['phone', { width: 375, height: 740 }],
  ] as const)('shows each client its one thing to copy (%s)', async (label, viewport) => {
    const context = await browser.newContext({ viewport, ...(label === 'phone' ? { isMobile: true, hasTouch: true } : {}) });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`${worker.base}/`);
      await page.getByRole('heading', { name: 'Connect an MCP client' }).waitFor();
      await openAll(page);
      for (const setup of clientSetups(urls)) {
        const details = page.locator(`details[data-client="${setup.id}"]`);
        expect(await details.getAttribute('open'), setup.id).not.toBeNull();
        for (const snippet of setup.snippets) {
          const code = details.locator(`[data-setup="${setup.id}:${snippet.variant}"]`);
          expect(await code.isVisible(), `${setup.id} ${snippet.variant}`).toBe(true);
          expect(await code.textContent()).toBe(snippet.text);
          if (snippet.link)
            expect(await details.locator(`[data-setup-link="${setup.id}:${snippet.variant}"]`).getAttribute('href')).toBe(snippet.link);
        }
      }
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      ).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await screenshot(page, `home-clients-${label}`);
    } finally {
      await context.close();
    }
  });

  it("links each server's server.json, which names this Worker's URL", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${worker.base}/`);
      for (const [name, server] of [
        ["the calculators' server.json", 'public'],
        ["the fund server's", 'fund'],
      ] as const) {
        const href = await page.getByRole('link', { name }).getAttribute('href');
        const doc = (await (await fetch(`${worker.base}${href}`)).json()) as { remotes: { url: string }[] };
        expect(doc.remotes[0]!.url).toBe(urls[server]);
      }
    } finally {
      await page.close();
    }
  });
});

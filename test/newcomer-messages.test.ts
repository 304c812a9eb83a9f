/**
 * What a newcomer reads when they have no credential yet: the REST fund data's 401 names the published demo
 * key and the developer console, where fund keys are minted; `llms.txt` gives the fund MCP server's two ways
 * in, a fund key and OAuth, as the server takes them.
 */
import { describe, expect, it } from 'vitest';
import { CONSOLE_PATH } from '../lib/identity.ts';
import { createApp } from '../lib/service.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { fakeEnv } from './support/fakes.ts';
import { fundPath } from './support/declared.ts';

const app = createApp();

describe('a newcomer without a key', () => {
  it('REST fund data without a credential: 401 naming the demo key, the console and OAuth', async () => {
    const res = await app.request(`http://127.0.0.1:8787${fundPath('get_fund_overview')}`, {}, fakeEnv().env);
    expect(res.status).toBe(401);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toContain(DEMO_API_KEY);
    expect(detail).toContain(`developer console (${CONSOLE_PATH})`);
    expect(detail).toContain('OAuth access token');
    expect(detail).toContain('Authorization: Bearer');
  });

  it('llms.txt names a fund key and OAuth for the fund MCP server', async () => {
    const res = await app.request('http://127.0.0.1:8787/llms.txt', {}, fakeEnv().env);
    const text = await res.text();
    const lines = text.split('\n').filter((l) => l.includes('/api/mcp`') || l.includes('/api/mcp)'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(line).toMatch(/fund key.*OAuth|OAuth.*fund key/);
  });
});

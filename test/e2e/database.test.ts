/**
 * The Postgres path end to end: the Worker in workerd over real HTTP, with `DATABASE_URL` set and the
 * driver's WebSocket going through the project's proxy to a throwaway database (test/support/database.ts),
 * seeded with a synthetic fund under its own id. A key minted by the real CLI for that fund reads all twelve
 * endpoints and the fund MCP server from the database; the demo key still reads its fixture.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { createTestDatabase, databaseBindings, migrateAndSeed, type TestDatabase } from '../support/database.ts';
import { mintKey, startWorker, type TestWorker } from '../support/worker.ts';
import { fundUrl } from '../support/declared.ts';

const FUND_ID = 'e2e-db-fund';
const persistDir = mkdtempSync(join(tmpdir(), 'fund-edge-db-e2e-'));
let database: TestDatabase;
let worker: TestWorker;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND_ID]);
  key = await mintKey(persistDir, ['--fund', FUND_ID, '--label', 'db e2e']);
  worker = await startWorker(persistDir, databaseBindings(database, FUND_ID));
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await database?.dispose();
  rmSync(persistDir, { recursive: true, force: true });
});

const get = (path: string, k: string) => fetch(`${worker.base}${fundUrl(path)}`, { headers: { authorization: `Bearer ${k}` } });

describe('fund data from Postgres over HTTP', () => {
  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))('%s answers 200 with a schema-valid body', async (path, tool) => {
    const res = await get(tool.tool === 'get_pnl_attribution' ? `${path}?date=2026-10-20` : path, key);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(tool.output.safeParse(await res.json()).success).toBe(true);
  });

  it('serves the fund of the database (its name), not the embedded sample', async () => {
    const body = (await (await get('get_fund_overview', key)).json()) as { name: string };
    expect(body.name).toBe(`${FUND_ID} (synthetic)`);
  });

  it('serves the fund MCP server from the database', async () => {
    const res = await fetch(`${worker.base}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_fee_terms', arguments: {} } }),
    });
    const body = (await res.json()) as { result: { structuredContent: { shareClasses: unknown[] } } };
    expect(res.status).toBe(200);
    expect(body.result.structuredContent.shareClasses).toHaveLength(3);
  });

  it('keeps the demo key on its embedded fixture', async () => {
    const body = (await (await get('get_fund_overview', DEMO_API_KEY)).json()) as { name: string };
    expect(body.name).toMatch(/Northstar/);
  });

  it('answers 503 while the database is out of reach, and recovers', async () => {
    await database.proxy.close();
    const down = await get('get_positions', key);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    const text = await down.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'upstream_unavailable' });
    expect(text).not.toMatch(/marketValue|ECONNREFUSED|WebSocket/);
    await database.restartProxy();
    expect((await get('get_positions', key)).status).toBe(200);
  });
});

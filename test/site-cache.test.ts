/**
 * The pages and files whose text names the service's origin (the home page, the llms files, the MCP registry
 * documents, the REST index) are cached only when PUBLIC_ORIGIN names it. Without it their URLs are the
 * request's own Host, which the client chooses: they are answered `no-store`, so that no cache serves one
 * client's Host to another. Pages that name no origin are cached whatever the configuration.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../lib/service.ts';
import { API_INDEX_PATHS } from '../lib/site/api-index.ts';
import { REGISTRY_PATHS } from '../lib/mcp/server-json.ts';
import { fakeEnv } from './support/fakes.ts';

const app = createApp();
const ORIGIN_PAGES = ['/', '/llms.txt', '/llms-full.txt', REGISTRY_PATHS.public, REGISTRY_PATHS.fund, ...API_INDEX_PATHS];

describe('pages that name the origin', () => {
  it.each(ORIGIN_PAGES)('%s without PUBLIC_ORIGIN: the request host is named, and the answer is no-store', async (path) => {
    const res = await app.request(`http://localhost:8787${path}`, {}, fakeEnv({ PUBLIC_ORIGIN: '' }).env);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('http://localhost:8787');
  });

  it.each(ORIGIN_PAGES)('%s with PUBLIC_ORIGIN: it is named, whatever the Host, and the answer is cached five minutes', async (path) => {
    const res = await app.request(`https://other.example${path}`, {}, fakeEnv({ PUBLIC_ORIGIN: 'https://fund-edge.example.com' }).env);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const text = await res.text();
    expect(text).toContain('https://fund-edge.example.com');
    expect(text).not.toContain('other.example');
  });

  it.each(['/docs', '/site.css', '/docs/init.js'])('%s names no origin and is cached either way', async (path) => {
    for (const PUBLIC_ORIGIN of ['', 'https://fund-edge.example.com']) {
      const res = await app.request(`http://localhost:8787${path}`, {}, fakeEnv({ PUBLIC_ORIGIN }).env);
      expect(res.headers.get('cache-control'), PUBLIC_ORIGIN).toBe('public, max-age=300');
    }
  });
});

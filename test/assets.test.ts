/**
 * lib/assets.ts: how the Worker reads its own static assets and keeps what it makes from them.
 */
import { describe, expect, it } from 'vitest';
import { assetText, keptOnceLoaded } from '../lib/assets.ts';

describe('keptOnceLoaded', () => {
  it('keeps a loaded value, loads again after a failure, and shares no load in progress', async () => {
    let loads = 0;
    let fail = true;
    const get = keptOnceLoaded(async (n: number) => {
      loads++;
      if (fail) throw new Error('not there');
      return n * 2;
    });
    await expect(get(1)).rejects.toThrow('not there');
    fail = false;
    // Two calls before anything is kept: each loads (no promise shared across requests); the first kept wins.
    expect(await Promise.all([get(2), get(3)])).toEqual([4, 4]);
    expect(loads).toBe(3);
    expect(await get(10)).toBe(4);
    expect(loads).toBe(3);
  });
});

describe('assetText', () => {
  it('reads an asset by path through the binding, and refuses a missing binding or asset', async () => {
    const seen: string[] = [];
    const assets = {
      fetch: async (req: Request) => {
        seen.push(new URL(req.url).pathname);
        return req.url.endsWith('/here.txt') ? new Response('text') : new Response('', { status: 404 });
      },
    } as unknown as Fetcher;
    expect(await assetText(assets, '/docs/here.txt', 'The file')).toBe('text');
    await expect(assetText(assets, '/docs/gone.txt', 'The file')).rejects.toThrow('The file answered 404.');
    await expect(assetText(undefined, '/docs/here.txt', 'The file')).rejects.toThrow('The ASSETS binding is missing.');
    expect(seen).toEqual(['/docs/here.txt', '/docs/gone.txt']);
  });
});

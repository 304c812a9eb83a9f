/**
 * The HTTP section's baseline (bench/http.ts): the bare Worker runs under the service's own wrangler
 * settings and static-assets routing, and is requested at a path that routing hands to the Worker first, as
 * every target is, so that the throughput ratios measure our code only. No timing.
 */
import { describe, expect, it } from 'vitest';
import { calcPath } from './support/declared.ts';
import { join } from 'node:path';
import { unstable_readConfig } from 'wrangler';
import { BASELINE_PATH, baselineConfig } from '../bench/http.ts';

/** Whether a run_worker_first pattern (`/api/*`, or an exact path) matches a path. */
const matches = (pattern: string, path: string) => (pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path);

describe('the HTTP baseline', () => {
  const service = unstable_readConfig({ config: join(import.meta.dirname, '..', 'wrangler.toml') });
  const baseline = baselineConfig() as {
    assets: NonNullable<typeof service.assets>;
    compatibility_date: string;
    compatibility_flags: string[];
  };

  it("runs under the service's compatibility settings and static-assets routing, with the same files", () => {
    expect(baseline.compatibility_date).toBe(service.compatibility_date);
    expect(baseline.compatibility_flags).toEqual(service.compatibility_flags);
    expect(baseline.assets.run_worker_first).toEqual(service.assets?.run_worker_first);
    expect(baseline.assets.directory).toBe(join(import.meta.dirname, '..', 'public'));
  });

  it('is requested at a path the routing hands to the Worker first, as the targets are', () => {
    const first = service.assets?.run_worker_first;
    expect(Array.isArray(first) && first.some((p) => matches(p, BASELINE_PATH))).toBe(true);
    expect(Array.isArray(first) && first.some((p) => matches(p, calcPath('fee-calculator')))).toBe(true);
  });
});

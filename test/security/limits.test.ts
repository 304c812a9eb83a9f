/**
 * Every limit has one home, lib/limits.ts (docs/api.md#limits): the code reads it (re-exported where it is
 * enforced), the OpenAPI document states it, and docs/api.md#limits and wrangler.toml's
 * `[[ratelimits]]` must say the same.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as limits from '../../lib/limits.ts';
import { ANONYMOUS_DAILY_CALC_LIMIT, BURST_LIMIT, FUND_BURST_LIMIT } from '../../lib/rate-limit.ts';
import { MAX_BODY_BYTES } from '../../lib/endpoint.ts';
import { MAX_CSV_ROWS } from '../../lib/csv.ts';
import { DEFAULT_KEY_DAILY_CALC_LIMIT } from '../../lib/keys.ts';
import { createApp } from '../../lib/service.ts';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from '../../lib/console/accounts.ts';
import { PLAN_DAILY_CALC_LIMITS } from '../../lib/identity.ts';
import { fakeEnv } from '../support/fakes.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const n = (x: number) => x.toLocaleString('en-US');

describe('limits live in lib/limits.ts', () => {
  it('the enforcing modules re-export the same values', () => {
    expect([ANONYMOUS_DAILY_CALC_LIMIT, BURST_LIMIT, FUND_BURST_LIMIT, MAX_BODY_BYTES, MAX_CSV_ROWS, DEFAULT_KEY_DAILY_CALC_LIMIT]).toEqual(
      [
        limits.ANONYMOUS_DAILY_CALC_LIMIT,
        limits.BURST_LIMIT,
        limits.FUND_BURST_LIMIT,
        limits.MAX_BODY_BYTES,
        limits.MAX_CSV_ROWS,
        limits.DEFAULT_KEY_DAILY_CALC_LIMIT,
      ],
    );
  });

  it("wrangler.toml's burst bindings are the limits", () => {
    const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
    const binding = (name: string) =>
      new RegExp(`name = "${name}"\\s*\\nnamespace_id = "\\d+"\\s*\\nsimple = \\{ limit = (\\d+), period = (\\d+) \\}`).exec(toml);
    expect(binding('CALC_BURST')?.slice(1).map(Number)).toEqual([limits.BURST_LIMIT, limits.BURST_PERIOD_SECONDS]);
    expect(binding('FUND_BURST')?.slice(1).map(Number)).toEqual([limits.FUND_BURST_LIMIT, limits.BURST_PERIOD_SECONDS]);
    // The token endpoint's guard is an action of its own on the console's binding.
    expect(binding('CONSOLE_BURST')?.slice(1).map(Number)).toEqual([limits.OAUTH_TOKEN_BURST_LIMIT, limits.BURST_PERIOD_SECONDS]);
  });

  it('docs/api.md "Limits" states them', () => {
    const page = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
    const table = page.slice(page.indexOf('## Limits'));
    for (const text of [
      `| calculators without a key | ${n(limits.ANONYMOUS_DAILY_CALC_LIMIT)} calls per UTC day`,
      `(default ${n(limits.DEFAULT_KEY_DAILY_CALC_LIMIT)})`,
      `| burst guard | ${limits.BURST_LIMIT} calculator calls per ${limits.BURST_PERIOD_SECONDS} s per caller`,
      `| fund data | ${limits.FUND_BURST_LIMIT} requests per ${limits.BURST_PERIOD_SECONDS} s per key`,
      `| request body | ${limits.MAX_BODY_BYTES / 1024 / 1024} MiB |`,
      `| CSV inputs | ${n(limits.MAX_CSV_ROWS)} data rows |`,
      `| developer console | ${limits.SIGNUPS_PER_NETWORK_PER_DAY} sign-ups per client network per UTC day; ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys per account`,
      `| OAuth endpoints | ${limits.OAUTH_MAX_BODY_BYTES / 1024} KiB bodies, ${limits.OAUTH_MAX_FORM_FIELDS} form fields, ${limits.OAUTH_REGISTRATIONS_PER_NETWORK_PER_DAY} client registrations per client network per UTC day; ${limits.OAUTH_TOKEN_BURST_LIMIT} requests to \`/oauth/token\` per ${limits.BURST_PERIOD_SECONDS} s per client network`,
      `| an MCP batch | at most ${limits.MCP_BATCH_CONCURRENCY} of its \`tools/call\`s run at once`,
    ]) {
      expect(table).toContain(text);
    }
  });

  it('the OpenAPI document states them', async () => {
    const res = await createApp().request('/api/v1/openapi.json', {}, fakeEnv().env);
    const text = await res.text();
    for (const fragment of [
      `per UTC day: ${n(limits.ANONYMOUS_DAILY_CALC_LIMIT)} calls per caller without a key`,
      `free ${n(PLAN_DAILY_CALC_LIMITS.free)}, paid ${n(PLAN_DAILY_CALC_LIMITS.paid)}`,
      `default ${n(limits.DEFAULT_KEY_DAILY_CALC_LIMIT)}`,
      `${limits.BURST_LIMIT} calls per ${limits.BURST_PERIOD_SECONDS} s`,
      `${limits.FUND_BURST_LIMIT} requests per ${limits.BURST_PERIOD_SECONDS} s per key`,
      `request body ${limits.MAX_BODY_BYTES / 1024 / 1024} MiB`,
      `CSV inputs ${limits.MAX_CSV_ROWS} data rows`,
    ]) {
      expect(text).toContain(fragment);
    }
  });
});

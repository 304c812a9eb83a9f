/**
 * A field or query parameter named like a key (`svc_dk_` and 32 letters or digits) is never echoed: its
 * `errors[].pointer` says `[redacted]` in its place, over REST (body and query) and over both MCP servers
 * (tool arguments), as everywhere else a key shape is masked (lib/errors.ts `problemOf`).
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/service.ts';
import { maskKeyShapes } from '../../lib/errors.ts';
import { DEMO_API_KEY } from '../../lib/keys.ts';
import { calcPath, fundPath } from '../support/declared.ts';
import { fakeEnv } from '../support/fakes.ts';
import { FUND, PUBLIC, post, toolProblem, toolResult, toolsCall } from '../mcp/support.ts';

const app = createApp();
/** A key-shaped name, as a client might paste one into the wrong place. */
const KEY_NAME = 'svc_dk_AbCdEfGhIjKlMnOpQrStUvWxYz012345';

interface Problem {
  code: string;
  errors?: { pointer: string; detail: string }[];
}

describe('a key-shaped name is masked in errors[].pointer', () => {
  it('REST body: an unknown field named like a key', async () => {
    const res = await app.request(
      calcPath('fee-calculator'),
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [KEY_NAME]: 1, nested: 2 }) },
      fakeEnv().env,
    );
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toContain(KEY_NAME.slice(7));
    expect((JSON.parse(text) as Problem).errors).toEqual([
      { pointer: '/body/[redacted]', detail: 'is not a known field' },
      { pointer: '/body/nested', detail: 'is not a known field' },
    ]);
  });

  it('REST query: an unknown parameter named like a key, in any case', async () => {
    for (const name of [KEY_NAME, KEY_NAME.toUpperCase()]) {
      const res = await app.request(
        `${fundPath('get_fund_overview')}?${name}=1`,
        { headers: { authorization: `Bearer ${DEMO_API_KEY}` } },
        fakeEnv().env,
      );
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(text.toLowerCase()).not.toContain(KEY_NAME.slice(7).toLowerCase());
      expect((JSON.parse(text) as Problem).errors?.map((e) => e.pointer)).toEqual(['/query/[redacted]']);
    }
  });

  it('MCP: tool arguments named like a key, on the public server', async () => {
    const res = await post(PUBLIC, toolsCall('calc_fee_calculator', { [KEY_NAME]: 1 }));
    const { result, text } = await toolResult(res);
    expect(text).not.toContain(KEY_NAME.slice(7));
    expect(toolProblem(result, res).errors?.map((e) => e.pointer)).toEqual(['/arguments/[redacted]']);
  });

  it('MCP: tool arguments named like a key, on the fund server', async () => {
    const { env, API_KEYS } = fakeEnv();
    const { createKey } = await import('../../lib/keys.ts');
    const { key } = await createKey(API_KEYS, { scope: 'fund', fundId: 'sample-fund', label: 'echo' });
    const res = await post(FUND, toolsCall('get_fund_overview', { [KEY_NAME]: 1 }), { env, auth: `Bearer ${key}` });
    const { result, text } = await toolResult(res);
    expect(text).not.toContain(KEY_NAME.slice(7));
    expect(toolProblem(result, res).errors?.map((e) => e.pointer)).toEqual(['/arguments/[redacted]']);
  });

  it('masks every key shape in a pointer, prefix and secret, back to back too', () => {
    expect(maskKeyShapes('/body/a~1svc_dk_x/SVC_DK_Y1/z')).toBe('/body/a~1[redacted]/[redacted]/z');
    expect(maskKeyShapes(`/body/${'svc_dk_'.repeat(1000)}`)).not.toMatch(/svc_dk_/i);
  });
});

/**
 * The request pipeline through `app.request` with in-memory bindings: problem+json for every kind of bad
 * request on every calculator, 404/405/CORS, and that nothing submitted ever comes back in an error.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createApp } from '../lib/service.ts';
import { DEMO_API_KEY } from '../lib/keys.ts';
import { ROUTES, CALCULATORS } from '../lib/registry.ts';
import type { CalculatorDefinition } from '../lib/calculators/definition.ts';
import type { Endpoint } from '../lib/endpoint.ts';
import { expectProblem } from './support/problems.ts';
import { fakeEnv } from './support/fakes.ts';
import { calcPath } from './support/declared.ts';

const app = createApp();
const IP = { 'cf-connecting-ip': '192.0.2.1' };

function post(path: string, body: BodyInit | null, headers: Record<string, string> = {}, env = fakeEnv().env) {
  return app.request(path, { method: 'POST', headers: { ...IP, ...headers }, body }, env);
}
const postJson = (slug: string, body: unknown, env = fakeEnv().env) =>
  post(calcPath(slug), JSON.stringify(body), { 'content-type': 'application/json' }, env);

/** A value of the wrong JSON type for a field, carrying a marker that must never come back. */
function wrongTypeFor(schema: Record<string, unknown>, marker: string): unknown {
  const types = [schema.type, ...((schema.anyOf as { type?: string }[] | undefined) ?? []).map((s) => s.type)].flat();
  return types.includes('string') ? { [marker]: marker } : marker;
}

describe.each(CALCULATORS.map((c) => [c.path, c] as const))('POST /api/v1/calc/%s', (_path, def: CalculatorDefinition) => {
  const slug = def.slug;
  const inputJson = z.toJSONSchema(def.input, { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };

  it('answers an empty object with the defaults applied and echoed', async () => {
    const res = await postJson(slug, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { inputs: Record<string, unknown>; disclaimer: string };
    const parsed = def.input.parse({});
    expect(body.inputs).toEqual(def.resolve ? def.resolve(parsed) : parsed);
    expect(Object.values(body.inputs)).not.toContain(undefined);
    expect(Object.keys(body.inputs).sort()).toEqual(Object.keys(def.input.shape).sort());
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each(Object.keys(def.input.shape))('rejects a wrong type for %s by pointer, without echoing it', async (field) => {
    const marker = `MARKER_${field}_7f3a`;
    const res = await postJson(slug, { [field]: wrongTypeFor(inputJson.properties[field]!, marker) });
    const { problem } = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: `/body/${field}` }));
    expect(JSON.stringify(problem)).not.toContain(marker);
  });

  const bounded = Object.entries(inputJson.properties).filter(
    ([, s]) =>
      typeof s.maximum === 'number' ||
      typeof s.exclusiveMaximum === 'number' ||
      (s.anyOf as { maximum?: number }[] | undefined)?.some((x) => typeof x.maximum === 'number'),
  );
  it.runIf(bounded.length > 0).each(bounded.map(([f]) => f))('rejects an out-of-range %s', async (field) => {
    const res = await postJson(slug, { [field]: 9.87654321e20 });
    const { problem } = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors!.length).toBeGreaterThan(0);
    for (const e of problem.errors!) expect(e).toEqual({ pointer: `/body/${field}`, detail: expect.stringMatching(/^must be [<≤]/) });
    expect(JSON.stringify(problem)).not.toMatch(/9\.87654321|987654321/);
  });

  it('rejects an unknown field by name, without its value', async () => {
    const res = await postJson(slug, { unknownFieldX: 'VALUE_MARKER_1' });
    const { problem } = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/body/unknownFieldX', detail: 'is not a known field' }]);
    expect(JSON.stringify(problem)).not.toContain('VALUE_MARKER_1');
    // The call was counted, so its answer still says where the quota stands.
    expect(res.headers.get('ratelimit')).toMatch(/^"daily";r=499;t=\d+$/);
  });

  it('rejects malformed JSON, a JSON array and an empty body with malformed_json', async () => {
    for (const body of ['{"horizonYears": 5', '[1,2]', 'null', '']) {
      const res = await post(calcPath(slug), body, { 'content-type': 'application/json' });
      const { problem } = await expectProblem(res, 400, 'malformed_json');
      if (body) expect(problem.detail).not.toContain(body);
    }
  });

  it('rejects a body that is not JSON by content type with 415', async () => {
    await expectProblem(await post(calcPath(slug), '{}', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    await expectProblem(
      await post(calcPath(slug), 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
    await expectProblem(await post(calcPath(slug), new Blob(['{}'])), 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await post(calcPath(slug), '{}', { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
  });

  it('rejects a body over 1 MiB with 413, with or without Content-Length', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
    await expectProblem(await post(calcPath(slug), big, { 'content-type': 'application/json' }), 413, 'payload_too_large');
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 17; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        controller.close();
      },
    });
    const res = await app.request(
      calcPath(slug),
      { method: 'POST', headers: { ...IP, 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit,
      fakeEnv().env,
    );
    await expectProblem(res, 413, 'payload_too_large');
  });

  it('rejects an unknown query parameter', async () => {
    const res = await post(`${calcPath(slug)}?dryRun=SECRETQ`, '{}', { 'content-type': 'application/json' });
    const { problem } = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/query/dryRun', detail: 'is not a known field' }]);
    expect(JSON.stringify(problem)).not.toContain('SECRETQ');
    expect(res.headers.get('ratelimit')).toMatch(/^"daily";r=499;/);
  });

  it('answers GET with 405 and Allow', async () => {
    const res = await app.request(calcPath(slug), { method: 'GET' }, fakeEnv().env);
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('cross-field rules', () => {
  it('refuses year-by-year returns beyond the horizon instead of ignoring them', async () => {
    const { problem } = await expectProblem(
      await postJson('fee-calculator', { horizonYears: 2, annualGrossReturnPctByYear: [5, 6, 7] }),
      400,
      'invalid_request',
    );
    expect(problem.errors).toEqual([{ pointer: '/body/annualGrossReturnPctByYear', detail: 'has more years than horizonYears covers' }]);
    expect((await postJson('fee-calculator', { horizonYears: 2.5, annualGrossReturnPctByYear: [5, 6, 7] })).status).toBe(200);
  });

  it('gives one error for a malformed date and none for its neighbour', async () => {
    const { problem } = await expectProblem(
      await postJson('nav-validator', { periodStart: 'abc', periodEnd: '2026-01-31' }),
      400,
      'invalid_request',
    );
    expect(problem.errors).toEqual([{ pointer: '/body/periodStart', detail: 'must be a date shaped YYYY-MM-DD' }]);
  });

  it('refuses a period that ends before it starts, and one date alone', async () => {
    const { problem: reversed } = await expectProblem(
      await postJson('nav-validator', { periodStart: '2026-02-01', periodEnd: '2026-01-31' }),
      400,
      'invalid_request',
    );
    expect(reversed.errors).toEqual([{ pointer: '/body/periodEnd', detail: 'must not be before periodStart' }]);
    const { problem: alone } = await expectProblem(await postJson('nav-validator', { periodStart: '2026-02-01' }), 400, 'invalid_request');
    expect(alone.errors).toEqual([{ pointer: '/body/periodEnd', detail: 'periodStart and periodEnd must be given together' }]);
  });

  it('reports a bad CSV, found by the calculator rather than its schema, under /body', async () => {
    const { problem } = await expectProblem(await postJson('exposure-analysis', { positionsCsv: 'Asset\nBTC' }), 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/body/positionsCsv', detail: 'header lacks the column Value' }]);
    const { problem: lp } = await expectProblem(await postJson('nav-validator', { lpRowsCsv: 'nope\n1' }), 400, 'invalid_request');
    for (const e of lp.errors!) expect(e.pointer).toBe('/body/lpRowsCsv');
  });
});

describe('resolved inputs', () => {
  it('echoes the initial HWM as the starting NAV when omitted, and as given otherwise', async () => {
    const omitted = (await (await postJson('fee-calculator', { startingNavUsd: 250 })).json()) as { inputs: { initialHwmUsd: number } };
    expect(omitted.inputs.initialHwmUsd).toBe(250);
    const given = (await (await postJson('fee-calculator', { startingNavUsd: 250, initialHwmUsd: 300 })).json()) as {
      inputs: { initialHwmUsd: number };
    };
    expect(given.inputs.initialHwmUsd).toBe(300);
  });

  it('echoes the NAV validator HWM as the opening NAV when omitted', async () => {
    const body = (await (await postJson('nav-validator', { openingNavUsd: 1000 })).json()) as { inputs: { hwmUsd: number } };
    expect(body.inputs.hwmUsd).toBe(1000);
  });
});

describe('pipeline', () => {
  it('answers an unknown path with 404 problem+json and a request id', async () => {
    const res = await app.request('/api/v1/calc/nope', { method: 'POST' }, fakeEnv().env);
    await expectProblem(res, 404, 'not_found');
  });

  it('matches paths strictly: a route with a trailing slash is an unknown path (404), not the route', async () => {
    for (const route of ROUTES) {
      const method = Object.keys(route.endpoint.methods)[0]!;
      const res = await app.request(
        `${route.path}/`,
        {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_API_KEY}` },
          body: method === 'GET' ? null : '{}',
        },
        fakeEnv().env,
      );
      await expectProblem(res, 404, 'not_found');
    }
  });

  it('answers a CORS preflight with 204 and the contract headers, without auth', async () => {
    const res = await app.request(
      calcPath('fee-calculator'),
      {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      },
      fakeEnv().env,
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,accept,mcp-protocol-version,mcp-session-id,last-event-id',
    );
    expect(res.headers.get('access-control-expose-headers')).toBe(
      'x-request-id,ratelimit,ratelimit-policy,retry-after,www-authenticate,mcp-session-id',
    );
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('allows only configured origins when CORS_ORIGINS is set', async () => {
    const { env } = fakeEnv({ CORS_ORIGINS: 'https://app.example, https://other.example' });
    const ok = await app.request('/api/v1/openapi.json', { headers: { origin: 'https://other.example' } }, env);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://other.example');
    const no = await app.request('/api/v1/openapi.json', { headers: { origin: 'https://evil.example' } }, env);
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('gives every response its own request id', async () => {
    const env = fakeEnv().env;
    const a = await app.request('/api/v1/openapi.json', {}, env);
    const b = await app.request('/api/v1/openapi.json', { headers: { 'x-request-id': 'client-chosen' } }, env);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(b.headers.get('x-request-id')).not.toBe('client-chosen');
  });

  it('turns an unexpected exception into a generic 500 without its message or stack', async () => {
    const boom: Endpoint = {
      methods: {
        GET: {
          operationId: 'boom',
          summary: 'boom',
          description: 'boom',
          tags: [],
          auth: 'none',
          problems: [],
          response: { description: 'never', schema: z.object({}) },
          handle: async () => {
            throw new Error('password=hunter2 at db.internal:5432');
          },
        },
      },
    };
    const res = await createApp({ routes: [{ path: '/boom', endpoint: boom }] }).request('/boom', {}, fakeEnv().env);
    const { problem } = await expectProblem(res, 500, 'internal_error');
    const text = JSON.stringify(problem);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('5432');
    expect(text).not.toMatch(/at .*\.ts/);
  });

  it('rejects an unknown query parameter on the OpenAPI document', async () => {
    const res = await app.request('/api/v1/openapi.json?format=yaml', {}, fakeEnv().env);
    const { problem } = await expectProblem(res, 400, 'invalid_request');
    expect(problem.errors).toEqual([{ pointer: '/query/format', detail: 'is not a known field' }]);
  });

  it('serves HEAD for GET endpoints and lists it in Allow', async () => {
    const env = fakeEnv().env;
    const head = await app.request('/api/v1/openapi.json', { method: 'HEAD' }, env);
    expect(head.status).toBe(200);
    const post405 = await app.request('/api/v1/openapi.json', { method: 'POST' }, env);
    expect(post405.status).toBe(405);
    expect(post405.headers.get('allow')).toBe('GET, HEAD');
  });
});

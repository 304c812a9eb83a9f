/** The generated OpenAPI 3.1 document: valid against the OAS 3.1 schema, and in step with the schemas. */
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApp } from '../lib/app.ts';
import { jsonSchema, problemBodySchema } from '../lib/openapi.ts';
import { ROUTES } from '../lib/routes.ts';
import { CALCULATORS } from '../lib/calculators/index.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { fakeEnv } from './support/fakes.ts';

type Doc = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, any>> };

async function fetchDoc(): Promise<Doc> {
  const res = await createApp().request('http://api.example/api/v1/openapi.json', {}, fakeEnv().env);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Doc;
}

describe('OpenAPI document', () => {
  it('validates against the OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(await fetchDoc());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route with every method, and the serving origin', async () => {
    const doc = await fetchDoc();
    expect(doc.openapi).toBe('3.1.0');
    // Not the request's Host (README#configuration): the configured PUBLIC_ORIGIN, else relative.
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(doc.paths).sort()).toEqual(ROUTES.map((r) => r.path).sort());
    for (const r of ROUTES) {
      for (const m of Object.keys(r.endpoint.methods)) expect(doc.paths[r.path]).toHaveProperty(m.toLowerCase());
    }
  });

  it.each(CALCULATORS.map((c) => [c.path, c] as const))('describes %s from its declaration', async (slug, def) => {
    const op = (await fetchDoc()).paths[`/api/v1/calc/${slug}`]!.post;
    const body = op.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(def.input.shape).sort());
    expect(body.additionalProperties).toBe(false);
    expect(body.required ?? []).toEqual([]);
    const result = op.responses['200'].content['application/json'].schema;
    expect(Object.keys(result.properties)).toEqual(expect.arrayContaining([...Object.keys(def.output.shape), 'inputs', 'disclaimer']));
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '404', '405', '413', '415', '429', '500']);
    expect(op.responses['429'].headers).toHaveProperty('Retry-After');
    expect(op.operationId).toBe(toolName(def).replace(/_(\w)/g, (_: string, ch: string) => ch.toUpperCase()));
  });
});

describe('the Problem component', () => {
  it('is the JSON Schema of the zod schema that the bodies the app answers parse with', async () => {
    const env = fakeEnv().env;
    const bad = await createApp().request(
      'http://api.example/api/v1/calc/fee-calculator',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"horizonYears":"x"}' },
      env,
    );
    const missing = await createApp().request('http://api.example/api/v1/nope', {}, env);
    for (const res of [bad, missing]) expect(problemBodySchema.strict().safeParse(await res.json()).success).toBe(true);
    const doc = (await (await createApp().request('http://api.example/api/v1/openapi.json', {}, env)).json()) as {
      components: { schemas: { Problem: unknown } };
    };
    expect(doc.components.schemas.Problem).toEqual(jsonSchema(problemBodySchema, 'output'));
  });
});

/**
 * The generated OpenAPI 3.1 document: valid against the OAS 3.1 schema, in step with the schemas, and
 * served from the text precomputed at build time (the static asset `/docs/openapi.template.json`), which
 * must equal the document the declarations produce now.
 */
import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createApp } from '../lib/service.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSchema, openApiDocument, openApiTemplateText, problemBodySchema } from '../lib/openapi.ts';
import { OPENAPI_TEMPLATE_PATH, SERVER_URL_MARK, openApiJson } from '../lib/openapi-json.ts';
import { CALCULATORS, ROUTES } from '../lib/registry.ts';
import { RESPONSE_EXAMPLES } from '../lib/generated/examples.ts';
import { toolName } from '../lib/calculators/definition.ts';
import { fakeEnv } from './support/fakes.ts';
import { calcPath, fundPath } from './support/declared.ts';

type Doc = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, any>> & { schemas: Record<string, any>; requestBodies: Record<string, any> };
};

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
    // Not the request's Host (docs/configuration.md#variables-and-secrets): the configured PUBLIC_ORIGIN, else relative.
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(doc.paths).sort()).toEqual(ROUTES.map((r) => r.path).sort());
    for (const r of ROUTES) {
      for (const m of Object.keys(r.endpoint.methods)) expect(doc.paths[r.path]).toHaveProperty(m.toLowerCase());
    }
  });

  it.each(CALCULATORS.map((c) => [c.path, c] as const))('describes %s from its declaration', async (slug, def) => {
    const doc = await fetchDoc();
    const op = doc.paths[`/api/v1/calc/${slug}`]!.post;
    const name = def.slug.replace(/(?:^|-)(\w)/g, (_: string, ch: string) => ch.toUpperCase());
    expect(op.requestBody).toEqual({ $ref: `#/components/requestBodies/${name}Request` });
    expect(op.responses['200'].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${name}Result` });
    const body = doc.components.requestBodies[`${name}Request`].content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(Object.keys(def.input.shape).sort());
    expect(body.additionalProperties).toBe(false);
    expect(body.required ?? []).toEqual([]);
    const result = doc.components.schemas[`${name}Result`];
    expect(Object.keys(result.properties)).toEqual(expect.arrayContaining([...Object.keys(def.output.shape), 'inputs', 'disclaimer']));
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '404', '405', '413', '415', '429', '500']);
    expect(op.responses['429'].headers).toHaveProperty('Retry-After');
    expect(op.operationId).toBe(toolName(def).replace(/_(\w)/g, (_: string, ch: string) => ch.toUpperCase()));
  });
});

describe('named component schemas', () => {
  it('every request body and 200 JSON result is a $ref to a component of the document, each component used', async () => {
    const doc = await fetchDoc();
    const used = new Set<string>(['#/components/schemas/Problem']);
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        if (typeof op !== 'object') continue;
        const refs = [op.responses['200'].content['application/json'].schema];
        if (op.requestBody) refs.push(op.requestBody);
        for (const ref of refs) {
          expect(Object.keys(ref)).toEqual(['$ref']);
          const [section, name] = ref.$ref.replace('#/components/', '').split('/');
          expect(doc.components[section], ref.$ref).toHaveProperty(name);
          used.add(ref.$ref);
        }
      }
    }
    const declared = ['schemas', 'requestBodies'].flatMap((section) =>
      Object.keys(doc.components[section]!).map((name) => `#/components/${section}/${name}`),
    );
    expect(declared.sort()).toEqual([...used].sort());
  });

  it('describes request bodies as a client may send them and results as the service sends them', async () => {
    const doc = await fetchDoc();
    // Input mode: a field with a default is optional, and the default is shown; a request body is not a
    // schema component, which generators would read as "always present".
    const fee = doc.components.requestBodies.FeeCalculatorRequest.content['application/json'].schema;
    expect(fee.required ?? []).toEqual([]);
    expect(fee.properties.horizonYears.default).toBe(5);
    expect(Object.keys(doc.components.schemas).filter((name) => name.endsWith('Request'))).toEqual([]);
    // Output mode: what the service always sends is required.
    const result = doc.components.schemas.FeeCalculatorResult;
    expect(result.required).toEqual(expect.arrayContaining(['totalFeesUsd', 'inputs', 'disclaimer']));
    expect(result.properties.inputs.required).toEqual(expect.arrayContaining(['horizonYears', 'hurdlePct']));
  });

  it('names types as clients should see them', async () => {
    const { components } = await fetchDoc();
    for (const name of ['FeeCalculatorResult', 'FundOverview', 'ValueAtRisk', 'ExposureSeries', 'OpenApiDocument']) {
      expect(components.schemas, name).toHaveProperty(name);
    }
    expect(components.requestBodies).toHaveProperty('FeeCalculatorRequest');
    expect(components.schemas.FundOverview.type).toBe('object');
  });

  it('refuses two different schemas under one name', () => {
    const op = ROUTES.find((r) => r.path === fundPath('get_fund_overview'))!.endpoint.methods.GET!;
    const other = ROUTES.find((r) => r.path === fundPath('get_positions'))!.endpoint.methods.GET!;
    const clash = [
      { path: '/a', endpoint: { methods: { GET: op } } },
      { path: '/b', endpoint: { methods: { GET: { ...other, schemaNames: { response: 'FundOverview' } } } } },
    ] as unknown as typeof ROUTES;
    expect(() => openApiDocument(clash, '/', RESPONSE_EXAMPLES)).toThrow(
      'Two different schemas are named FundOverview in the OpenAPI components.',
    );
  });
});

describe('the Problem component', () => {
  it('is the JSON Schema of the zod schema that the bodies the app answers parse with', async () => {
    const env = fakeEnv().env;
    const bad = await createApp().request(
      `http://api.example${calcPath('fee-calculator')}`,
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

describe('the precomputed document', () => {
  const template = () => readFileSync(join(process.cwd(), 'public', OPENAPI_TEMPLATE_PATH), 'utf8');

  it('is the one the declarations produce now (a stale public/docs/openapi.template.json fails here)', () => {
    expect(template()).toBe(openApiTemplateText(ROUTES, RESPONSE_EXAMPLES));
  });

  it.each(['/', 'https://fund-edge.example.com', 'http://127.0.0.1:8787'])('is served byte for byte as generated, server %s', (server) => {
    expect(openApiJson(template(), server)).toBe(JSON.stringify(openApiDocument(ROUTES, server, RESPONSE_EXAMPLES)));
  });

  it('with the configured PUBLIC_ORIGIN as its server', async () => {
    const origin = 'https://fund-edge.example.com';
    const res = await createApp().request(`${origin}/api/v1/openapi.json`, {}, fakeEnv({ PUBLIC_ORIGIN: origin }).env);
    expect(await res.text()).toBe(JSON.stringify(openApiDocument(ROUTES, origin, RESPONSE_EXAMPLES)));
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('refuses to cut a document whose declarations quote the server URL mark, and a template without it', () => {
    const op = ROUTES.find((r) => r.path === fundPath('get_fund_overview'))!.endpoint.methods.GET!;
    const quoting = [{ path: '/a', endpoint: { methods: { GET: { ...op, description: SERVER_URL_MARK } } } }] as unknown as typeof ROUTES;
    expect(() => openApiTemplateText(quoting, RESPONSE_EXAMPLES)).toThrow('The OpenAPI document holds its server URL elsewhere');
    expect(() => openApiJson('{}', '/')).toThrow('The OpenAPI template does not hold its server URL three times.');
  });
});

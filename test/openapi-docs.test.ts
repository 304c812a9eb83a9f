/**
 * The OpenAPI document as its consumers read it: Redocly's `recommended-strict` ruleset (plus declared tags
 * and a contact) reports nothing, every operation carries examples from its declaration, and every example
 * validates against its schema (both the zod declaration and, through Redocly's
 * `no-invalid-media-type-examples`, the published JSON Schema).
 */
import { describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { openApiDocument } from '../lib/openapi.ts';
import { ROUTES, CALCULATORS, FUND_TOOLS } from '../lib/registry.ts';
import { runCalculator } from '../lib/calculators/definition.ts';
import { fundEndpoint } from '../lib/fund/endpoint.ts';
import { calculatorEndpoint } from '../lib/calculators/endpoint.ts';
import { RESPONSE_EXAMPLES } from '../lib/generated/examples.ts';
import { queryStringSchema } from '../lib/validation.ts';
import { calcPath } from './support/declared.ts';

type Json = Record<string, any>;
const ORIGIN = 'https://fund-edge.example';
const doc = () => structuredClone(openApiDocument(ROUTES, ORIGIN, RESPONSE_EXAMPLES)) as Json;

/** Lint problems of a document under recommended-strict and the rules this project adds. */
async function lint(document: Json) {
  const config = await createConfig({
    extends: ['recommended-strict'],
    rules: {
      'info-contact': 'error',
      'operation-tag-defined': 'error',
      'tag-description': 'error',
      'no-invalid-media-type-examples': 'error',
      'no-invalid-parameter-examples': 'error',
    },
  });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
}

const operations = (d: Json) =>
  Object.entries(d.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([m]) => m === 'get' || m === 'post')
      .map(([method, op]) => ({ path, method, op: op as Json })),
  );

describe('OpenAPI lint (Redocly recommended-strict)', () => {
  it('reports no error and no warning', async () => {
    expect(await lint(doc())).toEqual([]);
  }, 60_000);

  it('would report an undeclared tag, a missing contact and an example that breaks its schema', async () => {
    const broken = doc();
    broken.tags = broken.tags.filter((t: Json) => t.name !== 'MCP');
    delete broken.info.contact;
    const feeBody = broken.paths[calcPath('fee-calculator')].post.requestBody.$ref.replace('#/components/requestBodies/', '');
    broken.components.requestBodies[feeBody].content['application/json'].examples.typical.value = { horizonYears: 'five' };
    const problems = (await lint(broken)).join('\n');
    expect(problems).toMatch(/operation-tag-defined/);
    expect(problems).toMatch(/info-contact/);
    expect(problems).toMatch(/no-invalid-media-type-examples/);
  }, 60_000);
});

describe('OpenAPI completeness', () => {
  it('declares every tag it uses, a contact, external docs and the server', () => {
    const d = doc();
    const declared = new Set((d.tags as Json[]).map((t) => t.name));
    for (const { op } of operations(d)) for (const tag of op.tags) expect(declared).toContain(tag);
    expect(d.info.contact.url).toBe(`${ORIGIN}/`);
    expect(d.externalDocs.url).toBe(`${ORIGIN}/llms-full.txt`);
    expect(d.servers).toEqual([{ url: ORIGIN }]);
  });

  it('documents the MCP answers: batches, 202 for notifications, and SSE besides JSON', () => {
    for (const path of ['/api/mcp', '/api/mcp/public']) {
      const op = doc().paths[path].post;
      expect(op.responses['202']).toBeDefined();
      expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/json', 'text/event-stream']);
      // A batch (array) in, an array of responses out.
      const schemaOf = (ref: Json) => doc().components.schemas[ref.$ref.replace('#/components/schemas/', '')];
      const body = doc().components.requestBodies[op.requestBody.$ref.replace('#/components/requestBodies/', '')];
      expect(body.content['application/json'].schema.anyOf.map((s: Json) => s.type)).toEqual(['object', 'array']);
      expect(schemaOf(op.responses['200'].content['application/json'].schema).anyOf.map((s: Json) => s.type)).toEqual(['object', 'array']);
    }
  });

  it('documents both RateLimit policies, daily and burst', () => {
    const headers = doc().components.headers;
    for (const name of ['RateLimit', 'RateLimit-Policy']) {
      expect(headers[name].description).toMatch(/"daily"/);
      expect(headers[name].description).toMatch(/"burst"/);
    }
  });
});

describe('examples', () => {
  it('every calculator and fund operation shows a request and a response example', () => {
    for (const { path, op } of operations(doc())) {
      if (!path.startsWith('/api/v1/calc/') && !path.startsWith('/api/v1/fund/')) continue;
      expect(op.responses['200'].content['application/json'].examples?.typical?.value, path).toBeDefined();
      if (path.startsWith('/api/v1/calc/')) {
        const body = doc().components.requestBodies[op.requestBody.$ref.replace('#/components/requestBodies/', '')];
        expect(body.content['application/json'].examples.typical.value, path).toBeDefined();
      }
    }
  });

  it.each(CALCULATORS.map((c) => [c.slug, c] as const))(
    '%s: the request example parses and the response example is its result',
    (_slug, def) => {
      const inputs = def.input.parse(def.example);
      const operationId = calculatorEndpoint(def).methods.POST!.operationId;
      const published = RESPONSE_EXAMPLES[operationId];
      expect(published).toBeDefined();
      // Published arrays are shortened to three items; everything else is the handler's answer.
      const full = runCalculator(def, inputs) as Json;
      for (const [key, value] of Object.entries(published as Json)) {
        if (!Array.isArray(value)) expect((full as Json)[key], key).toEqual(value);
      }
    },
  );

  it.each(FUND_TOOLS.map((t) => [t.path, t] as const))('fund %s: the query example and the response example validate', (_path, def) => {
    queryStringSchema(def.query).parse(def.example);
    const operationId = fundEndpoint(def).methods.GET!.operationId;
    const published = RESPONSE_EXAMPLES[operationId];
    expect(published).toBeDefined();
    expect(() => def.output.parse(published)).not.toThrow();
  });
});

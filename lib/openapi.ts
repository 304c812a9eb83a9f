/**
 * The OpenAPI 3.1 document, generated from the route table: every operation's query parameters, request
 * body and result come from the zod schemas the endpoints validate with (zod's JSON Schema 2020-12 output,
 * which OpenAPI 3.1 uses as its schema dialect), and its problem responses from {@link PROBLEMS}.
 */
import * as z from 'zod';
import { PROBLEMS, problemType, type ProblemCode } from './errors.ts';
import { allowedMethods, type Operation, type Route } from './endpoint.ts';
import { ANONYMOUS_DAILY_CALC_LIMIT } from './rate-limit.ts';
import { DEFAULT_KEY_DAILY_CALC_LIMIT } from './keys.ts';
import { MAX_CSV_ROWS } from './csv.ts';

/** Loose schema of the document itself (for the endpoint's own response declaration). */
export const openApiDocumentSchema = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.');

type JsonObject = Record<string, unknown>;

/** JSON Schema (2020-12) of a zod schema, as seen by a client sending it (`input`) or receiving it (`output`). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Never holds a stack trace, a dependency message, SQL, a key or a submitted value.',
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', description: '`/problems/<code>`' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(PROBLEMS) },
    requestId: { type: 'string', description: 'Same as the X-Request-Id header.' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pointer', 'detail'],
        properties: {
          pointer: { type: 'string', description: 'RFC 6901 JSON pointer, e.g. `/body/horizonYears` or `/query/days`.' },
          detail: { type: 'string', description: 'The rule that failed (never the submitted value).' },
        },
      },
    },
  },
};

const headerRefs = {
  requestId: { $ref: '#/components/headers/X-Request-Id' },
  policy: { $ref: '#/components/headers/RateLimit-Policy' },
  rateLimit: { $ref: '#/components/headers/RateLimit' },
};

function problemResponses(codes: ProblemCode[]): JsonObject {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of [...new Set<ProblemCode>([...codes, 'not_found', 'method_not_allowed', 'internal_error'])]) {
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: JsonObject = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: JsonObject = { 'X-Request-Id': headerRefs.requestId };
    if (status === 401) headers['WWW-Authenticate'] = { schema: { type: 'string' }, description: 'Bearer challenge (RFC 6750).' };
    if (status === 405) headers.Allow = { schema: { type: 'string' }, description: 'Methods the path accepts.' };
    if (status === 429 || status === 503) headers['Retry-After'] = { schema: { type: 'integer' }, description: 'Seconds to wait.' };
    if (status === 429) Object.assign(headers, { 'RateLimit-Policy': headerRefs.policy, RateLimit: headerRefs.rateLimit });
    out[String(status)] = {
      description: list.map((code) => `\`${code}\` (${problemType(code)}): ${PROBLEMS[code].title}`).join('; '),
      headers,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return out;
}

function operationObject(op: Operation): JsonObject {
  const query = op.query ? jsonSchema(op.query, 'input') : { properties: {}, required: [] };
  const required = new Set((query.required as string[] | undefined) ?? []);
  const parameters = Object.entries((query.properties as Record<string, JsonObject>) ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    description: schema.description,
    schema,
  }));
  const successHeaders: JsonObject = { 'X-Request-Id': headerRefs.requestId };
  if (op.auth === 'required') successHeaders['Cache-Control'] = { schema: { type: 'string', const: 'private, no-store' } };
  if (op.response.rateLimited) Object.assign(successHeaders, { 'RateLimit-Policy': headerRefs.policy, RateLimit: headerRefs.rateLimit });
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: op.tags,
    security: op.auth === 'none' ? [] : op.auth === 'optional' ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } } }
      : {}),
    responses: {
      '200': {
        description: op.response.description,
        headers: successHeaders,
        content: { 'application/json': { schema: jsonSchema(op.response.schema, 'output') } },
      },
      ...problemResponses(op.problems),
    },
  };
}

const cache = new WeakMap<readonly Route[], JsonObject>();

/**
 * The OpenAPI 3.1 document of a route table (built once per table, then reused).
 * @param origin the service's origin, listed as the server
 */
export function openApiDocument(routes: readonly Route[], origin: string): JsonObject {
  let doc = cache.get(routes);
  if (!doc) {
    const paths: JsonObject = {};
    for (const route of routes) {
      const item: JsonObject = {};
      for (const [method, op] of Object.entries(route.endpoint.methods)) item[method.toLowerCase()] = operationObject(op);
      item.description = `Allow: ${allowedMethods(route).join(', ')}`;
      paths[route.path] = item;
    }
    doc = {
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
      info: {
        title: 'fund-edge API',
        version: '1.0.0',
        description: [
          'Fund data, calculators and MCP servers. Calculators are stateless and illustrative: results are estimates, not accounting, tax or investment advice.',
          `Calculator quota: ${ANONYMOUS_DAILY_CALC_LIMIT} calls per UTC day per caller without a key (caller = CF-Connecting-IP, IPv6 by /64), or the key's dailyCalcLimit (default ${DEFAULT_KEY_DAILY_CALC_LIMIT}) with \`Authorization: Bearer svc_dk_...\`; a burst guard allows 60 calls per 60 s.`,
          `Limits: request body 1 MiB; CSV inputs ${MAX_CSV_ROWS} data rows. Unknown body fields and query parameters are rejected with 400.`,
          'Fund data (`/api/v1/fund/`) needs `Authorization: Bearer svc_dk_...`; money and quantities are exact decimal strings in the fund\'s base currency, percentages JSON numbers in percent units (4 dp).',
          'Errors are RFC 9457 application/problem+json with a stable `code`.',
        ].join('\n\n'),
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      tags: [
        {
          name: 'Fund data',
          description:
            "Read-only GET endpoints over one fund's shadow NAV, reconciled against the administrator. A key is required: a `fund` key of this fund, or the published demo key, which reads a synthetic fund; a `calc` key is refused with 403 `insufficient_scope`. Money and quantities are decimal strings; every response is redacted, fail-closed (500 redaction_failed and no data when it cannot be proven clean); paper-trading holdings never appear. Limit: 120 requests per 60 s per key.",
        },
        { name: 'Calculators', description: 'Stateless POST calculators; no key needed. A key from the developer console (`/developers/console`) raises the daily quota to its account plan limit.' },
        { name: 'Meta', description: 'Describes the API.' },
      ],
      paths,
      components: {
        schemas: { Problem: problemSchema },
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A developer key `svc_dk_<32 base62>`, minted in the developer console at `/developers/console`. Scopes: `calc` (raises the calculator quota to the account plan limit; 403 `insufficient_scope` on fund data and the fund MCP server), `fund` (reads the fund it was minted for, and raises the calculator quota), `demo` (the published demo key: the synthetic fund over REST only).',
          },
        },
        headers: {
          'X-Request-Id': { schema: { type: 'string' }, description: 'Id of this request, also in problem bodies.' },
          'RateLimit-Policy': { schema: { type: 'string' }, description: '`"daily";q=<limit>;w=86400`' },
          RateLimit: { schema: { type: 'string' }, description: '`"daily";r=<remaining>;t=<seconds to next UTC midnight>`' },
        },
      },
    };
    cache.set(routes, doc);
  }
  return { ...doc, servers: [{ url: origin }] };
}

/**
 * The OpenAPI 3.1 document, generated from the route table at build time (`scripts/build-docs.ts` publishes
 * its JSON text as a static asset; the endpoint serves that text through lib/openapi-json.ts): every operation's query parameters, request
 * body and result come from the zod schemas the endpoints validate with (zod's JSON Schema 2020-12 output,
 * which OpenAPI 3.1 uses as its schema dialect), and its problem responses from {@link PROBLEMS}. Examples:
 * the request example is the one the declaration carries; the response example was computed from it at build
 * time and is handed in (`scripts/build-docs.ts`, keyed by operationId). Request bodies are named
 * request body components (`components.requestBodies`, in zod's input mode) and results named component
 * schemas (`components.schemas`, output mode), names from each declaration's `schemaNames`, referenced with
 * `$ref` from the operations, so generated clients get named types (docs/documentation.md).
 */
import * as z from 'zod';
import { PROBLEMS, problemType, type ProblemCode } from './errors.ts';
import { allowedMethods, pascalCase, type Operation, type Route } from './endpoint.ts';
import {
  ANONYMOUS_DAILY_CALC_LIMIT,
  BURST_LIMIT,
  BURST_PERIOD_SECONDS,
  DEFAULT_KEY_DAILY_CALC_LIMIT,
  FUND_BURST_LIMIT,
  MAX_BODY_BYTES,
  MAX_CSV_ROWS,
} from './limits.ts';
import { jsonSchema } from './json-schema.ts';
import { SERVER_URL_MARK } from './openapi-json.ts';
import { AUTHORIZATION_SERVER_WELL_KNOWN, AUTHORIZE_PATH, FUND_READ_SCOPE, REGISTER_PATH, TOKEN_PATH } from './oauth/provider.ts';
import { PLAN_DAILY_CALC_LIMITS } from './identity.ts';

export { openApiDocumentSchema } from './openapi-json.ts';

type JsonObject = Record<string, unknown>;

export { jsonSchema } from './json-schema.ts';

/**
 * RFC 9457 problem details as the service writes them (`problemOf` in lib/errors.ts), declared once in zod;
 * the OpenAPI component is its JSON Schema.
 */
export const problemBodySchema = z
  .object({
    type: z.string().describe('`/problems/<code>`'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]]),
    requestId: z.string().describe('Same as the X-Request-Id header.'),
    errors: z
      .array(
        z.object({
          pointer: z.string().describe('RFC 6901 JSON pointer, e.g. `/body/horizonYears` or `/query/days`.'),
          detail: z.string().describe('The rule that failed (never the submitted value).'),
        }),
      )
      .optional(),
  })
  .describe('RFC 9457 problem details. Never holds a stack trace, a dependency message, SQL, a key or a submitted value.');

const problemSchema = jsonSchema(problemBodySchema, 'output');

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

/** The named components operations refer to: result schemas, and request bodies (see {@link operationObject}). */
interface Components {
  schemas: JsonObject;
  requestBodies: JsonObject;
}

/**
 * Registers a named component (a schema, or a request body) and returns the `$ref` to it. One name, one
 * component: a name declared twice with different contents is a declaration error.
 * @throws {Error} at document build time, when two operations give one name different contents
 */
function componentRef(components: Components, section: keyof Components, name: string, value: JsonObject): JsonObject {
  const known = components[section][name];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(value)) {
    throw new Error(`Two different ${section === 'schemas' ? 'schemas' : 'request bodies'} are named ${name} in the OpenAPI components.`);
  }
  components[section][name] = value;
  return { $ref: `#/components/${section}/${name}` };
}

/** The component names of an operation's request body and result (declared, or from its operationId). */
function schemaNamesOf(op: Operation): { body: string; response: string } {
  const base = pascalCase(op.operationId);
  return { body: op.schemaNames?.body ?? `${base}Request`, response: op.schemaNames?.response ?? `${base}Response` };
}

/** The response example of each operation, by operationId (computed at build time by running its handler on its request example). */
export type ResponseExamples = Readonly<Record<string, unknown>>;

/**
 * One operation. Its request body is described as a client may send it (zod's input mode: a field with a
 * default is optional, its `default` shown) and is a named *request body* component
 * (`components.requestBodies`), not a schema: generators read a `default` in a schema component as "the
 * server always fills this in" and type the field as required (openapi-typescript's default
 * `defaultNonNullable`), which is true of a result and false of a request. Results are output-mode schema
 * components (`components.schemas`): every field the service always sends is required.
 */
function operationObject(op: Operation, components: Components, examples: ResponseExamples): JsonObject {
  const names = schemaNamesOf(op);
  const query = op.query ? jsonSchema(op.query, 'input') : { properties: {}, required: [] };
  const required = new Set((query.required as string[] | undefined) ?? []);
  const queryExample = op.query && isRecord(op.example) ? op.example : {};
  const parameters = Object.entries((query.properties as Record<string, JsonObject>) ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    description: schema.description,
    schema,
    ...(name in queryExample ? { example: coerceLike(schema, queryExample[name]) } : {}),
  }));
  const responseExample = examples[op.operationId];
  const isMcp = op.tags.includes('MCP');
  const successHeaders: JsonObject = { 'X-Request-Id': headerRefs.requestId };
  if (op.auth === 'required') successHeaders['Cache-Control'] = { schema: { type: 'string', const: 'private, no-store' } };
  if (op.response.rateLimited) Object.assign(successHeaders, { 'RateLimit-Policy': headerRefs.policy, RateLimit: headerRefs.rateLimit });
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: op.tags,
    security: securityOf(op),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: componentRef(components, 'requestBodies', names.body, {
            required: true,
            content: {
              'application/json': {
                schema: jsonSchema(op.body, 'input'),
                ...(op.example !== undefined ? { examples: { typical: { summary: 'A typical request', value: op.example } } } : {}),
              },
            },
          }),
        }
      : {}),
    responses: {
      '200': {
        description: op.response.description,
        headers: successHeaders,
        content: {
          'application/json': {
            schema: componentRef(components, 'schemas', names.response, jsonSchema(op.response.schema, 'output')),
            ...(responseExample !== undefined
              ? { examples: { typical: { summary: 'The answer to the typical request', value: responseExample } } }
              : {}),
          },
          // MCP Streamable HTTP: a client whose Accept lists only text/event-stream gets the answer as SSE.
          ...(isMcp
            ? {
                'text/event-stream': {
                  schema: { type: 'string', description: 'One `message` event per JSON-RPC response, then the stream ends.' },
                },
              }
            : {}),
        },
      },
      ...(isMcp
        ? {
            '202': {
              description: 'The body held only notifications (or responses): accepted, no body.',
              headers: { 'X-Request-Id': headerRefs.requestId },
            },
          }
        : {}),
      ...problemResponses(op.problems),
    },
  };
}

/** The object with its members in name order. */
function sortedByName(o: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A query example (always a string in a URL) typed as its parameter's schema says (`"7"` → 7 for integers). */
function coerceLike(schema: JsonObject, value: unknown): unknown {
  const numeric =
    schema.type === 'number' || schema.type === 'integer' || (Array.isArray(schema.enum) && typeof schema.enum[0] === 'number');
  return numeric && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
}

/**
 * An operation's security requirements: none; optionally a key; a key; or (where the service's OAuth
 * access tokens are accepted, {@link Operation.oauthScopes}) a key or a token with those scopes.
 */
function securityOf(op: Operation): JsonObject[] {
  if (op.auth === 'none') return [];
  const schemes: JsonObject[] = [{ bearerAuth: [] }, ...(op.oauthScopes ? [{ oauth2: [...op.oauthScopes] }] : [])];
  return op.auth === 'optional' ? [{}, ...schemes] : schemes;
}

/**
 * The cached document with its server, contact (the home page) and external docs (llms-full.txt) under
 * `serverUrl`: an origin, or `/` (then the links are relative to wherever the document was fetched).
 */
function withServer(doc: JsonObject, serverUrl: string): JsonObject {
  const base = serverUrl === '/' ? '' : serverUrl;
  return {
    ...doc,
    info: { ...(doc.info as JsonObject), contact: { name: 'fund-edge documentation', url: `${base}/` } },
    externalDocs: { description: 'Quick starts and the full reference in Markdown (llms-full.txt).', url: `${base}/llms-full.txt` },
    servers: [{ url: serverUrl }],
  };
}

/** A count as a reader writes it (1,000). */
const n = (x: number) => x.toLocaleString('en-US');
/** The console's plans and their daily calculator limits, from the configuration: `free 1,000, paid 100,000`. */
const plans = Object.entries(PLAN_DAILY_CALC_LIMITS)
  .map(([plan, limit]) => `${plan} ${n(limit)}`)
  .join(', ');

const cache = new WeakMap<readonly Route[], WeakMap<ResponseExamples, JsonObject>>();

/**
 * The OpenAPI 3.1 document of a route table (built once per table and examples, then reused).
 * @param serverUrl the server to list: the configured `PUBLIC_ORIGIN`, else `/` (relative: the origin the
 *   document was fetched from, OpenAPI 3.1 §4.8.5). Never the request's `Host`, which a shared cache would
 *   otherwise store and serve to everyone.
 * @param examples the operations' response examples (an operation without one is published without one)
 */
export function openApiDocument(routes: readonly Route[], serverUrl: string, examples: ResponseExamples): JsonObject {
  let byExamples = cache.get(routes);
  if (!byExamples) {
    byExamples = new WeakMap();
    cache.set(routes, byExamples);
  }
  let doc = byExamples.get(examples);
  if (!doc) {
    const paths: JsonObject = {};
    const components: Components = { schemas: { Problem: problemSchema }, requestBodies: {} };
    for (const route of routes) {
      const item: JsonObject = {};
      for (const [method, op] of Object.entries(route.endpoint.methods))
        item[method.toLowerCase()] = operationObject(op, components, examples);
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
          `Calculator quota, per UTC day: ${n(ANONYMOUS_DAILY_CALC_LIMIT)} calls per caller without a key (caller = CF-Connecting-IP, IPv6 by /64); with a key from the developer console (\`Authorization: Bearer svc_dk_...\`), the account's plan, all its keys together: ${plans}; with a key the operator's CLI minted, the key's own limit (default ${n(DEFAULT_KEY_DAILY_CALC_LIMIT)}). A call refused for its input (400, 415, or 413 for a CSV over its row cap) counts; one refused for its key (401), its quota (429) or a body over 1 MiB (413) does not. A burst guard allows ${BURST_LIMIT} calls per ${BURST_PERIOD_SECONDS} s.`,
          `Limits: request body ${MAX_BODY_BYTES / 1024 / 1024} MiB; CSV inputs ${MAX_CSV_ROWS} data rows. Unknown body fields and query parameters are rejected with 400.`,
          "Fund data (`/api/v1/fund/`) needs `Authorization: Bearer svc_dk_...` or an OAuth access token of this service with `fund:read` (`oauth2`); money and quantities are exact decimal strings in the fund's base currency, percentages JSON numbers in percent units (4 dp).",
          'Errors are RFC 9457 application/problem+json with a stable `code`.',
        ].join('\n\n'),
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      tags: [
        {
          name: 'Fund data',
          description: `Read-only GET endpoints over one fund's shadow NAV, reconciled against the administrator. A credential is required: a \`fund\` key of this fund, the published demo key, which reads a synthetic fund, or an OAuth access token of this service with \`${FUND_READ_SCOPE}\` (\`oauth2\`) of an account with this fund; a \`calc\` key is refused with 403 \`insufficient_scope\`. Money and quantities are decimal strings; every response is redacted, fail-closed (500 redaction_failed and no data when it cannot be proven clean); paper-trading holdings never appear. Limit: ${FUND_BURST_LIMIT} requests per ${BURST_PERIOD_SECONDS} s per key (per account and application for a token).`,
        },
        {
          name: 'Calculators',
          description:
            'Stateless POST calculators; no key needed. A key from the developer console (`/developers/console`) raises the daily quota to its account plan limit.',
        },
        {
          name: 'MCP',
          description:
            'Model Context Protocol servers (Streamable HTTP, stateless, JSON-RPC 2.0 over POST): the public server (calculators and `search_docs`, no key) and the fund server (fund-data tools, a fund key or an OAuth access token). Both speak MCP 2026-07-28 and the 2025 revisions.',
        },
        { name: 'Meta', description: 'Describes the API.' },
      ],
      paths,
      components: {
        schemas: sortedByName(components.schemas),
        requestBodies: sortedByName(components.requestBodies),
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A developer key `svc_dk_<32 base62>`, minted in the developer console at `/developers/console`. Scopes: `calc` (raises the calculator quota to the account plan limit; 403 `insufficient_scope` on fund data and the fund MCP server), `fund` (reads the fund it was minted for, and raises the calculator quota), `demo` (the published demo key: the synthetic fund over REST only).',
          },
          oauth2: {
            type: 'oauth2',
            description: `The service is its own OAuth 2.1 authorization server (metadata at \`${AUTHORIZATION_SERVER_WELL_KNOWN}\`): the authorization code flow with PKCE S256, public clients registered dynamically (\`${REGISTER_PATH}\`), the authorization page the developer console's (sign in with a passkey; locally on \`localhost\`, not \`127.0.0.1\`). An access token with \`${FUND_READ_SCOPE}\` reads the fund data and the fund MCP server of the deployment it was issued for, as a fund key of its account would (same burst limit), and stops when its application is revoked. Sent as \`Authorization: Bearer <access token>\`.`,
            flows: {
              authorizationCode: {
                authorizationUrl: AUTHORIZE_PATH,
                tokenUrl: TOKEN_PATH,
                refreshUrl: TOKEN_PATH,
                scopes: { [FUND_READ_SCOPE]: "Read this fund's data (read-only)." },
              },
            },
          },
        },
        headers: {
          'X-Request-Id': { schema: { type: 'string' }, description: 'Id of this request, also in problem bodies.' },
          'RateLimit-Policy': {
            schema: { type: 'string' },
            description:
              'The policy the numbers refer to (IETF RateLimit headers). Daily calculator quota: `"daily";q=<limit>;w=86400`. A refusal by a burst guard (60 calculator calls or 120 fund-data requests per 60 s): `"burst";q=<limit>;w=60`.',
          },
          RateLimit: {
            schema: { type: 'string' },
            description:
              'What is left of that policy. Daily: `"daily";r=<remaining>;t=<seconds to the next UTC midnight>`. Burst refusal: `"burst";r=0;t=60`.',
          },
        },
      },
    };
    byExamples.set(examples, doc);
  }
  return withServer(doc, serverUrl);
}

/**
 * The document's JSON text with {@link SERVER_URL_MARK} as its server URL: the template the endpoint
 * serves (build time: `OPENAPI_TEMPLATE_PATH` among the static assets, filled in by `openApiJson` in
 * lib/openapi-json.ts).
 * @throws {Error} when the mark does not occur exactly three times, in contact, externalDocs and servers (a
 *   declaration quoting it, or a change to `withServer` that lib/openapi-json.ts does not know)
 */
export function openApiTemplateText(routes: readonly Route[], examples: ResponseExamples): string {
  const text = JSON.stringify(openApiDocument(routes, SERVER_URL_MARK, examples));
  const parts = text.split(SERVER_URL_MARK);
  if (
    parts.length !== 4 ||
    !parts[1]!.startsWith('/"') ||
    !parts[2]!.startsWith('/llms-full.txt"') ||
    !parts[2]!.endsWith('"servers":[{"url":"')
  ) {
    throw new Error('The OpenAPI document holds its server URL elsewhere than in contact, externalDocs and servers.');
  }
  return text;
}

/**
 * Endpoints: the shape every file under `functions/` exports, and the shared request steps they use
 * (query validation, JSON body reading, the calculator endpoint built from a calculator declaration).
 *
 * One declaration feeds three surfaces: {@link Operation} carries the schemas the OpenAPI document is
 * generated from, and the handler the REST route runs.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { ApiError, MalformedJsonError, UnsupportedMediaTypeError, type ProblemCode } from './errors.ts';
import type { AppEnv } from './env.ts';
import { authenticate } from './keys.ts';
import { calcCaller, consumeCalcQuota, deferOf, rateLimitHeaders, type Clock, type Defer } from './rate-limit.ts';
import { atLocation, parseInput, queryStringSchema } from './validation.ts';
import { resultSchema, runCalculator, toolName, type CalculatorDefinition } from './calculators/definition.ts';
import type { FundToolDefinition } from './fund/definition.ts';

/** The largest request body accepted (lib/limits.ts), re-exported where the pipeline reads it. */
export { MAX_BODY_BYTES } from './limits.ts';

/** An operationId from a tool or server name: `calc_fee_calculator` → `calcFeeCalculator`, `fund-edge-x` → `fundEdgeX`. */
export function operationIdOf(name: string): string {
  return name.replace(/[-_](\w)/g, (_, ch: string) => ch.toUpperCase());
}

/** PascalCase of a tool, slug or operationId: `fee-calculator` → `FeeCalculator`, `fund_overview` → `FundOverview`. */
export function pascalCase(name: string): string {
  const camel = operationIdOf(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** HTTP methods endpoints declare (HEAD and OPTIONS are derived). */
export type Method = 'GET' | 'POST';

/** What a handler gets besides Hono's context. */
export interface RequestContext {
  clock: Clock;
  /** The route table, for endpoints that describe the API (OpenAPI). */
  routes: readonly Route[];
}

/** One method of an endpoint, with everything the OpenAPI document says about it. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** `optional`: a key may be sent (it raises the calculator limit); `required`: 401 without one. */
  auth: 'none' | 'optional' | 'required';
  /** Strict query schema; the default accepts no parameters. */
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A typical request: the JSON body (with `body`) or the query parameters (with `query`); see `docs/api.md`. */
  example?: unknown;
  response: { description: string; schema: z.ZodType; rateLimited?: boolean };
  /**
   * Names of the OpenAPI component schemas (`components.schemas`) of the request body and the result, so
   * generated clients get named types (e.g. `FeeCalculatorRequest`, `FeeCalculatorResult`, `FundOverview`).
   * Default: the operationId in PascalCase with `Request` / `Response` appended.
   */
  schemaNames?: { body?: string; response?: string };
  /** Problem codes this operation can answer, beyond 404/405/500 which any path can. */
  problems: ProblemCode[];
  handle: (c: Context<AppEnv>, ctx: RequestContext) => Promise<Response>;
}

/**
 * What every file under `functions/` exports as default: its operations by method, and the declaration it
 * serves, if any (the generated lists `lib/calculators/index.ts` and `lib/fund/tools/index.ts` read it).
 */
export interface Endpoint {
  methods: Partial<Record<Method, Operation>>;
  calculator?: CalculatorDefinition;
  fundTool?: FundToolDefinition;
}

/** A route: a URL path and the endpoint of the file that mirrors it. */
export interface Route {
  path: string;
  endpoint: Endpoint;
}

/**
 * Methods a path serves, as listed in `Allow` (RFC 9110 §10.2.1): its own, and HEAD with GET. OPTIONS is
 * answered too, as the CORS preflight, but is not a method of the resource (docs/api.md#errors: 405 with `Allow: POST`).
 */
export function allowedMethods(route: Route): string[] {
  const own = Object.keys(route.endpoint.methods) as Method[];
  return [...own, ...(own.includes('GET') ? ['HEAD'] : [])];
}

/**
 * Validates the query string against a strict schema (no schema: no parameters allowed); number fields
 * are read by the decimal grammar of {@link queryStringSchema}.
 * @throws {ValidationError} naming each unknown or invalid parameter as `/query/<name>`
 */
export function parseQuery<S extends z.ZodObject>(c: Context<AppEnv>, schema: S | undefined): z.output<S> {
  return parseInput(schema ? queryStringSchema(schema) : NO_PARAMETERS, queryParams(c), 'query') as z.output<S>;
}

/**
 * The query schema of an operation that takes no parameters. Built once: a zod schema made per request
 * cost a calculator call about a tenth of its time (construction, and zod compiling its parser on first use).
 */
const NO_PARAMETERS = z.strictObject({});

/** The query string as an object; a repeated parameter becomes an array (which scalar schemas reject). */
export function queryParams(c: Context<AppEnv>): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  // No `?`: no parameters, without parsing the URL (most calls).
  if (!c.req.url.includes('?')) return params;
  for (const [name, value] of new URL(c.req.url).searchParams) {
    const prior = params[name];
    params[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  return params;
}

/** True for `application/json` and `application/*+json` media types (parameters such as charset allowed). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** True for a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a JSON object body. The 1 MiB cap is enforced before this by Hono's body-limit middleware.
 * @throws {UnsupportedMediaTypeError} 415 when the Content-Type is not JSON
 * @throws {MalformedJsonError} 400 when the body is not JSON or not an object
 */
export async function readJsonObject(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(c.req.header('content-type'))) throw new UnsupportedMediaTypeError();
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError(
      text.trim() === '' ? 'The request body is empty; send {} for every default.' : 'The request body is not valid JSON.',
    );
  }
  if (!isJsonObject(value)) throw new MalformedJsonError();
  return value;
}

/** A 200 JSON response with the given headers and `Cache-Control: no-store`. */
export function jsonResponse(body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

/**
 * Runs one calculator call the way every surface does: optional key → daily quota → input validation →
 * pure calculator. Shared by the REST endpoint and the public MCP tool.
 * @returns the result and the RateLimit headers to send
 * @throws {UnauthorizedError} a key was sent but is not valid (uncounted)
 * @throws {RateLimitedError} quota or burst exceeded
 * @throws {ValidationError} the arguments fail the input schema or a CSV check
 */
export async function callCalculator(
  def: CalculatorDefinition,
  env: AppEnv['Bindings'],
  request: { authorization: string | undefined; connectingIp: string | undefined; now: Date; defer?: Defer },
  readArguments: () => Promise<unknown>,
): Promise<{ result: unknown; headers: Record<string, string> }> {
  const principal = await authenticate(request.authorization, env.API_KEYS, env.CONSOLE);
  const quota = await consumeCalcQuota(env, calcCaller(principal, request.connectingIp), request.now, 1, request.defer);
  const headers = rateLimitHeaders(quota);
  try {
    const inputs = parseInput(def.input, await readArguments(), 'body');
    return { result: atLocation('body', () => runCalculator(def, inputs)), headers };
  } catch (err) {
    // The call was counted, so its error answer reports the quota too.
    if (err instanceof ApiError) Object.assign(err.headers, headers);
    throw err;
  }
}

/** The REST endpoint of a calculator: `POST /api/v1/calc/<slug>`, JSON in and out. */
export function calculatorEndpoint<I extends z.ZodObject, O extends z.ZodObject>(declared: CalculatorDefinition<I, O>): Endpoint {
  // Widened: every call parses with `def.input` before `def.run`.
  const def = declared as unknown as CalculatorDefinition;
  return {
    calculator: def,
    methods: {
      POST: {
        operationId: operationIdOf(toolName(def)),
        summary: def.title,
        description: def.description,
        tags: ['Calculators'],
        auth: 'optional',
        body: def.input,
        example: def.example,
        response: { description: `${def.title} result.`, schema: resultSchema(def), rateLimited: true },
        schemaNames: { body: `${pascalCase(def.slug)}Request`, response: `${pascalCase(def.slug)}Result` },
        problems: ['invalid_request', 'malformed_json', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
        async handle(c, ctx) {
          const { result, headers } = await callCalculator(
            def,
            c.env,
            {
              authorization: c.req.header('authorization'),
              connectingIp: c.req.header('cf-connecting-ip'),
              now: ctx.clock(),
              defer: deferOf(c),
            },
            () => {
              parseQuery(c, undefined);
              return readJsonObject(c);
            },
          );
          return jsonResponse(result, headers);
        },
      },
    },
  };
}

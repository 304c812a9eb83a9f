/**
 * Endpoints: the shape every file under `functions/` exports, what the composition root hands each request
 * ({@link RequestContext}), and the shared request steps endpoints use (query validation, JSON body reading).
 * Each kind of endpoint is made by a factory beside its declaration: `calculatorEndpoint`
 * (lib/calculators/endpoint.ts), `fundEndpoint` (lib/fund/endpoint.ts), `mcpEndpoint` (lib/mcp/endpoint.ts).
 *
 * One declaration feeds three surfaces: {@link Operation} carries the schemas the OpenAPI document is
 * generated from, and the handler the REST route runs.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { MalformedJsonError, UnsupportedMediaTypeError, type ProblemCode } from './errors.ts';
import type { AppEnv, Env } from './env.ts';
import type { Access, TokenVerifier } from './auth.ts';
import type { Clock } from './rate-limit.ts';
import { lazy, parseInput, queryStringSchema } from './validation.ts';
import { requestText } from './body.ts';

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

/**
 * What the composition root (lib/registry.ts) hands every endpoint: the declarations the route table was
 * generated from, and what the build made of them. The calculators and fund tools (`calculators`,
 * `fundTools`) are added by lib/catalog.ts, above the layers that declare them, so that this module, below
 * them, imports none.
 */
export interface Catalog {
  /** Every route, in path order (the files under `functions/`). */
  routes: readonly Route[];
  /** The MCP servers' `tools/list` entries as JSON text, computed at build time (lib/mcp/definitions.ts). */
  toolDefinitions: { public: string; fund: string };
  /** The fingerprint each embedded fund's build-time asset must carry, by fund id (scripts/build-fund.ts). */
  fundAssetFingerprints: Readonly<Record<string, string>>;
}

/** What a handler gets besides Hono's context. */
export interface RequestContext {
  clock: Clock;
  catalog: Catalog;
  /** The authentication step's dependencies in a Worker environment (lib/auth.ts). */
  access(env: Env): Access;
  /**
   * The verifier of this service's OAuth access tokens for a request (lib/oauth/resource.ts), for the
   * credential steps of the surfaces that take them (fund data, the fund MCP server).
   */
  tokens(c: Context<AppEnv>): TokenVerifier;
}

/**
 * One step of a route group's pipeline (credential, scope, quota): middleware run before an operation's
 * `handle`, in the order its endpoint lists them. A step reads the request, hands what it found to the
 * later steps and the handler ({@link requestSlot}), and calls `next` for the rest of the pipeline, whose
 * answer it may change (the quota's headers) or follow (releasing a connection once the answer is sent).
 * @throws {ApiError} its refusal, rendered as problem+json by the app's error handler
 */
export type Step = (c: Context<AppEnv>, ctx: RequestContext, next: () => Promise<Response>) => Promise<Response>;

/** Runs an operation: its steps in order, then its handler (lib/service.ts mounts every route through it). */
export function runOperation(op: Operation, c: Context<AppEnv>, ctx: RequestContext): Promise<Response> {
  const steps = op.steps ?? [];
  const at = (i: number): Promise<Response> => (i < steps.length ? steps[i]!(c, ctx, () => at(i + 1)) : op.handle(c, ctx));
  return at(0);
}

/**
 * A value one request's steps hand its later steps and handler (the caller's principal, its fund source),
 * kept for that request only: keyed by its Hono context, never shared with another request.
 * @param what what the slot holds, named in the error of a handler mounted without the step that fills it
 */
export function requestSlot<T>(what: string): { set(c: Context<AppEnv>, value: T): void; get(c: Context<AppEnv>): T } {
  const values = new WeakMap<Context<AppEnv>, { value: T }>();
  return {
    set: (c, value) => void values.set(c, { value }),
    get: (c) => {
      const held = values.get(c);
      if (!held) throw new Error(`No step set ${what} for this request.`);
      return held.value;
    },
  };
}

/** Promises that settle when a request's answer has been sent in full (an SSE body ends after its Response is returned). */
const SENDING = new WeakMap<Context<AppEnv>, Promise<unknown>[]>();

/** Says the request's answer is still being sent until `sending` settles (the MCP servers' SSE bodies). */
export function stillSending(c: Context<AppEnv>, sending: Promise<unknown>): void {
  const list = SENDING.get(c);
  if (list) list.push(sending);
  else SENDING.set(c, [sending]);
}

/** Settles once every {@link stillSending} promise of the request has (at once when there is none). */
export function answerSent(c: Context<AppEnv>): Promise<unknown> {
  return Promise.allSettled(SENDING.get(c) ?? []);
}

/** One method of an endpoint, with everything the OpenAPI document says about it. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** `optional`: a key may be sent (it raises the calculator limit); `required`: 401 without one. */
  auth: 'none' | 'optional' | 'required';
  /** The scopes an OAuth access token of this service needs here, where one is accepted beside a key (fund data). */
  oauthScopes?: readonly string[];
  /** Strict query schema; the default accepts no parameters. */
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A typical request: the JSON body (with `body`) or the query parameters (with `query`); see `docs/api.md`. */
  example?: unknown;
  response: { description: string; schema: z.ZodType; rateLimited?: boolean };
  /**
   * Names of the OpenAPI components of the request body (`components.requestBodies`) and the result
   * (`components.schemas`), so generated clients get named types (e.g. `FeeCalculatorRequest`,
   * `FeeCalculatorResult`, `FundOverview`).
   * Default: the operationId in PascalCase with `Request` / `Response` appended.
   */
  schemaNames?: { body?: string; response?: string };
  /** Problem codes this operation can answer, beyond 404/405/500 which any path can. */
  problems: ProblemCode[];
  /** The route group's steps (credential, scope, quota: {@link Step}), run in order before {@link Operation.handle}. */
  steps?: readonly Step[];
  handle: (c: Context<AppEnv>, ctx: RequestContext) => Promise<Response>;
}

/**
 * What every file under `functions/` exports as default: its operations by method. A calculator's or fund
 * tool's file serves one declaration, which `npm run build` finds in the file (scripts/build-routes.ts).
 */
export interface Endpoint {
  methods: Partial<Record<Method, Operation>>;
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
  const params = queryParams(c);
  // No schema and no parameter (every calculator call): nothing to check, nothing to refuse.
  if (!schema && Object.keys(params).length === 0) return {} as z.output<S>;
  return parseInput(schema ? queryStringSchema(schema) : NO_PARAMETERS(), params, 'query') as z.output<S>;
}

/**
 * The query schema of an operation that takes no parameters, built on first use (a query string sent to
 * one), once: a zod schema made per request cost a calculator call about a tenth of its time.
 */
const NO_PARAMETERS = lazy(() => z.strictObject({}));

/**
 * The query string as an object; a repeated parameter becomes an array (which scalar schemas reject). Each
 * name is an own member, `__proto__` included (an assignment would set the prototype instead), so the strict
 * schema refuses it as it refuses any unknown name, as the MCP tools do (lib/mcp/dispatch.ts).
 */
export function queryParams(c: Context<AppEnv>): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  // No `?`: no parameters, without parsing the URL (most calls).
  if (!c.req.url.includes('?')) return params;
  for (const [name, value] of new URL(c.req.url).searchParams) {
    const prior = Object.hasOwn(params, name) ? params[name] : undefined;
    const next = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
    Object.defineProperty(params, name, { value: next, enumerable: true, writable: true, configurable: true });
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
 * Reads a JSON object body. The 1 MiB cap is enforced before this by the pipeline (lib/body.ts `limitBody`).
 * @throws {UnsupportedMediaTypeError} 415 when the Content-Type is not JSON
 * @throws {MalformedJsonError} 400 when the body is not JSON or not an object
 * @throws {IncompleteBodyError} 400 when the client hung up before sending the whole body (not logged)
 */
export async function readJsonObject(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(c.req.header('content-type'))) throw new UnsupportedMediaTypeError();
  const text = await requestText(c);
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

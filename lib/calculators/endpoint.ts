/**
 * Calculators as a request kind (docs/calculators.md): the REST endpoint of a calculator, `POST
 * /api/v1/calc/<path>`, and the steps of the calculator route group, which the public MCP server runs too
 * (lib/mcp/public-server.ts): credential ({@link calcCredential}: no key, or a valid one, which raises the
 * quota) → quota ({@link calcQuota}: the daily quota and the burst guard, per request here and per tool call
 * on MCP, {@link chargeCalcCalls}) → the one handler, {@link calculatorCall}.
 */
import type * as z from 'zod';
import type { Context } from 'hono';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../env.ts';
import { authenticate } from '../auth.ts';
import type { Principal } from '../keys.ts';
import { calcCaller, consumeCalcQuota, deferOf, rateLimitHeaders } from '../rate-limit.ts';
import { atLocation, lazy, parseInput, type InputLocation } from '../validation.ts';
import { jsonResponse, operationIdOf, parseQuery, pascalCase, readJsonObject, requestSlot, type Endpoint, type Step } from '../endpoint.ts';
import { resultSchema, runCalculator, toolName, type CalculatorDefinition } from './definition.ts';

/** The caller of a calculator route: a key's principal, or null for none (set by a credential step). */
export const CALC_PRINCIPAL = requestSlot<Principal | null>('the calculator caller');

/**
 * The REST credential step: no key, or a valid key through the one authentication step.
 * @throws {UnauthorizedError} 401 for a key that was sent and is not valid (nothing is counted)
 */
export const calcCredential: Step = async (c, ctx, next) => {
  CALC_PRINCIPAL.set(c, await authenticate(c.req.header('authorization'), ctx.access(c.env)));
  return next();
};

/**
 * Charges `calls` calculator calls against the caller's daily quota and burst guard (docs/api.md#limits).
 * @returns the RateLimit headers to send
 * @throws {RateLimitedError} 429 when the quota or the burst guard is spent
 */
export async function chargeCalcCalls(
  c: Context<AppEnv>,
  principal: Principal | null,
  calls: number,
  now: Date,
): Promise<Record<string, string>> {
  const caller = calcCaller(principal, c.req.header('cf-connecting-ip'));
  return rateLimitHeaders(await consumeCalcQuota(c.env, caller, now, calls, deferOf(c)));
}

/**
 * The REST quota step: one call per request, its RateLimit headers on the answer, an error answer after it
 * included (the call was counted).
 */
export const calcQuota: Step = async (c, ctx, next) => {
  const headers = await chargeCalcCalls(c, CALC_PRINCIPAL.get(c), 1, ctx.clock());
  let response: Response;
  try {
    response = await next();
  } catch (err) {
    if (err instanceof ApiError) Object.assign(err.headers, headers);
    throw err;
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
};

/** The steps of the REST calculator route group, in order. */
export const CALC_STEPS: readonly Step[] = [calcCredential, calcQuota];

/**
 * The one handler of a calculator call, for REST and the public MCP server: the arguments parsed by the
 * calculator's input schema, then the pure calculator.
 * @param location where the arguments are: `body` (REST) or `arguments` (MCP), the root of error pointers
 * @returns the result, `{ ...output, inputs, disclaimer }`
 * @throws {ValidationError} 400 when the arguments fail the input schema or a CSV check
 */
export function calculatorCall(def: CalculatorDefinition, args: unknown, location: InputLocation): Record<string, unknown> {
  const inputs = parseInput(def.input, args, location);
  return atLocation(location, () => runCalculator(def, inputs)) as Record<string, unknown>;
}

/** The REST endpoint of a calculator: `POST /api/v1/calc/<slug>`, JSON in and out. */
export function calculatorEndpoint<I extends z.ZodObject, O extends z.ZodObject>(declared: CalculatorDefinition<I, O>): Endpoint {
  // Widened: every call parses with `def.input` before `def.run`.
  const def = declared as unknown as CalculatorDefinition;
  // The schemas are read when the OpenAPI document and the tool definitions are built (at build time), not
  // when the Worker starts: getters, built on first read.
  const result = lazy(() => resultSchema(def));
  return {
    methods: {
      POST: {
        operationId: operationIdOf(toolName(def)),
        summary: def.title,
        description: def.description,
        tags: ['Calculators'],
        auth: 'optional',
        get body() {
          return def.input;
        },
        example: def.example,
        response: {
          description: `${def.title} result.`,
          get schema() {
            return result();
          },
          rateLimited: true,
        },
        schemaNames: { body: `${pascalCase(def.slug)}Request`, response: `${pascalCase(def.slug)}Result` },
        problems: ['invalid_request', 'malformed_json', 'unauthorized', 'payload_too_large', 'unsupported_media_type', 'rate_limited'],
        steps: CALC_STEPS,
        async handle(c) {
          parseQuery(c, undefined);
          return jsonResponse(calculatorCall(def, await readJsonObject(c), 'body'));
        },
      },
    },
  };
}

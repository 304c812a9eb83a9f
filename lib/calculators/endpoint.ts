/**
 * The REST endpoint of a calculator (`POST /api/v1/calc/<path>`, docs/calculators.md): optional key → daily
 * quota → input validation → pure calculator. The public MCP server runs the same steps per batch of tool
 * calls (lib/mcp/public-server.ts), through the same authentication step and quota.
 */
import type * as z from 'zod';
import { ApiError } from '../errors.ts';
import type { AppEnv } from '../env.ts';
import { authenticate, type Access } from '../auth.ts';
import { calcCaller, consumeCalcQuota, deferOf, rateLimitHeaders, type Defer } from '../rate-limit.ts';
import { atLocation, lazy, parseInput } from '../validation.ts';
import { jsonResponse, operationIdOf, parseQuery, pascalCase, readJsonObject, type Endpoint } from '../endpoint.ts';
import { resultSchema, runCalculator, toolName, type CalculatorDefinition } from './definition.ts';

/**
 * Runs one REST calculator call: optional key (lib/auth.ts) → daily quota → input validation → pure
 * calculator.
 * @returns the result and the RateLimit headers to send
 * @throws {UnauthorizedError} a key was sent but is not valid (uncounted)
 * @throws {RateLimitedError} quota or burst exceeded
 * @throws {ValidationError} the arguments fail the input schema or a CSV check
 */
export async function callCalculator(
  def: CalculatorDefinition,
  env: AppEnv['Bindings'],
  request: { authorization: string | undefined; connectingIp: string | undefined; now: Date; defer?: Defer; access: Access },
  readArguments: () => Promise<unknown>,
): Promise<{ result: unknown; headers: Record<string, string> }> {
  const principal = await authenticate(request.authorization, request.access);
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
        async handle(c, ctx) {
          const { result, headers } = await callCalculator(
            def,
            c.env,
            {
              authorization: c.req.header('authorization'),
              connectingIp: c.req.header('cf-connecting-ip'),
              now: ctx.clock(),
              defer: deferOf(c),
              access: ctx.access(c.env),
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

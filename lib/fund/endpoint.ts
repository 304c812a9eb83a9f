/**
 * Fund data as a request kind (docs/api.md): the REST endpoint of a fund-data tool, `GET /api/v1/fund/<path>`,
 * and the steps of the fund route group, which the fund MCP server runs too (lib/mcp/fund-server.ts):
 *
 * credential ({@link fundCredential}: a fund key or this service's OAuth access token; the MCP server has its
 * own, which words refusals for MCP clients) → scope ({@link fundScope}: which store and fund the principal
 * reads, 403 otherwise) → quota ({@link fundQuota}: the fund-data burst limit, per request here and per
 * tool call on MCP) → the one handler, {@link fundCall}.
 */
import type * as z from 'zod';
import type { Context } from 'hono';
import { UnauthorizedError } from '../errors.ts';
import type { AppEnv } from '../env.ts';
import { FUND_READ_SCOPE, authenticate } from '../auth.ts';
import { DEMO_API_KEY, type Principal } from '../keys.ts';
import { CONSOLE_PATH } from '../identity.ts';
import { consumeFundBurst } from '../rate-limit.ts';
import { answerSent, operationIdOf, pascalCase, queryParams, requestSlot, type Endpoint, type Step } from '../endpoint.ts';
import { FUND_PROBLEMS, callFundTool, type FundToolDefinition } from './definition.ts';
import { fundSource, releaseAfterResponse, type FundSource } from './source.ts';

/** The admitted caller of a fund route: its principal (set by a credential step). */
export const FUND_PRINCIPAL = requestSlot<Principal>('the fund caller');
/** The store and fund the caller reads (set by {@link fundScope}). */
export const FUND_SOURCE = requestSlot<FundSource>('the fund source');

/**
 * The detail of the 401 of a fund-data request without a credential: the three ways in, the published demo
 * key first (a newcomer's), and where a fund key comes from (the developer console's path).
 */
export const FUND_NO_CREDENTIAL_DETAIL = `Fund data needs a credential, sent as "Authorization: Bearer <credential>": the published demo key ${DEMO_API_KEY} reads a synthetic fund; a fund key, minted in the developer console (${CONSOLE_PATH}) once the fund's operator has invited you, or an OAuth access token of this service reads the fund.`;

/**
 * The REST credential step: a fund key (the demo key included) or one of this service's OAuth access tokens
 * with `fund:read` for this deployment (lib/oauth/resource.ts), through the one authentication step.
 * @throws {UnauthorizedError} 401 without a credential, or for a key or token that is not valid
 * @throws {ApiError} 403 for a token without `fund:read` or of an account without the fund
 */
export const fundCredential: Step = async (c, ctx, next) => {
  const principal = await authenticate(c.req.header('authorization'), { ...ctx.access(c.env), token: ctx.tokens(c) });
  if (!principal) throw new UnauthorizedError(FUND_NO_CREDENTIAL_DETAIL, false);
  FUND_PRINCIPAL.set(c, principal);
  return next();
};

/**
 * The scope step: the store and fund the principal reads (lib/fund/source.ts), released once the answer has
 * been sent in full (after an SSE body: {@link answerSent}).
 * @throws {InsufficientScopeError} 403 for a calc key or a key of another fund
 */
export const fundScope: Step = async (c, ctx, next) => {
  const source = fundSource(FUND_PRINCIPAL.get(c), c.get('config'), {
    binding: c.env.ASSETS,
    fingerprints: ctx.catalog.fundAssetFingerprints,
  });
  FUND_SOURCE.set(c, source);
  try {
    return await next();
  } finally {
    releaseAfterResponse(c, source, answerSent(c));
  }
};

/**
 * Charges `calls` fund-data calls against the caller's burst limit (120 per 60 s per key, account and
 * client, or for the demo key per client network).
 * @throws {RateLimitedError} 429 once the limit is spent
 */
export async function chargeFundCalls(c: Context<AppEnv>, principal: Principal, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await consumeFundBurst(c.env, principal, c.req.header('cf-connecting-ip'));
}

/** The REST quota step: one call per request ({@link chargeFundCalls}). */
export const fundQuota: Step = async (c, _ctx, next) => {
  await chargeFundCalls(c, FUND_PRINCIPAL.get(c), 1);
  return next();
};

/** The steps of the REST fund route group, in order. */
export const FUND_STEPS: readonly Step[] = [fundCredential, fundScope, fundQuota];

/**
 * The one handler of a fund-data call, for REST and the fund MCP server: the arguments parsed by the tool's
 * query schema, the analytic run on the caller's source, the answer redacted (lib/fund/definition.ts).
 * @param location where arguments are: `query` (REST) or `arguments` (MCP), the root of error pointers
 * @returns the redacted JSON text of the answer
 * @throws {ApiError} 400 for invalid arguments, 404 / 503 for missing or unavailable data
 */
export function fundCall(def: FundToolDefinition, c: Context<AppEnv>, args: unknown, location: 'query' | 'arguments'): Promise<string> {
  return callFundTool(def, FUND_SOURCE.get(c), c.get('config'), args, location);
}

/**
 * The REST endpoint of a fund tool: `GET /api/v1/fund/<path>` with a Bearer key or access token, through
 * {@link FUND_STEPS}. Responses are `Cache-Control: private, no-store`.
 */
export function fundEndpoint<Q extends z.ZodObject, O extends z.ZodType>(declared: FundToolDefinition<Q, O>): Endpoint {
  // Widened: every call parses with `def.query` before `def.run`.
  const def = declared as unknown as FundToolDefinition;
  return {
    methods: {
      GET: {
        operationId: operationIdOf(def.tool),
        summary: def.title,
        description: def.description,
        tags: ['Fund data'],
        auth: 'required',
        oauthScopes: [FUND_READ_SCOPE],
        // Getters: the declaration builds its schemas on first read (lib/fund/definition.ts), not at startup.
        get query() {
          return def.query;
        },
        example: def.example,
        response: {
          description: `${def.title}, redacted.`,
          get schema() {
            return def.output;
          },
        },
        // `get_fund_overview` → `FundOverview`.
        schemaNames: { response: pascalCase(def.tool.replace(/^get_/, '')) },
        problems: [...FUND_PROBLEMS, ...def.problems],
        steps: FUND_STEPS,
        async handle(c) {
          const body = await fundCall(def, c, queryParams(c), 'query');
          return new Response(body, {
            headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' },
          });
        },
      },
    },
  };
}

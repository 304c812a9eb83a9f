/** The REST endpoint of a fund-data tool: `GET /api/v1/fund/<path>` with a Bearer key (docs/api.md). */
import type * as z from 'zod';
import type { Context } from 'hono';
import { UnauthorizedError } from '../errors.ts';
import type { AppEnv } from '../env.ts';
import { authenticate } from '../auth.ts';
import { consumeFundBurst } from '../rate-limit.ts';
import { operationIdOf, pascalCase, queryParams, type Endpoint } from '../endpoint.ts';
import { FUND_PROBLEMS, callFundTool, type FundToolDefinition } from './definition.ts';
import { fundSource, releaseAfterResponse } from './source.ts';

/**
 * The REST endpoint of a fund tool: `GET /api/v1/fund/<path>` with a Bearer key. Order: key (401) → scope
 * (403) → burst guard (429) → query (400) → data. Responses are `Cache-Control: private, no-store`.
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
        async handle(c: Context<AppEnv>, ctx) {
          const principal = await authenticate(c.req.header('authorization'), ctx.access(c.env));
          if (!principal) throw new UnauthorizedError('Fund data needs a key: send "Authorization: Bearer svc_dk_...".', false);
          const source = fundSource(principal, c.get('config'), { binding: c.env.ASSETS, fingerprints: ctx.catalog.fundAssetFingerprints });
          await consumeFundBurst(c.env, principal, c.req.header('cf-connecting-ip'));
          let body: string;
          try {
            body = await callFundTool(def, source, c.get('config'), queryParams(c));
          } finally {
            releaseAfterResponse(c, source);
          }
          return new Response(body, {
            headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' },
          });
        },
      },
    },
  };
}

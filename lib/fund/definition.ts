/**
 * The one declaration of a fund-data tool (an analyst endpoint): query schema, output allow-list schema and
 * handler. The REST endpoint under `/api/v1/fund/` (lib/fund/endpoint.ts), the fund MCP server's tool and
 * the OpenAPI document are all derived from it, and every call goes through {@link callFundTool}, which ends
 * in the fail-closed redaction step.
 */
import type * as z from 'zod';
import { ApiError, NotFoundError, type ProblemCode } from '../errors.ts';
import type { Config } from '../config.ts';
import { maskFreeText, redact } from '../redaction.ts';
import { keptInvestorRefs } from './investor-refs.ts';
import { checkInvestorsScanned, fundIdentities } from './identities.ts';
import { parseInput, queryStringSchema, withLazySchemas, withMembers, type InputLocation } from '../validation.ts';
import { memoKey, recall, remember } from './memo.ts';
import { FundFactsProblem } from './facts-problem.ts';
import type { FundSource } from './source.ts';
import { StaleIndexError, type FundIndex, type FundReadRequest, type FundReadResult } from './store.ts';
import type { NavRunRow } from './rows.ts';
import { runsFrom } from './analytics/runs.ts';

/** What a tool's handler reads through. */
export interface FundToolContext {
  fundId: string;
  index: FundIndex;
  /** The fund's base currency. */
  currency: string;
  /** One batched read from the store (rows already guarded). */
  read(request: FundReadRequest): Promise<FundReadResult>;
  /**
   * The runs an answer about the days from `from` on reads (`runsFrom` of lib/fund/analytics/runs.ts: from
   * the latest usable run before `from` through the last run): from the index when it holds them, else one
   * read ({@link FundReadRequest.runs}).
   */
  runsFrom(from: string): Promise<readonly NavRunRow[]>;
  /** Pseudonyms of investors (see `investorRefs` in `lib/redaction.ts`). */
  investorRefs(investorIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Free text (a description, a memo, a category) as it may leave: the fund's identity values, e-mail, tax-id,
   * IBAN and key shapes, and account numbers masked as `[redacted]` (`maskFreeText` in `lib/redaction.ts`).
   */
  maskFreeText(text: string): string;
}

/**
 * A fund-data tool.
 * - `tool`: the MCP tool name. Its URL is the path of the file under `functions/api/v1/fund/` that serves
 *   it (see {@link LocatedFundTool}).
 * - `query`: strict schema of the query parameters (every one optional with a default unless required).
 * - `output`: the allow-list of the response, strict all the way down; redaction parses with it.
 * - `problems`: problem codes it can answer beyond those of every fund endpoint.
 * - `run`: reads through the context and computes with `lib/fund/analytics/`.
 */
export interface FundToolDefinition<Q extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  tool: string;
  title: string;
  description: string;
  query: Q;
  /**
   * Typical query parameters (as strings, as they arrive in a URL). The OpenAPI parameter examples and the
   * documentation come from it; the response example is computed from it on the demo fund at build time.
   */
  example: Record<string, string>;
  output: O;
  problems: ProblemCode[];
  run(ctx: FundToolContext, query: z.output<Q>): Promise<z.output<O>>;
}

/** A fund tool with the URL path under `/api/v1/fund/` its file under `functions/` gives it (`exposure/series`). */
export type LocatedFundTool = FundToolDefinition & { readonly path: string };

/**
 * A declaration with its path (the generated declaration list, lib/registry.ts, calls this for each file).
 * Widened: every call parses with `def.query` before `def.run`.
 */
export function locatedFundTool<Q extends z.ZodObject, O extends z.ZodType>(def: FundToolDefinition<Q, O>, path: string): LocatedFundTool {
  return withMembers(def as unknown as FundToolDefinition, { path });
}

/**
 * What a fund tool module declares: a {@link FundToolDefinition} whose schemas are functions that build them;
 * {@link defineFundTool} makes them getters that build each on its first read, so an isolate's startup builds
 * no schema.
 */
export interface FundToolDeclaration<Q extends z.ZodObject, O extends z.ZodType>
  extends Omit<FundToolDefinition<Q, O>, 'query' | 'output'> {
  query: () => Q;
  output: () => O;
}

/**
 * Declares a fund-data tool: its schemas become getters that build each on first read (once per isolate);
 * ties the query and output types to the handler.
 */
export function defineFundTool<Q extends z.ZodObject, O extends z.ZodType>(declared: FundToolDeclaration<Q, O>): FundToolDefinition<Q, O> {
  const { query, output, ...members } = declared;
  return withLazySchemas(members, { query, output });
}

/** Problem codes every fund-data endpoint can answer. */
export const FUND_PROBLEMS: ProblemCode[] = [
  'invalid_request',
  'unauthorized',
  'insufficient_scope',
  'rate_limited',
  'redaction_failed',
  'upstream_unavailable',
];

/**
 * Answers one tool call: validate the arguments, read, compute, redact (scanning the answer against every
 * identity value of the fund, lib/fund/identities.ts). A redacted answer is memoized per
 * (source scope, fund, latest NAV run, tool, arguments, pseudonym key) in the isolate (lib/fund/memo.ts);
 * with a source without a scope nothing is memoized.
 *
 * A store may answer the index from the one it keeps without a statement (the database store does, and
 * checks its version with the call's first read); nothing leaves, answer or refusal, until the store has
 * found that index current (`FundStore.verify`), and when it was not the call is made once more.
 * @param config the deployment's configuration (its `investorRefKey` keys investor pseudonyms)
 * @param args the query parameters (REST) or tool arguments (MCP)
 * @param location where `args` came from: error pointers start `/query` (REST) or `/arguments` (MCP)
 * @returns the response body as JSON text, proven clean by `redact`
 * @throws {ValidationError} 400 for bad arguments (pointers under `/<location>`)
 * @throws {NotFoundError} 404 when the store holds no data for the fund, or the tool's own 404s (one
 *   quoting fund data, a {@link FundFactsProblem}, once its facts passed the redaction)
 * @throws {RedactionFailedError} 500 when the response, or the facts a problem quotes, cannot be proven clean
 */
export async function callFundTool(
  def: FundToolDefinition,
  source: Pick<FundSource, 'store' | 'fundId'> & Partial<Pick<FundSource, 'scope'>>,
  config: Partial<Pick<Config, 'investorRefKey'>>,
  args: unknown,
  location: InputLocation = 'query',
): Promise<string> {
  // A query string carries text, read by the documented decimal grammar; MCP arguments are JSON values of
  // the advertised type, never coerced.
  const query = parseInput(location === 'query' ? queryStringSchema(def.query) : def.query, args, location);
  try {
    return await answer(def, source, config, query);
  } catch (err) {
    // The store answered from an index it keeps, which was found not current: nothing computed from it
    // leaves, and the call is made again on the index the store now reads.
    if (!(err instanceof StaleIndexError)) throw err;
    return answer(def, source, config, query);
  }
}

/**
 * One attempt of {@link callFundTool} on parsed arguments: read, compute, check that the store's index was
 * current (`FundStore.verify`), redact.
 * @throws {StaleIndexError} when the index was not current (the caller tries once more)
 */
async function answer(
  def: FundToolDefinition,
  source: Pick<FundSource, 'store' | 'fundId'> & Partial<Pick<FundSource, 'scope'>>,
  config: Partial<Pick<Config, 'investorRefKey'>>,
  query: Record<string, unknown>,
): Promise<string> {
  const index = await source.store.index(source.fundId);
  if (!index) throw new NotFoundError("No data is held for this key's fund.");
  const key = source.scope ? memoKey(`${source.scope}:${config.investorRefKey ?? ''}`, source.fundId, index.runs, def, query) : null;
  const kept = key === null ? undefined : recall(key);
  if (kept !== undefined) return kept;
  // Every answer is scanned against every identity value of the fund, whatever it read.
  const identities = await fundIdentities(source.store, source.fundId);
  const sensitive = identities.set;
  const ctx: FundToolContext = {
    fundId: source.fundId,
    index,
    currency: index.fund.baseCurrency,
    async read(request) {
      const result = await source.store.read(source.fundId, request, index);
      checkInvestorsScanned(identities, result.investorClasses);
      checkInvestorsScanned(identities, result.capital);
      return result;
    },
    async runsFrom(from) {
      // The index holds every run from the latest usable one before index.runsFrom: so also from the latest
      // usable one before any later day.
      if (index.runsFrom === null || from >= index.runsFrom) return runsFrom(index.runs, from);
      return (await ctx.read({ runs: { from } })).runs;
    },
    investorRefs: (ids) => keptInvestorRefs(source.fundId, ids, config.investorRefKey),
    maskFreeText: (text) => maskFreeText(text, sensitive),
  };
  let result: unknown;
  try {
    result = await def.run(ctx, query);
  } catch (err) {
    // A refusal made from an index that is not current is no answer either (a failure of the service, a
    // 5xx, says nothing of the fund, and a database that is down is not asked again).
    if (err instanceof FundFactsProblem || (err instanceof ApiError && err.status < 500)) await source.store.verify?.(source.fundId, index);
    // The detail quotes fund data: it leaves only through the redaction every answer passes.
    if (err instanceof FundFactsProblem) throw err.problem(JSON.parse(redact(err.schema, err.facts, sensitive)));
    throw err;
  }
  await source.store.verify?.(source.fundId, index);
  const body = redact(def.output, result, sensitive);
  if (key !== null) remember(key, body);
  return body;
}

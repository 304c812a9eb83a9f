/**
 * What the fuzzer sends: fast-check arbitraries of whole requests, generated from the service's own
 * declarations (the route table `lib/routes.ts`, the calculator and fund-tool declarations and their zod
 * schemas, as the MCP servers publish them in `tools/list`) and from the OpenAPI document the Worker serves
 * (query parameters and request bodies of every operation).
 *
 * Each case carries what the oracle needs to judge its answer beyond the rules every answer obeys: whether
 * it must be refused (and why), the JSON-RPC error codes a malformed message must get, whether it is a
 * fund-data request (answers `private, no-store`), and whether its `Host` is hostile.
 */
import fc from 'fast-check';
import { big, hostHeaders, methodConfusion, otherPaths } from './cases/edges.ts';
import { mcp } from './cases/mcp.ts';
import type { FuzzCase, FuzzKeys, FuzzModel } from './cases/model.ts';
import { restCalc, restFund } from './cases/rest.ts';

export {
  type FuzzCase,
  type FuzzKeys,
  type FuzzModel,
  type QueryParameter,
  type RestOperation,
  type RpcExpectation,
  type ToolModel,
  SELF_ORIGIN,
  buildModel,
} from './cases/model.ts';
export { argumentsFor } from './cases/common.ts';

/**
 * Every case the fuzzer sends, weighted toward the routes' own inputs.
 * @param model what the service declares (see {@link buildModel})
 * @param keys the keys minted for the run
 */
export function fuzzCase(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    { weight: 22, arbitrary: restCalc(model, keys) },
    { weight: 22, arbitrary: restFund(model, keys) },
    { weight: 15, arbitrary: mcp(model, keys, 'public') },
    { weight: 15, arbitrary: mcp(model, keys, 'fund') },
    { weight: 8, arbitrary: methodConfusion(model, keys) },
    { weight: 7, arbitrary: hostHeaders(keys) },
    { weight: 4, arbitrary: otherPaths(keys) },
    { weight: 1, arbitrary: big(keys) },
  );
}

/**
 * The tour: one arbitrary per route of the table and per tool of both MCP servers, each aimed at it alone (a
 * calculator's body, a fund path's query, a `tools/call` of the tool, any method on another route). The
 * harness draws case `k × TOUR_STRIDE` from the k-th of them (harness.ts), so every slice of
 * `tour length × TOUR_STRIDE` cases reaches every route and tool, whatever the seed and the routes' order.
 */
export function tourCases(model: FuzzModel, keys: FuzzKeys): fc.Arbitrary<FuzzCase>[] {
  const routes = [...model.allow.keys()].map((path) => {
    const op = model.operations.find((o) => o.path === path);
    const alone = { ...model, operations: op ? [op] : [], allow: new Map([[path, model.allow.get(path)!]]) };
    if (op?.method === 'POST' && op.body) return restCalc(alone, keys);
    if (op?.method === 'GET' && op.auth === 'required') return restFund(alone, keys);
    return methodConfusion(alone, keys);
  });
  return [
    ...routes,
    ...model.publicTools.map((tool) => mcp(model, keys, 'public', tool)),
    ...model.fundTools.map((tool) => mcp(model, keys, 'fund', tool)),
  ];
}

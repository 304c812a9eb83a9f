/**
 * {@link FundFactsProblem}: a fund-data problem whose detail quotes fund data, redacted before it leaves.
 * A module of its own, with no import but the error types, so that the analytics can throw it without
 * depending on the tool machinery (lib/fund/definition.ts, which redacts it in `callFundTool`).
 */
import type * as z from 'zod';
import type { ApiError } from '../errors.ts';

/**
 * A problem whose detail quotes fund data: a 404 for a day with no NAV run gives the dates of the fund's
 * first and last run, so the caller can ask again. Thrown by a tool's `run` (or the analytics it calls)
 * with the facts and their allow-list `schema`; `callFundTool` (lib/fund/definition.ts) sends them only after the same
 * redaction as an answer (`redact`: the strict schema, then the scan for forbidden shapes and the identity
 * values the store returned), and writes the detail from what passed. Facts that cannot be proven clean
 * give 500 `redaction_failed` and none of them.
 * @typeParam F the facts, as the schema outputs them
 */
export class FundFactsProblem<F = unknown> extends Error {
  readonly facts: unknown;
  readonly schema: z.ZodType<F>;
  readonly problem: (facts: F) => ApiError;
  /**
   * @param facts what the detail quotes, as the analytics found it
   * @param schema strict allow-list of the facts
   * @param problem the error to answer, built from the redacted facts
   */
  constructor(facts: unknown, schema: z.ZodType<F>, problem: (facts: F) => ApiError) {
    super('A fund-data problem whose detail quotes fund data, not yet redacted.');
    this.name = 'FundFactsProblem';
    this.facts = facts;
    this.schema = schema;
    this.problem = problem;
  }
}

/**
 * The one declaration of a calculator: its input schema (strict, defaults of docs/calculators.md), its output
 * schema, and a pure handler. The REST endpoint, the public MCP tool and the OpenAPI document are all
 * derived from this object, so they cannot drift apart.
 */
import * as z from 'zod';
import { withLazySchemas, withMembers } from '../validation.ts';

/** Fixed text every calculator result carries (docs/api.md#conventions). */
export const DISCLAIMER = 'Illustrative estimate computed only from the inputs of this call. Not accounting, tax or investment advice.';

/**
 * A calculator.
 * - `slug`: with `-` → `_` and a `calc_` prefix, the MCP tool name; the module's file name. The URL segment
 *   is the file's under `functions/api/v1/calc/` (see {@link LocatedCalculator}).
 * - `input`: a strict zod object whose every field is optional with a default; it parses to the resolved inputs.
 * - `output`: the result schema without `inputs` and `disclaimer`, which {@link runCalculator} adds.
 *   Both are built on first read ({@link CalculatorDeclaration}).
 * - `resolve` (optional): fills defaults that depend on other fields (the fee calculator's initial HWM is
 *   the starting NAV), so that `run` and the echoed `inputs` both see the resolved request.
 * - `example`: a typical request body, the source of every published example.
 * - `run`: pure and deterministic; may throw {@link import('../errors.ts').ApiError} for input faults found
 *   while computing (a CSV cell that is not a number, a period that ends before it starts).
 */
export interface CalculatorDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  slug: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /**
   * A typical request body (what the input schema accepts). The OpenAPI request example, the MCP tool's
   * example and the documentation come from it; the response example is computed from it at build time.
   */
  example: z.input<I>;
  resolve?: (inputs: z.output<I>) => z.output<I>;
  run: (inputs: z.output<I>) => z.output<O>;
}

/**
 * What a calculator module declares: a {@link CalculatorDefinition} whose schemas are functions that build
 * them (`lazy` of lib/validation.ts, or an arrow); {@link defineCalculator} makes them getters that build each
 * on its first read, so an isolate's startup builds no schema.
 */
export interface CalculatorDeclaration<I extends z.ZodObject, O extends z.ZodObject>
  extends Omit<CalculatorDefinition<I, O>, 'input' | 'output'> {
  input: () => I;
  output: () => O;
}

/**
 * A calculator with the URL segment under `/api/v1/calc/` that its file under `functions/` gives it. Its MCP
 * tool name still comes from `slug`, so renaming the file changes the URL and nothing else.
 */
export type LocatedCalculator = CalculatorDefinition & { readonly path: string };

/**
 * A declaration with its path (the generated declaration list, lib/registry.ts, calls this for each file).
 * Widened: every caller parses with `def.input` before calling `def.run`.
 */
export function locatedCalculator<I extends z.ZodObject, O extends z.ZodObject>(
  def: CalculatorDefinition<I, O>,
  path: string,
): LocatedCalculator {
  return withMembers(def as unknown as CalculatorDefinition, { path });
}

/**
 * Declares a calculator: its schemas become getters that build each on first read (once per isolate); keeps
 * the input and output types tied together.
 */
export function defineCalculator<I extends z.ZodObject, O extends z.ZodObject>(
  declared: CalculatorDeclaration<I, O>,
): CalculatorDefinition<I, O> {
  const { input, output, ...members } = declared;
  return withLazySchemas(members, { input, output });
}

/** Letter grade of a 0–100 score: A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, else F (the scale of both graders). */
export function grade(score: number): 'A' | 'B' | 'C' | 'D' | 'F' {
  return score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 70 ? 'C' : score >= 60 ? 'D' : 'F';
}

/** The MCP tool name of a calculator, e.g. `fee-calculator` → `calc_fee_calculator` (docs/mcp.md). */
export function toolName(def: Pick<CalculatorDefinition, 'slug'>): string {
  return `calc_${def.slug.replace(/-/g, '_')}`;
}

/** The full result schema of a calculator: its output plus `inputs` (resolved request) and `disclaimer`. */
export function resultSchema(def: CalculatorDefinition): z.ZodObject {
  return def.output.extend({
    inputs: def.input.describe('The resolved request: every field, with defaults applied.'),
    disclaimer: z.string().describe('Illustrative estimate; not accounting, tax or investment advice.'),
  });
}

/**
 * Runs a calculator on already-validated inputs and wraps the result as the API returns it:
 * `{ ...result, inputs, disclaimer }`, where `inputs` is the resolved request.
 */
export function runCalculator<I extends z.ZodObject, O extends z.ZodObject>(
  def: CalculatorDefinition<I, O>,
  parsed: z.output<I>,
): z.output<O> & { inputs: z.output<I>; disclaimer: string } {
  const inputs = def.resolve ? def.resolve(parsed) : parsed;
  return { ...def.run(inputs), inputs, disclaimer: DISCLAIMER };
}

/**
 * The calculators (docs/calculators.md), in the order that page lists them. The REST endpoints under
 * `functions/api/v1/calc/`, the public MCP server and the OpenAPI document all read this list.
 */
import type { CalculatorDefinition } from './definition.ts';
import { feeCalculator } from './fee-calculator.ts';
import { navValidator } from './nav-validator.ts';
import { operatingCostCalculator } from './operating-cost-calculator.ts';
import { backOfficeSavings } from './back-office-savings.ts';
import { fundHealthCheck } from './fund-health-check.ts';
import { exposureAnalysis } from './exposure-analysis.ts';
import { lpReportGrader } from './lp-report-grader.ts';

/**
 * Every calculator. Each declaration is typed by its own schemas; the list widens them (a handler typed for
 * one input cannot be typed as taking any input), which is safe because every caller parses with
 * `def.input` before calling `def.run`.
 */
export const CALCULATORS: readonly CalculatorDefinition[] = [
  feeCalculator,
  navValidator,
  operatingCostCalculator,
  backOfficeSavings,
  fundHealthCheck,
  exposureAnalysis,
  lpReportGrader,
] as unknown as readonly CalculatorDefinition[];

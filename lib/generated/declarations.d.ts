/**
 * The shape of `declarations.ts`, which `npm run build` writes (scripts/build-routes.ts) and git ignores: what a
 * fresh clone type-checks against before its first build. Read only by the composition root (lib/registry.ts),
 * the build, the tests and the bench.
 */
import type { LocatedCalculator } from '../calculators/definition.ts';
import type { LocatedFundTool } from '../fund/definition.ts';

/** Every calculator, with its path under `/api/v1/calc/`, in path order. */
export declare const CALCULATORS: readonly LocatedCalculator[];
/** Every fund-data tool, with its path under `/api/v1/fund/`, in path order. */
export declare const FUND_TOOLS: readonly LocatedFundTool[];

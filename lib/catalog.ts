/**
 * The catalog's declarations: what the composition root (lib/registry.ts) hands every endpoint beside the
 * routes, namely every calculator and fund tool at the path its file under `functions/` gives it. The
 * request contract (lib/endpoint.ts) sits below the calculators and the fund data and declares the catalog
 * without them; this module, above both, adds their members to it (TypeScript declaration merging), so that
 * the contract imports nothing from the layers above it (docs/architecture.md#layers).
 */
import type { LocatedCalculator } from './calculators/definition.ts';
import type { LocatedFundTool } from './fund/definition.ts';
import type { Catalog } from './endpoint.ts';

declare module './endpoint.ts' {
  interface Catalog {
    /** Every calculator, in the path order of its file under `functions/api/v1/calc/`. */
    calculators: readonly LocatedCalculator[];
    /** Every fund-data tool, in the path order of its file under `functions/api/v1/fund/`. */
    fundTools: readonly LocatedFundTool[];
  }
}

/**
 * The two calls the home page and the developer console show as quick starts: the fee calculator and the
 * fund overview when they are declared (else the first calculator and fund tool), at the URLs their files
 * give them, so that renaming a file moves the quick starts with it.
 */
export function quickstartCalls(catalog: Pick<Catalog, 'calculators' | 'fundTools'>): {
  calculator: { path: string; example: unknown } | undefined;
  fundPath: string | undefined;
} {
  const calculator = catalog.calculators.find((c) => c.slug === 'fee-calculator') ?? catalog.calculators[0];
  const fundTool = catalog.fundTools.find((t) => t.tool === 'get_fund_overview') ?? catalog.fundTools[0];
  return {
    calculator: calculator && { path: `/api/v1/calc/${calculator.path}`, example: calculator.example },
    fundPath: fundTool && `/api/v1/fund/${fundTool.path}`,
  };
}

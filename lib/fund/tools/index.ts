/**
 * The fund-data tools (docs/fund-data.md#what-the-endpoints-compute), in the order the README and the
 * OpenAPI document list them. The REST endpoints under `functions/api/v1/fund/`, the fund MCP server and the OpenAPI document all
 * read this list.
 */
import type { FundToolDefinition } from '../definition.ts';
import { overview } from './overview.ts';
import { positions } from './positions.ts';
import { breakdown } from './breakdown.ts';
import { exposure } from './exposure.ts';
import { exposureSeries } from './exposure-series.ts';
import { pnlAttributionTool } from './pnl-attribution.ts';
import { valueAtRiskTool } from './risk-var.ts';
import { trialBalanceTool } from './trial-balance.ts';
import { capitalAccountsTool } from './capital-accounts.ts';
import { expenses } from './expenses.ts';
import { feeTerms } from './fee-terms.ts';
import { navHistoryTool } from './nav-history.ts';

/** Every fund-data tool (typed by their own schemas; widened here, which is safe because every call parses with `def.query`). */
export const FUND_TOOLS: readonly FundToolDefinition[] = [
  overview,
  positions,
  breakdown,
  exposure,
  exposureSeries,
  pnlAttributionTool,
  valueAtRiskTool,
  trialBalanceTool,
  capitalAccountsTool,
  expenses,
  feeTerms,
  navHistoryTool,
] as unknown as readonly FundToolDefinition[];

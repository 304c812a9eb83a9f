/**
 * The route table: every file under `functions/` and the URL path it serves, which is the file's path
 * without `functions` and `.ts` (`functions/api/v1/calc/fee-calculator.ts` → `/api/v1/calc/fee-calculator`).
 * `test/routes.test.ts` proves that every endpoint file is listed here and nothing else is.
 */
import type { Route } from './endpoint.ts';
import openApiJson from '../functions/api/v1/openapi.json.ts';
import feeCalculator from '../functions/api/v1/calc/fee-calculator.ts';
import navValidator from '../functions/api/v1/calc/nav-validator.ts';
import operatingCostCalculator from '../functions/api/v1/calc/operating-cost-calculator.ts';
import backOfficeSavings from '../functions/api/v1/calc/back-office-savings.ts';
import fundHealthCheck from '../functions/api/v1/calc/fund-health-check.ts';
import exposureAnalysis from '../functions/api/v1/calc/exposure-analysis.ts';
import lpReportGrader from '../functions/api/v1/calc/lp-report-grader.ts';
import fundOverview from '../functions/api/v1/fund/overview.ts';
import fundPositions from '../functions/api/v1/fund/positions.ts';
import fundBreakdown from '../functions/api/v1/fund/breakdown.ts';
import fundExposure from '../functions/api/v1/fund/exposure.ts';
import fundExposureSeries from '../functions/api/v1/fund/exposure/series.ts';
import fundPnlAttribution from '../functions/api/v1/fund/pnl/attribution.ts';
import fundRiskVar from '../functions/api/v1/fund/risk/var.ts';
import fundTrialBalance from '../functions/api/v1/fund/trial-balance.ts';
import fundCapitalAccounts from '../functions/api/v1/fund/capital-accounts.ts';
import fundExpenses from '../functions/api/v1/fund/expenses.ts';
import fundFeeTerms from '../functions/api/v1/fund/fee-terms.ts';
import fundNavHistory from '../functions/api/v1/fund/nav-history.ts';
import mcpFund from '../functions/api/mcp.ts';
import mcpPublic from '../functions/api/mcp/public.ts';

/** Every route of the service. */
export const ROUTES: readonly Route[] = [
  { path: '/api/v1/openapi.json', endpoint: openApiJson },
  { path: '/api/v1/calc/fee-calculator', endpoint: feeCalculator },
  { path: '/api/v1/calc/nav-validator', endpoint: navValidator },
  { path: '/api/v1/calc/operating-cost-calculator', endpoint: operatingCostCalculator },
  { path: '/api/v1/calc/back-office-savings', endpoint: backOfficeSavings },
  { path: '/api/v1/calc/fund-health-check', endpoint: fundHealthCheck },
  { path: '/api/v1/calc/exposure-analysis', endpoint: exposureAnalysis },
  { path: '/api/v1/calc/lp-report-grader', endpoint: lpReportGrader },
  { path: '/api/v1/fund/overview', endpoint: fundOverview },
  { path: '/api/v1/fund/positions', endpoint: fundPositions },
  { path: '/api/v1/fund/breakdown', endpoint: fundBreakdown },
  { path: '/api/v1/fund/exposure', endpoint: fundExposure },
  { path: '/api/v1/fund/exposure/series', endpoint: fundExposureSeries },
  { path: '/api/v1/fund/pnl/attribution', endpoint: fundPnlAttribution },
  { path: '/api/v1/fund/risk/var', endpoint: fundRiskVar },
  { path: '/api/v1/fund/trial-balance', endpoint: fundTrialBalance },
  { path: '/api/v1/fund/capital-accounts', endpoint: fundCapitalAccounts },
  { path: '/api/v1/fund/expenses', endpoint: fundExpenses },
  { path: '/api/v1/fund/fee-terms', endpoint: fundFeeTerms },
  { path: '/api/v1/fund/nav-history', endpoint: fundNavHistory },
  { path: '/api/mcp', endpoint: mcpFund },
  { path: '/api/mcp/public', endpoint: mcpPublic },
];

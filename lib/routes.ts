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
];

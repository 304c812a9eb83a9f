/** `POST /api/v1/calc/fund-health-check`: the calculator declared in `lib/calculators/fund-health-check.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { fundHealthCheck } from '../../../../lib/calculators/fund-health-check.ts';

export default calculatorEndpoint(fundHealthCheck);

/** The calculator declared in `lib/calculators/fund-health-check.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { fundHealthCheck } from '../../../../lib/calculators/fund-health-check.ts';

export default calculatorEndpoint(fundHealthCheck);

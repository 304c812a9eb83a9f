/** The calculator declared in `lib/calculators/operating-cost-calculator.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { operatingCostCalculator } from '../../../../lib/calculators/operating-cost-calculator.ts';

export default calculatorEndpoint(operatingCostCalculator);

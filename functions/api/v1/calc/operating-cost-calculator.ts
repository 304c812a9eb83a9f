/** `POST /api/v1/calc/operating-cost-calculator`: the calculator declared in `lib/calculators/operating-cost-calculator.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { operatingCostCalculator } from '../../../../lib/calculators/operating-cost-calculator.ts';

export default calculatorEndpoint(operatingCostCalculator);

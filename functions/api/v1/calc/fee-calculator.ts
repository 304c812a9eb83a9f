/** `POST /api/v1/calc/fee-calculator`: the calculator declared in `lib/calculators/fee-calculator.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { feeCalculator } from '../../../../lib/calculators/fee-calculator.ts';

export default calculatorEndpoint(feeCalculator);

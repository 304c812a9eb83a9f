/** The calculator declared in `lib/calculators/fee-calculator.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { feeCalculator } from '../../../../lib/calculators/fee-calculator.ts';

export default calculatorEndpoint(feeCalculator);

/** The calculator declared in `lib/calculators/back-office-savings.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { backOfficeSavings } from '../../../../lib/calculators/back-office-savings.ts';

export default calculatorEndpoint(backOfficeSavings);

/** `POST /api/v1/calc/back-office-savings`: the calculator declared in `lib/calculators/back-office-savings.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { backOfficeSavings } from '../../../../lib/calculators/back-office-savings.ts';

export default calculatorEndpoint(backOfficeSavings);

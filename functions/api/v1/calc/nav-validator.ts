/** `POST /api/v1/calc/nav-validator`: the calculator declared in `lib/calculators/nav-validator.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { navValidator } from '../../../../lib/calculators/nav-validator.ts';

export default calculatorEndpoint(navValidator);

/** The calculator declared in `lib/calculators/nav-validator.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { navValidator } from '../../../../lib/calculators/nav-validator.ts';

export default calculatorEndpoint(navValidator);

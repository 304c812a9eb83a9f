/** `POST /api/v1/calc/exposure-analysis`: the calculator declared in `lib/calculators/exposure-analysis.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { exposureAnalysis } from '../../../../lib/calculators/exposure-analysis.ts';

export default calculatorEndpoint(exposureAnalysis);

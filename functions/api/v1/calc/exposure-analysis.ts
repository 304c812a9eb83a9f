/** The calculator declared in `lib/calculators/exposure-analysis.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { exposureAnalysis } from '../../../../lib/calculators/exposure-analysis.ts';

export default calculatorEndpoint(exposureAnalysis);

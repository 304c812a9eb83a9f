/** The calculator declared in `lib/calculators/lp-report-grader.ts`, POST at this file's path. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { lpReportGrader } from '../../../../lib/calculators/lp-report-grader.ts';

export default calculatorEndpoint(lpReportGrader);

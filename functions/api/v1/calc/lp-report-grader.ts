/** `POST /api/v1/calc/lp-report-grader`: the calculator declared in `lib/calculators/lp-report-grader.ts`. */
import { calculatorEndpoint } from '../../../../lib/calculators/endpoint.ts';
import { lpReportGrader } from '../../../../lib/calculators/lp-report-grader.ts';

export default calculatorEndpoint(lpReportGrader);

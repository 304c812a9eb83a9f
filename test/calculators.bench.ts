/**
 * `npm run bench`: the calculators at their largest inputs (50-year quarterly fee projection, 10,000-row
 * CSVs, a 1 MiB report). Run on demand, not in `npm test`, since timings on a shared machine are noisy.
 */
import { bench, describe } from 'vitest';
import { computeFees, feeCalculatorInput } from '../lib/calculators/fee-calculator.ts';
import { analyseExposure, exposureAnalysisInput } from '../lib/calculators/exposure-analysis.ts';
import { validateNav, navValidatorInput } from '../lib/calculators/nav-validator.ts';
import { gradeLpReport, lpReportGraderInput } from '../lib/calculators/lp-report-grader.ts';

const positions = ['Asset,Value,Venue,Class', ...Array.from({ length: 10_000 }, (_, i) => `A${i % 700},${(i % 7) - 3}${i}.25,V${i % 9},C${i % 4}`)].join('\n');
const lpRows = ['lpId,openingNavUsd,contributionsUsd,withdrawalsUsd,grossPnlUsd,mgmtFeeUsd,perfFeeUsd,otherExpensesUsd,closingNavUsd',
  ...Array.from({ length: 10_000 }, (_, i) => `LP${i},1000.00,10.00,5.00,20.00,1.50,3.00,0.50,1020.00`)].join('\n');
const report = 'In Q3 2026 the fund returned 4.2% net of fees versus the MSCI World index. '.repeat(13_000);

describe('calculators', () => {
  const fees = feeCalculatorInput.parse({ horizonYears: 50, crystallization: 'quarterly', hurdlePct: 5, mgmtFeeBasis: 'average' });
  bench('fee-calculator, 50 years quarterly (200 periods)', () => void computeFees(fees));
  const exposure = exposureAnalysisInput.parse({ positionsCsv: positions, navUsd: 1e7 });
  bench('exposure-analysis, 10,000 rows', () => void analyseExposure(exposure));
  const nav = navValidatorInput.parse({ lpRowsCsv: lpRows, periodStart: '2026-01-01', periodEnd: '2026-01-31' });
  bench('nav-validator, 10,000 LP rows', () => void validateNav(nav));
  const grader = lpReportGraderInput.parse({ reportText: report });
  bench('lp-report-grader, 1 MiB report', () => void gradeLpReport(grader));
});

/**
 * Fund health check: an operational score 0–100 and a grade A–F from seven documented sub-scores
 * (docs/calculators.md). Each sub-score is monotone in its inputs, so better inputs never lower the score.
 *
 * | sub-score | points | rule |
 * |---|---|---|
 * | concentration | 20 | 10 × clamp((0.50 − largest asset weight) / 0.40) + 10 × clamp((effective N − 1) / 9); no positions: 10 (not assessed) |
 * | feeTerms | 15 | mgmt fee 5 × clamp((3 − m) / 2); perf fee 4 × clamp((30 − p) / 20); HWM 4; any hurdle 2 |
 * | navFrequency | 15 | daily 15, weekly 11, monthly 7, quarterly 3 |
 * | reconciliation | 15 | daily 15, weekly 10, monthly 5, rarely 0 |
 * | lpReporting | 10 | monthly 10, quarterly 7, adhoc 2 |
 * | governance | 15 | independent administrator 8, annual audit 7 |
 * | staffing | 10 | 10 × min(1, headcount / needed), needed = max(1, ceil(AUM / 250 M USD)) |
 *
 * Grade: {@link grade} (A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, else F). Weights and thresholds are fund-edge's, informed by
 * AIMA's Guide to Sound Practices for Hedge Fund Valuation and the ILPA Reporting Template (independent
 * administration, frequent reconciled NAVs, regular investor reporting, annual audit).
 */
import * as z from 'zod';
import { D, dec, type Dec } from '../decimal.ts';
import { usd, lazy } from '../validation.ts';
import { concentration, parsePositions } from './exposure-analysis.ts';
import { defineCalculator, grade } from './definition.ts';

/** Request body. */
export const fundHealthCheckInput = lazy(() =>
  z.strictObject({
    aumUsd: usd({ min: 0 }).default(0).describe('Assets under management, USD; sets the staffing the fund calls for.'),
    positionsCsv: z
      .string()
      .default('')
      .describe('Positions CSV (Asset, Value, Venue, Class) for the concentration score; empty: not assessed.'),
    mgmtFeePct: z.number().min(0).max(100).default(2).describe('Annual management fee, percent.'),
    perfFeePct: z.number().min(0).max(100).default(20).describe('Performance fee, percent of gains.'),
    hasHwm: z.boolean().default(true).describe('Performance fee only above the high-water mark.'),
    hurdlePct: z.number().min(0).max(1000).nullable().default(null).describe('Hurdle rate, percent; null for none.'),
    navFrequency: z
      .enum(['daily', 'weekly', 'monthly', 'quarterly'])
      .default('monthly')
      .describe('How often a NAV is struck; default the common monthly.'),
    reconFrequency: z
      .enum(['daily', 'weekly', 'monthly', 'rarely'])
      .default('monthly')
      .describe('How often positions and cash are reconciled with the administrator.'),
    lpReportingFrequency: z.enum(['monthly', 'quarterly', 'adhoc']).default('quarterly').describe('How often investors get a report.'),
    backOfficeHeadcount: z.number().min(0).max(10_000).default(0).describe('Full-time equivalents in operations and finance.'),
    hasFundAdmin: z.boolean().default(false).describe('An independent fund administrator is appointed; omitted means none.'),
    hasAnnualAudit: z.boolean().default(false).describe('The fund is audited every year; omitted means not.'),
  }),
);

type HealthInputs = z.output<ReturnType<typeof fundHealthCheckInput>>;

const SUB_SCORES = ['concentration', 'feeTerms', 'navFrequency', 'reconciliation', 'lpReporting', 'governance', 'staffing'] as const;

/** Result of the fund health check. */
export const fundHealthCheckOutput = lazy(() =>
  z.object({
    score: z.number().describe('0–100, 1 dp.'),
    grade: z.enum(['A', 'B', 'C', 'D', 'F']),
    subScores: z.array(
      z.object({
        name: z.enum(SUB_SCORES),
        score: z.number().describe('Points earned, 2 dp.'),
        maxScore: z.number(),
        assessed: z.boolean().describe('false when the inputs for it were not given (a neutral half score is used).'),
        findings: z.array(z.string()),
        recommendation: z.string().nullable().describe('null when the sub-score is full.'),
      }),
    ),
  }),
);
type SubScore = z.output<ReturnType<typeof fundHealthCheckOutput>>['subScores'][number];

const clamp01 = (x: Dec) => D.min(1, D.max(0, x));
/** A sub-score as shown, 2 dp; its recommendation is null exactly when this is full. */
const points = (x: Dec) => x.toDecimalPlaces(2, D.ROUND_HALF_UP).toNumber();

function concentrationScore(inputs: HealthInputs): SubScore {
  const positions = parsePositions(inputs.positionsCsv, 'positionsCsv');
  const c = concentration(positions);
  if (c.hhi === null || c.effectiveN === null) {
    return {
      name: 'concentration',
      score: 10,
      maxScore: 20,
      assessed: false,
      findings: ['No positions given; concentration was not assessed.'],
      recommendation: 'Paste the positions CSV to score concentration.',
    };
  }
  const largest = c.assets[0]!;
  const score = clamp01(dec('0.5').minus(largest.weight).div('0.4'))
    .times(10)
    .plus(clamp01(c.effectiveN.minus(1).div(9)).times(10));
  return {
    name: 'concentration',
    score: points(score),
    maxScore: 20,
    assessed: true,
    findings: [
      `Largest asset ${largest.asset} is ${largest.weight.times(100).toDecimalPlaces(1)} % of gross exposure.`,
      `Effective number of positions: ${c.effectiveN.toDecimalPlaces(1)}.`,
    ],
    recommendation: points(score) >= 20 ? null : 'Cap single-asset weight near 10 % of gross and hold at least ten effective positions.',
  };
}

function feeTermsScore(inputs: HealthInputs): SubScore {
  const mgmt = clamp01(dec(3).minus(inputs.mgmtFeePct).div(2)).times(5);
  const perf = clamp01(dec(30).minus(inputs.perfFeePct).div(20)).times(4);
  const hwm = inputs.hasHwm ? 4 : 0;
  const hurdle = inputs.hurdlePct !== null && inputs.hurdlePct > 0 ? 2 : 0;
  const score = mgmt.plus(perf).plus(hwm).plus(hurdle);
  const findings = [`Fees ${inputs.mgmtFeePct} % management and ${inputs.perfFeePct} % performance.`];
  if (!inputs.hasHwm) findings.push('No high-water mark: investors can pay performance fees twice on the same gains.');
  if (hurdle === 0) findings.push('No hurdle rate.');
  return {
    name: 'feeTerms',
    score: points(score),
    maxScore: 15,
    assessed: true,
    findings,
    recommendation: points(score) >= 15 ? null : 'Investor-aligned terms: a high-water mark, a hurdle, and fees at or under 1 % and 10 %.',
  };
}

const table = <K extends string>(
  name: SubScore['name'],
  max: number,
  value: K,
  scores: Record<K, number>,
  what: string,
  advice: string,
): SubScore => ({
  name,
  score: scores[value],
  maxScore: max,
  assessed: true,
  findings: [`${what}: ${value}.`],
  recommendation: scores[value] >= max ? null : advice,
});

function governanceScore(inputs: HealthInputs): SubScore {
  const findings: string[] = [];
  if (!inputs.hasFundAdmin) findings.push('No independent fund administrator.');
  if (!inputs.hasAnnualAudit) findings.push('No annual audit.');
  const score = (inputs.hasFundAdmin ? 8 : 0) + (inputs.hasAnnualAudit ? 7 : 0);
  return {
    name: 'governance',
    score,
    maxScore: 15,
    assessed: true,
    findings: findings.length ? findings : ['Independent administrator and annual audit in place.'],
    recommendation: score >= 15 ? null : 'Appoint an independent administrator and an annual audit by a recognised firm.',
  };
}

function staffingScore(inputs: HealthInputs): SubScore {
  const needed = Math.max(1, Math.ceil(inputs.aumUsd / 250_000_000));
  const score = D.min(1, dec(inputs.backOfficeHeadcount).div(needed)).times(10);
  return {
    name: 'staffing',
    score: points(score),
    maxScore: 10,
    assessed: true,
    findings: [`${inputs.backOfficeHeadcount} back-office FTE for an AUM that calls for about ${needed}.`],
    recommendation: points(score) >= 10 ? null : 'Staff operations at about one FTE per 250 M USD of AUM, or automate the gap.',
  };
}

/** Scores a fund's operations. Pure. @throws {ValidationError} for a bad positions CSV. */
export function checkFundHealth(inputs: HealthInputs): z.output<ReturnType<typeof fundHealthCheckOutput>> {
  const subScores: SubScore[] = [
    concentrationScore(inputs),
    feeTermsScore(inputs),
    table(
      'navFrequency',
      15,
      inputs.navFrequency,
      { daily: 15, weekly: 11, monthly: 7, quarterly: 3 },
      'NAV struck',
      'Strike a NAV (or a shadow NAV) daily.',
    ),
    table(
      'reconciliation',
      15,
      inputs.reconFrequency,
      { daily: 15, weekly: 10, monthly: 5, rarely: 0 },
      'Reconciliation against the administrator',
      'Reconcile positions and cash against the administrator daily.',
    ),
    table(
      'lpReporting',
      10,
      inputs.lpReportingFrequency,
      { monthly: 10, quarterly: 7, adhoc: 2 },
      'Investor reporting',
      'Report to investors monthly on a fixed calendar.',
    ),
    governanceScore(inputs),
    staffingScore(inputs),
  ];
  const score = subScores
    .reduce((acc, s) => acc.plus(s.score), dec(0))
    .toDecimalPlaces(1, D.ROUND_HALF_UP)
    .toNumber();
  return { score, grade: grade(score), subScores };
}

/** The fund health check (REST, and its MCP tool). */
export const fundHealthCheck = defineCalculator({
  slug: 'fund-health-check',
  title: 'Fund health check',
  description:
    'Operational health score 0–100 and grade A–F from concentration, fee terms, NAV, reconciliation and reporting frequency, governance and staffing.',
  input: fundHealthCheckInput,
  output: fundHealthCheckOutput,
  example: {
    aumUsd: 150_000_000,
    positionsCsv: 'Asset,Value,Venue,Class\nBTC,4000000,Coinbase,Crypto\nAAPL,2500000,IBKR,Equity\nUST 10Y,3000000,IBKR,Rates',
    navFrequency: 'daily',
    reconFrequency: 'daily',
    lpReportingFrequency: 'monthly',
    backOfficeHeadcount: 2,
    hasFundAdmin: true,
    hasAnnualAudit: true,
  },
  run: checkFundHealth,
});

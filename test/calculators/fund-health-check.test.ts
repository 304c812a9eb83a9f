/**
 * Fund health check: seven sub-scores (module comment of lib/calculators/fund-health-check.ts), their sum
 * rounded to 1 dp, and the grade (A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60, else F).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkFundHealth, fundHealthCheckInput, fundHealthCheckOutput } from '../../lib/calculators/fund-health-check.ts';
import { grade } from '../../lib/calculators/definition.ts';
import { ValidationError } from '../../lib/errors.ts';
import type * as z from 'zod';

type Inputs = z.output<ReturnType<typeof fundHealthCheckInput>>;
type Body = Partial<Inputs>;

const run = (body: Body) => checkFundHealth(fundHealthCheckInput().parse(body));
type Result = ReturnType<typeof run>;
/** Sub-score points by name. */
const sub = (r: Result) =>
  Object.fromEntries(r.subScores.map((s) => [s.name, s.score])) as Record<Result['subScores'][number]['name'], number>;

/** Ten equal positions: largest weight 0.1 and effective N 10, the full concentration score. */
const TEN_EQUAL = `Asset,Value\n${Array.from({ length: 10 }, (_, i) => `P${i},100000`).join('\n')}`;

const BEST: Body = {
  aumUsd: 500_000_000,
  positionsCsv: TEN_EQUAL,
  mgmtFeePct: 1,
  perfFeePct: 10,
  hasHwm: true,
  hurdlePct: 6,
  navFrequency: 'daily',
  reconFrequency: 'daily',
  lpReportingFrequency: 'monthly',
  backOfficeHeadcount: 2,
  hasFundAdmin: true,
  hasAnnualAudit: true,
};

describe('fund health check: worked example', () => {
  const r = run({
    aumUsd: 600_000_000,
    positionsCsv: 'Asset,Value,Venue,Class\nA,400000,X,Eq\nB,300000,X,Eq\nC,-200000,Y,Eq\nD,100000,Y,Eq',
    mgmtFeePct: 1.5,
    perfFeePct: 15,
    hasHwm: true,
    hurdlePct: 8,
    navFrequency: 'weekly',
    reconFrequency: 'daily',
    lpReportingFrequency: 'monthly',
    backOfficeHeadcount: 2,
    hasFundAdmin: true,
    hasAnnualAudit: false,
  });

  it('scores every sub-score by its rule', () => {
    // concentration: weights 0.4, 0.3, 0.2, 0.1 (|−200k| counts as 200k); HHI = .16 + .09 + .04 + .01 = 0.30,
    //   effective N = 1/0.3 = 3.333…
    //   10 × clamp((0.50 − 0.40) / 0.40) = 10 × 0.25 = 2.5
    //   10 × clamp((3.333… − 1) / 9)    = 10 × 0.259259… = 2.592592…
    //   total 5.092592… → 5.09
    // feeTerms: 5 × (3 − 1.5)/2 = 3.75; 4 × (30 − 15)/20 = 3; HWM 4; hurdle 8 % > 0 → 2; total 12.75
    // navFrequency weekly 11; reconciliation daily 15; lpReporting monthly 10
    // governance: administrator 8 + no audit 0 = 8
    // staffing: needed = max(1, ceil(600M / 250M)) = ceil(2.4) = 3; 10 × min(1, 2/3) = 6.666… → 6.67
    expect(sub(r)).toEqual({
      concentration: 5.09,
      feeTerms: 12.75,
      navFrequency: 11,
      reconciliation: 15,
      lpReporting: 10,
      governance: 8,
      staffing: 6.67,
    });
  });

  it('sums the sub-scores, rounds to 1 dp and grades', () => {
    // 5.09 + 12.75 + 11 + 15 + 10 + 8 + 6.67 = 68.51 → 68.5 → D (60 ≤ 68.5 < 70)
    expect(r.score).toBe(68.5);
    expect(r.grade).toBe('D');
  });

  it('marks full sub-scores with no recommendation and the others with one', () => {
    const byName = Object.fromEntries(r.subScores.map((s) => [s.name, s]));
    for (const name of ['reconciliation', 'lpReporting'] as const) expect(byName[name]!.recommendation).toBeNull();
    for (const name of ['concentration', 'feeTerms', 'navFrequency', 'governance', 'staffing'] as const) {
      expect(typeof byName[name]!.recommendation).toBe('string');
    }
    expect(byName.governance!.findings).toEqual(['No annual audit.']);
    expect(r.subScores.every((s) => s.assessed)).toBe(true);
  });

  it('matches the output schema', () => {
    expect(() => fundHealthCheckOutput().parse(r)).not.toThrow();
  });
});

describe('fund health check: extremes and defaults', () => {
  it('sub-score maxima sum to 100, in the documented order', () => {
    const r = run({});
    expect(r.subScores.map((s) => [s.name, s.maxScore])).toEqual([
      ['concentration', 20],
      ['feeTerms', 15],
      ['navFrequency', 15],
      ['reconciliation', 15],
      ['lpReporting', 10],
      ['governance', 15],
      ['staffing', 10],
    ]);
    expect(r.subScores.reduce((a, s) => a + s.maxScore, 0)).toBe(100);
  });

  it('the best inputs score 100, grade A, every sub-score full and without a recommendation', () => {
    const r = run(BEST);
    expect(r.score).toBe(100);
    expect(r.grade).toBe('A');
    for (const s of r.subScores) {
      expect(s.score, s.name).toBe(s.maxScore);
      expect(s.recommendation, s.name).toBeNull();
    }
  });

  it('the worst inputs score 5, grade F', () => {
    // One position (weight 1, N 1): concentration 0; fees 3 % / 30 %, no HWM, no hurdle: 0; rarely
    // reconciled 0; no admin or audit 0; no staff 0. The NAV and LP tables have non-zero floors:
    // quarterly NAV 3 + ad hoc reporting 2 = 5.
    const r = run({
      aumUsd: 1e9,
      positionsCsv: 'Asset,Value\nA,1',
      mgmtFeePct: 3,
      perfFeePct: 30,
      hasHwm: false,
      hurdlePct: null,
      navFrequency: 'quarterly',
      reconFrequency: 'rarely',
      lpReportingFrequency: 'adhoc',
      backOfficeHeadcount: 0,
      hasFundAdmin: false,
      hasAnnualAudit: false,
    });
    expect(sub(r)).toEqual({
      concentration: 0,
      feeTerms: 0,
      navFrequency: 3,
      reconciliation: 0,
      lpReporting: 2,
      governance: 0,
      staffing: 0,
    });
    expect(r.score).toBe(5);
    expect(r.grade).toBe('F');
  });

  it('defaults: no positions gives the neutral 10 points, not assessed', () => {
    const r = run({});
    const c = r.subScores.find((s) => s.name === 'concentration')!;
    expect(c).toMatchObject({ score: 10, maxScore: 20, assessed: false });
    // Defaults: fees 2/20 with HWM, no hurdle → 2.5 + 2 + 4 = 8.5; monthly NAV 7; monthly recon 5;
    // quarterly LP 7; no admin/audit 0; AUM 0 → needed 1, headcount 0 → 0. Total 10 + 8.5 + 7 + 5 + 7 = 37.5.
    expect(sub(r)).toEqual({
      concentration: 10,
      feeTerms: 8.5,
      navFrequency: 7,
      reconciliation: 5,
      lpReporting: 7,
      governance: 0,
      staffing: 0,
    });
    expect(r.score).toBe(37.5);
    expect(r.grade).toBe('F');
  });

  it('a hurdle of 0 % counts as no hurdle', () => {
    expect(sub(run({ hurdlePct: 0 })).feeTerms).toBe(sub(run({ hurdlePct: null })).feeTerms);
    expect(sub(run({ hurdlePct: 0.5 })).feeTerms - sub(run({ hurdlePct: null })).feeTerms).toBe(2);
  });

  it('fees below 1 % / 10 % and headcount above need are capped at the maximum', () => {
    const r = run({ mgmtFeePct: 0, perfFeePct: 0, hurdlePct: 5, backOfficeHeadcount: 50, aumUsd: 100 });
    expect(sub(r).feeTerms).toBe(15);
    expect(sub(r).staffing).toBe(10);
  });

  it('an invalid positions CSV is a ValidationError', () => {
    expect(() => run({ positionsCsv: 'Asset\nA' })).toThrow(ValidationError);
    expect(() => run({ positionsCsv: 'Asset,Value\nA,abc' })).toThrow(ValidationError);
  });
});

describe('grade', () => {
  it.each([
    [100, 'A'],
    [90, 'A'],
    [89.9, 'B'],
    [89.99, 'B'],
    [80, 'B'],
    [79.9, 'C'],
    [70, 'C'],
    [69.9, 'D'],
    [60, 'D'],
    [59.9, 'F'],
    [0, 'F'],
  ] as const)('%s → %s', (score, letter) => {
    expect(grade(score)).toBe(letter);
  });
});

describe('fund health check: better inputs never lower the score (property)', () => {
  const NAV = ['quarterly', 'monthly', 'weekly', 'daily'] as const;
  const RECON = ['rarely', 'monthly', 'weekly', 'daily'] as const;
  const LP = ['adhoc', 'quarterly', 'monthly'] as const;
  const csvs = [
    '',
    'Asset,Value\nA,1',
    'Asset,Value\nA,400\nB,-300\nC,200\nD,100',
    TEN_EQUAL,
    `Asset,Value\n${Array.from({ length: 25 }, (_, i) => `Q${i},${(i + 1) * 1000}`).join('\n')}`,
  ];
  const pct = (max: number) => fc.integer({ min: 0, max: max * 100 }).map((x) => x / 100);

  const base = fc.record({
    aumUsd: fc.integer({ min: 0, max: 5_000 }).map((m) => m * 1_000_000),
    positionsCsv: fc.constantFrom(...csvs),
    mgmtFeePct: pct(5),
    perfFeePct: pct(40),
    hasHwm: fc.boolean(),
    hurdlePct: fc.option(pct(12), { nil: null }),
    navFrequency: fc.constantFrom(...NAV),
    reconFrequency: fc.constantFrom(...RECON),
    lpReportingFrequency: fc.constantFrom(...LP),
    backOfficeHeadcount: fc.integer({ min: 0, max: 40 }),
    hasFundAdmin: fc.boolean(),
    hasAnnualAudit: fc.boolean(),
  });

  /** An improvement of one input, given a random step. */
  const improvements: Record<string, (b: Inputs, step: number) => Partial<Inputs>> = {
    navFrequency: (b, s) => ({ navFrequency: NAV[Math.min(NAV.length - 1, NAV.indexOf(b.navFrequency) + (s % NAV.length))]! }),
    reconFrequency: (b, s) => ({
      reconFrequency: RECON[Math.min(RECON.length - 1, RECON.indexOf(b.reconFrequency) + (s % RECON.length))]!,
    }),
    lpReportingFrequency: (b, s) => ({
      lpReportingFrequency: LP[Math.min(LP.length - 1, LP.indexOf(b.lpReportingFrequency) + (s % LP.length))]!,
    }),
    hasFundAdmin: () => ({ hasFundAdmin: true }),
    hasAnnualAudit: () => ({ hasAnnualAudit: true }),
    hasHwm: () => ({ hasHwm: true }),
    hurdle: (b, s) => ({ hurdlePct: b.hurdlePct !== null && b.hurdlePct > 0 ? b.hurdlePct : 0.25 + (s % 10) }),
    mgmtFeePct: (b, s) => ({ mgmtFeePct: Math.max(0, (Math.round(b.mgmtFeePct * 100) - s) / 100) }),
    perfFeePct: (b, s) => ({ perfFeePct: Math.max(0, (Math.round(b.perfFeePct * 100) - s * 10) / 100) }),
    backOfficeHeadcount: (b, s) => ({ backOfficeHeadcount: b.backOfficeHeadcount + (s % 7) }),
    // Not asked for, but the same rule: less AUM for the same team never lowers staffing.
    aumUsd: (b, s) => ({ aumUsd: Math.max(0, b.aumUsd - s * 10_000_000) }),
  };

  for (const [name, improve] of Object.entries(improvements)) {
    it(`improving ${name} alone`, () => {
      fc.assert(
        fc.property(base, fc.integer({ min: 0, max: 500 }), (b, step) => {
          const before = run(b);
          const better = { ...b, ...improve(b, step) };
          const after = run(better);
          expect(after.score).toBeGreaterThanOrEqual(before.score);
          // Every sub-score is monotone too, not only the total.
          for (const [i, s] of before.subScores.entries()) expect(after.subScores[i]!.score, s.name).toBeGreaterThanOrEqual(s.score);
          // And the score stays within 0..100 with the grade of its score.
          for (const x of [before, after]) {
            expect(x.score).toBeGreaterThanOrEqual(0);
            expect(x.score).toBeLessThanOrEqual(100);
            expect(x.grade).toBe(grade(x.score));
          }
        }),
        { numRuns: 100 },
      );
    });
  }

  it('gives no recommendation with a sub-score shown full, even when only its rounding makes it full', () => {
    // 5 + 4 × (30 − 10.01) / 20 + 4 + 2 = 14.998, shown as 15 of 15.
    const fees = run({ mgmtFeePct: 0, perfFeePct: 10.01, hasHwm: true, hurdlePct: 0.01 }).subScores.find((s) => s.name === 'feeTerms')!;
    expect(fees.score).toBe(15);
    expect(fees.recommendation).toBeNull();
  });

  it('the total is the 1-dp rounding of the sum of sub-scores, each within 0..max', () => {
    fc.assert(
      fc.property(base, (b) => {
        const r = run(b);
        const cents = r.subScores.reduce((a, s) => a + Math.round(s.score * 100), 0);
        // Half-up to 1 dp of an integer number of cents.
        expect(r.score).toBe(Math.floor((cents + 5) / 10) / 10);
        for (const s of r.subScores) {
          expect(s.score).toBeGreaterThanOrEqual(0);
          expect(s.score).toBeLessThanOrEqual(s.maxScore);
          expect(s.recommendation === null).toBe(s.score >= s.maxScore);
        }
      }),
      { numRuns: 150 },
    );
  });
});

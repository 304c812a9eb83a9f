import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { navValidatorInput, validateNav } from '../../lib/calculators/nav-validator.ts';
import { ValidationError } from '../../lib/errors.ts';

/** Resolves a request with the schema's defaults and runs the validator. */
function run(request: z.input<ReturnType<typeof navValidatorInput>>) {
  return validateNav(navValidatorInput().parse(request));
}

/**
 * A January 2026 roll-forward that ties (hand computed; conventions: ISDA 2006 Definitions §4.16 for
 * Actual/365 (Fixed); CFA Program Level I, Alternative Investments, for the fee against the high-water mark).
 *
 *   days            2026-01-01 .. 2026-01-31 inclusive = 31
 *   mgmt fee        10,000,000 × 2 % × 31 / 365 = 6,200,000 / 365 = 16,986.3013… → 16,986.30
 *   NAV before PF   10,000,000 + 250,000 − 100,000 + 180,000 − 16,986.30 − 5,000 = 10,308,013.70
 *   reference       HWM (= opening) + contributions − withdrawals = 10,000,000 + 150,000 = 10,150,000
 *   perf fee        20 % × (10,308,013.70 − 10,150,000) = 20 % × 158,013.70 = 31,602.74
 *   closing         10,308,013.70 − 31,602.74 = 10,276,410.96
 */
const JANUARY = {
  periodStart: '2026-01-01',
  periodEnd: '2026-01-31',
  openingNavUsd: 10_000_000,
  contributionsUsd: 250_000,
  withdrawalsUsd: 100_000,
  grossPnlUsd: 180_000,
  mgmtFeeUsd: 16_986.3,
  perfFeeUsd: 31_602.74,
  otherExpensesUsd: 5_000,
  reportedClosingNavUsd: 10_276_410.96,
  mgmtFeePct: 2,
  perfFeePct: 20,
  hasHwm: true,
  hwmUsd: 10_000_000,
} as const;

const codes = (r: ReturnType<typeof run>) => r.findings.map((f) => f.code);

describe('nav validator: worked example that ties', () => {
  const r = run(JANUARY);

  it('rolls forward to the reported closing NAV', () => {
    expect(r.expectedClosingNavUsd).toBe(10_276_410.96);
    expect(r.reportedClosingNavUsd).toBe(10_276_410.96);
    expect(r.differenceUsd).toBe(0);
    expect(r.differenceBps).toBe(0);
    expect(r.rollForwardOk).toBe(true);
  });

  it('finds the management fee on ACT/365 for 31 days', () => {
    expect(r.mgmtFeeCheck.status).toBe('ok');
    expect(r.mgmtFeeCheck.days).toBe(31);
    expect(r.mgmtFeeCheck.expectedUsd).toBe(16_986.3);
    expect(r.mgmtFeeCheck.differenceUsd).toBe(0);
    // implied = 16,986.30 / 10,000,000 × 365 / 31 × 100 = 1.99999994… → 2.0000 at 4 dp
    expect(r.mgmtFeeCheck.impliedAnnualRatePct).toBe(2);
    // ACT/360: 6,200,000 / 360 = 17,222.22; monthly 1/12: 200,000 / 12 = 16,666.67 (January is a whole month)
    expect(r.mgmtFeeCheck.conventions).toEqual([
      { convention: 'ACT/365', expectedUsd: 16_986.3, matches: true },
      { convention: 'ACT/360', expectedUsd: 17_222.22, matches: false },
      { convention: 'monthly 1/12', expectedUsd: 16_666.67, matches: false },
    ]);
  });

  it('finds the performance fee of 20 % above the flow-adjusted HWM', () => {
    expect(r.perfFeeCheck).toEqual({
      status: 'ok',
      chargedUsd: 31_602.74,
      expectedUsd: 31_602.74,
      differenceUsd: 0,
      navBeforePerfFeeUsd: 10_308_013.7,
      referenceUsd: 10_150_000,
    });
  });

  it('is ok overall, with no LP rows given', () => {
    expect(r.lpCheck.status).toBe('not_provided');
    expect(r.ok).toBe(true);
    expect(codes(r)).toEqual(['all_checks_passed']);
  });

  it('takes an omitted HWM to be the opening NAV', () => {
    const { hwmUsd: _omitted, ...rest } = JANUARY;
    const s = run(rest);
    expect(s.perfFeeCheck.referenceUsd).toBe(10_150_000);
    expect(s.perfFeeCheck.expectedUsd).toBe(31_602.74);
    expect(s.ok).toBe(true);
  });
});

describe('nav validator: roll-forward breaks', () => {
  it('a reported closing NAV 100 too high is a break', () => {
    // difference 100; bps = 100 / 10,276,410.96 × 10,000 = 0.09731… → 0.0973
    const r = run({ ...JANUARY, reportedClosingNavUsd: 10_276_510.96 });
    expect(r.expectedClosingNavUsd).toBe(10_276_410.96);
    expect(r.differenceUsd).toBe(100);
    expect(r.differenceBps).toBe(0.0973);
    expect(r.rollForwardOk).toBe(false);
    expect(r.ok).toBe(false);
    expect(r.findings).toContainEqual(expect.objectContaining({ severity: 'error', code: 'roll_forward_break' }));
    expect(codes(r)).not.toContain('all_checks_passed');
  });

  it('a difference inside toleranceUsd is not a break; one just outside is', () => {
    expect(run({ ...JANUARY, reportedClosingNavUsd: 10_276_410.97 }).rollForwardOk).toBe(true); // 0.01 ≤ 0.01
    expect(run({ ...JANUARY, reportedClosingNavUsd: 10_276_410.98 }).rollForwardOk).toBe(false); // 0.02 > 0.01
    const loose = run({ ...JANUARY, reportedClosingNavUsd: 10_276_510.96, toleranceUsd: 100 });
    expect(loose.rollForwardOk).toBe(true);
    expect(loose.differenceUsd).toBe(100);
  });
});

describe('nav validator: management fee day counts', () => {
  it('detects ACT/360 (opening × 2 % × 31/360)', () => {
    // 10,000,000 × 2 % × 31 / 360 = 17,222.22. With this fee the NAV before PF is
    // 10,330,000 − 17,222.22 − 5,000 = 10,307,777.78; PF = 20 % × 157,777.78 = 31,555.556 → 31,555.56;
    // closing 10,276,222.22. implied rate = 17,222.22 / 10,000,000 × 365/31 × 100 = 2.02777… → 2.0278.
    const r = run({ ...JANUARY, mgmtFeeUsd: 17_222.22, perfFeeUsd: 31_555.56, reportedClosingNavUsd: 10_276_222.22 });
    expect(r.rollForwardOk).toBe(true);
    expect(r.perfFeeCheck.status).toBe('ok');
    expect(r.mgmtFeeCheck.status).toBe('other_convention');
    expect(r.mgmtFeeCheck.differenceUsd).toBe(235.92); // 17,222.22 − 16,986.30
    expect(r.mgmtFeeCheck.impliedAnnualRatePct).toBe(2.0278);
    expect(r.mgmtFeeCheck.conventions.filter((c) => c.matches).map((c) => c.convention)).toEqual(['ACT/360']);
    expect(r.findings).toContainEqual(
      expect.objectContaining({ severity: 'warning', code: 'mgmt_fee_convention', message: expect.stringContaining('ACT/360') }),
    );
    expect(r.ok).toBe(true); // another convention is a warning, not a failure
  });

  it("detects 'monthly 1/12' for a whole calendar month (February 2026)", () => {
    // 28 days. Charged opening × 2 % / 12 = 200,000 / 12 = 16,666.67.
    // ACT/365 = 200,000 × 28 / 365 = 15,342.47; ACT/360 = 200,000 × 28 / 360 = 15,555.56: neither matches.
    // No P&L: NAV before PF 9,983,333.33 is below the HWM, so no PF; closing 9,983,333.33.
    const r = run({
      periodStart: '2026-02-01',
      periodEnd: '2026-02-28',
      openingNavUsd: 10_000_000,
      mgmtFeeUsd: 16_666.67,
      reportedClosingNavUsd: 9_983_333.33,
    });
    expect(r.mgmtFeeCheck.days).toBe(28);
    expect(r.mgmtFeeCheck.status).toBe('other_convention');
    expect(r.mgmtFeeCheck.conventions).toEqual([
      { convention: 'ACT/365', expectedUsd: 15_342.47, matches: false },
      { convention: 'ACT/360', expectedUsd: 15_555.56, matches: false },
      { convention: 'monthly 1/12', expectedUsd: 16_666.67, matches: true },
    ]);
    expect(r.findings).toContainEqual(
      expect.objectContaining({ code: 'mgmt_fee_convention', message: expect.stringContaining('monthly 1/12') }),
    );
    expect(r.ok).toBe(true);
  });

  it('a calendar quarter of 90 days matches both ACT/360 and monthly 1/12', () => {
    // Q1 2026 = 31 + 28 + 31 = 90 days; 200,000 × 90 / 360 = 50,000 = 200,000 × 3 / 12; ACT/365 = 49,315.07.
    const r = run({
      periodStart: '2026-01-01',
      periodEnd: '2026-03-31',
      openingNavUsd: 10_000_000,
      mgmtFeeUsd: 50_000,
      reportedClosingNavUsd: 9_950_000,
    });
    expect(r.mgmtFeeCheck.days).toBe(90);
    expect(r.mgmtFeeCheck.expectedUsd).toBe(49_315.07);
    expect(r.mgmtFeeCheck.conventions.filter((c) => c.matches).map((c) => c.convention)).toEqual(['ACT/360', 'monthly 1/12']);
    expect(r.mgmtFeeCheck.status).toBe('other_convention');
  });

  it('monthly 1/12 does not apply to a period that is not whole calendar months', () => {
    // 2026-01-15 .. 2026-02-14 = 17 + 14 = 31 days, same ACT/365 fee as January.
    const r = run({ ...JANUARY, periodStart: '2026-01-15', periodEnd: '2026-02-14' });
    expect(r.mgmtFeeCheck.days).toBe(31);
    expect(r.mgmtFeeCheck.status).toBe('ok');
    expect(r.mgmtFeeCheck.conventions[2]).toEqual({ convention: 'monthly 1/12', expectedUsd: null, matches: false });
  });

  it('a fee that matches no day count is a mismatch and fails the check', () => {
    // 20,000 is 3,013.70 above ACT/365 (16,986.30) and matches neither 17,222.22 nor 16,666.67.
    // Keep the rest consistent: NAV before PF 10,305,000, PF 20 % × 155,000 = 31,000, closing 10,274,000.
    const r = run({ ...JANUARY, mgmtFeeUsd: 20_000, perfFeeUsd: 31_000, reportedClosingNavUsd: 10_274_000 });
    expect(r.rollForwardOk).toBe(true);
    expect(r.perfFeeCheck.status).toBe('ok');
    expect(r.mgmtFeeCheck.status).toBe('mismatch');
    expect(r.mgmtFeeCheck.differenceUsd).toBe(3_013.7);
    expect(codes(r)).toContain('mgmt_fee_mismatch');
    expect(r.ok).toBe(false);
  });

  it('without period dates the fee is not checked', () => {
    const { periodStart: _s, periodEnd: _e, ...rest } = JANUARY;
    const r = run(rest);
    expect(r.mgmtFeeCheck).toMatchObject({ status: 'not_checked', days: null, expectedUsd: null, conventions: [] });
    expect(codes(r)).toContain('mgmt_fee_not_checked');
    expect(r.ok).toBe(true);
  });
});

describe('nav validator: input schema', () => {
  it('rejects periodEnd before periodStart, on periodEnd', () => {
    const res = navValidatorInput().safeParse({ periodStart: '2026-01-31', periodEnd: '2026-01-01' });
    expect(res.success).toBe(false);
    expect(res.error!.issues.map((i) => i.path)).toEqual([['periodEnd']]);
  });

  it('accepts a one-day period (start = end)', () => {
    expect(run({ ...JANUARY, periodEnd: '2026-01-01', mgmtFeeUsd: 547.95 }).mgmtFeeCheck.days).toBe(1);
  });

  it('rejects one date without the other, and a date that does not exist', () => {
    const onlyStart = navValidatorInput().safeParse({ periodStart: '2026-01-01' });
    expect(onlyStart.success).toBe(false);
    expect(onlyStart.error!.issues.map((i) => i.path)).toEqual([['periodEnd']]);
    expect(navValidatorInput().safeParse({ periodStart: '2026-02-01', periodEnd: '2026-02-30' }).success).toBe(false);
  });
});

describe('nav validator: performance fee reference', () => {
  it('with hasHwm false the reference is opening + net flows, whatever the HWM', () => {
    // Reference = 10,000,000 + 250,000 − 100,000 = 10,150,000 → PF 31,602.74 as in the tying example,
    // although the stated HWM (10,400,000) is higher.
    const r = run({ ...JANUARY, hasHwm: false, hwmUsd: 10_400_000 });
    expect(r.perfFeeCheck.referenceUsd).toBe(10_150_000);
    expect(r.perfFeeCheck.expectedUsd).toBe(31_602.74);
    expect(r.perfFeeCheck.status).toBe('ok');
    expect(r.ok).toBe(true);
  });

  it('with the HWM above the NAV no performance fee is due, so the same charge is an overcharge', () => {
    // Reference = 10,400,000 + 150,000 = 10,550,000 > NAV before PF 10,308,013.70 → expected 0.
    const r = run({ ...JANUARY, hwmUsd: 10_400_000 });
    expect(r.perfFeeCheck).toMatchObject({ status: 'mismatch', referenceUsd: 10_550_000, expectedUsd: 0, differenceUsd: 31_602.74 });
    expect(codes(r)).toContain('perf_fee_overcharged');
    expect(r.ok).toBe(false);
  });

  it('a lower HWM raises the fee due; charging the old amount is an undercharge', () => {
    // HWM 9,900,000 → reference 10,050,000; PF = 20 % × 258,013.70 = 51,602.74; charged 31,602.74 is 20,000 short.
    const r = run({ ...JANUARY, hwmUsd: 9_900_000 });
    expect(r.perfFeeCheck).toMatchObject({ status: 'mismatch', referenceUsd: 10_050_000, expectedUsd: 51_602.74, differenceUsd: -20_000 });
    expect(codes(r)).toContain('perf_fee_undercharged');
  });
});

/** LP rows that tie: each row rolls forward and the columns sum to the JANUARY fund figures (hand computed). */
const LP_HEADER = 'lpId,openingNavUsd,contributionsUsd,withdrawalsUsd,grossPnlUsd,mgmtFeeUsd,perfFeeUsd,otherExpensesUsd,closingNavUsd';
// LP-A: 6,000,000 + 250,000 − 0 + 108,000 − 10,191.78 − 19,000 − 3,000 = 6,325,808.22
const LP_A = 'LP-A,6000000,250000,0,108000,10191.78,19000,3000,6325808.22';
// LP-B: 4,000,000 + 0 − 100,000 + 72,000 − 6,794.52 − 12,602.74 − 2,000 = 3,950,602.74
const LP_B = 'LP-B,4000000,0,100000,72000,6794.52,12602.74,2000,3950602.74';
// Sums: 10,000,000 | 250,000 | 100,000 | 180,000 | 16,986.30 | 31,602.74 | 5,000 | 10,276,410.96 = JANUARY.

describe('nav validator: LP rows CSV', () => {
  it('rows that roll forward and sum to the fund figures are ok', () => {
    const r = run({ ...JANUARY, lpRowsCsv: [LP_HEADER, LP_A, LP_B].join('\n') });
    expect(r.lpCheck.status).toBe('ok');
    expect(r.lpCheck.rowCount).toBe(2);
    expect(r.lpCheck.toleranceUsd).toBe(0.01); // max(0.01, 0.005 × 2)
    expect(r.lpCheck.rowsNotRollingForward).toEqual([]);
    expect(r.lpCheck.columnSums).toHaveLength(8);
    expect(r.lpCheck.columnSums.every((c) => c.matches && c.differenceUsd === 0)).toBe(true);
    expect(r.lpCheck.columnSums.find((c) => c.column === 'closingNavUsd')).toEqual({
      column: 'closingNavUsd',
      sumUsd: 10_276_410.96,
      fundUsd: 10_276_410.96,
      differenceUsd: 0,
      matches: true,
    });
    expect(r.ok).toBe(true);
  });

  it('a row that does not roll forward is reported with its source line number', () => {
    const brokenB = LP_B.replace('3950602.74', '3950702.74'); // 100 too high
    const r = run({ ...JANUARY, lpRowsCsv: [LP_HEADER, LP_A, '', brokenB].join('\n') }); // LP-B on line 4
    expect(r.lpCheck.status).toBe('mismatch');
    expect(r.lpCheck.rowsNotRollingForward).toEqual([{ line: 4, lpId: 'LP-B', differenceUsd: 100 }]);
    expect(r.lpCheck.columnSums.filter((c) => !c.matches).map((c) => [c.column, c.differenceUsd])).toEqual([['closingNavUsd', 100]]);
    expect(r.findings).toContainEqual(expect.objectContaining({ code: 'lp_row_roll_forward', message: expect.stringContaining('line 4') }));
    expect(codes(r)).toContain('lp_column_sum');
    expect(r.rollForwardOk).toBe(true); // the fund itself still ties
    expect(r.ok).toBe(false);
  });

  it('matches headers case-insensitively and reads formatted amounts', () => {
    const header = LP_HEADER.toUpperCase().replace('LPID', 'LpId').replace(',OPENINGNAVUSD,', ', openingnavusd ,');
    const a = 'LP-A,"$6,000,000.00",250000,0,108000,10191.78,19000,3000,"6,325,808.22"';
    const r = run({ ...JANUARY, lpRowsCsv: [header, a, LP_B].join('\r\n') });
    expect(r.lpCheck.status).toBe('ok');
    expect(r.lpCheck.rowCount).toBe(2);
  });

  it('a cell that is not a number throws a ValidationError that does not echo the cell', () => {
    const secret = 'n/a-SECRET-42';
    const csv = [LP_HEADER, LP_A, LP_B.replace('12602.74', secret)].join('\n');
    let error: unknown;
    try {
      run({ ...JANUARY, lpRowsCsv: csv });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const v = error as ValidationError;
    expect(v.errors).toEqual([{ pointer: '/lpRowsCsv', detail: 'line 3, column perfFeeUsd is not a number within ±1e15' }]);
    expect(v.message).not.toContain('SECRET');
    expect(JSON.stringify(v.errors)).not.toContain('SECRET');
    expect(v.detail).not.toContain('SECRET');
  });

  it('a header without a required column throws a ValidationError', () => {
    const header = LP_HEADER.replace(',otherExpensesUsd', '');
    const row = (line: string) =>
      line
        .split(',')
        .filter((_, i) => i !== 7)
        .join(',');
    expect(() => run({ ...JANUARY, lpRowsCsv: [header, row(LP_A)].join('\n') })).toThrow(ValidationError);
  });
});

describe('nav validator: properties', () => {
  /** An amount as whole cents in [min, max] USD, divided by 100. */
  const usd = (min: number, max: number) => fc.integer({ min: min * 100, max: max * 100 }).map((c) => c / 100);
  const parts = fc.record({
    openingNavUsd: usd(0, 1e10),
    contributionsUsd: usd(0, 1e9),
    withdrawalsUsd: usd(0, 1e9),
    grossPnlUsd: usd(-1e9, 1e9),
    mgmtFeeUsd: usd(0, 1e8),
    perfFeeUsd: usd(0, 1e8),
    otherExpensesUsd: usd(0, 1e8),
  });
  /** Closing NAV computed in integer cents, so it is exact. */
  const closingOf = (p: typeof parts extends fc.Arbitrary<infer T> ? T : never) => {
    const c = (x: number) => Math.round(x * 100);
    return (
      (c(p.openingNavUsd) +
        c(p.contributionsUsd) -
        c(p.withdrawalsUsd) +
        c(p.grossPnlUsd) -
        c(p.mgmtFeeUsd) -
        c(p.perfFeeUsd) -
        c(p.otherExpensesUsd)) /
      100
    );
  };

  it('a roll-forward built to tie always ties exactly', () => {
    fc.assert(
      fc.property(parts, fc.boolean(), (p, hasHwm) => {
        const reportedClosingNavUsd = closingOf(p);
        const r = run({ ...p, hasHwm, reportedClosingNavUsd, toleranceUsd: 0 });
        expect(r.rollForwardOk).toBe(true);
        expect(r.differenceUsd).toBe(0);
        expect(r.expectedClosingNavUsd).toBe(reportedClosingNavUsd);
        expect(codes(r)).not.toContain('roll_forward_break');
      }),
      { numRuns: 200 },
    );
  });

  it('moving the reported closing NAV by d cents gives differenceUsd = d, a break when |d| > tolerance', () => {
    fc.assert(
      fc.property(parts, fc.integer({ min: -1_000_000, max: 1_000_000 }), (p, d) => {
        const r = run({ ...p, reportedClosingNavUsd: (Math.round(closingOf(p) * 100) + d) / 100 });
        expect(Math.round(r.differenceUsd * 100)).toBe(d);
        expect(r.rollForwardOk).toBe(Math.abs(d) <= 1); // default tolerance 0.01
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * NAV validator: checks a period's NAV roll-forward, its management and performance fees, and optionally
 * the per-investor (LP) rows that make it up (docs/calculators.md).
 *
 * - Roll-forward: closing = opening + contributions − withdrawals + gross P&L − mgmt fee − perf fee − other
 *   expenses, in exact decimal arithmetic, within `toleranceUsd`.
 * - Management fee: expected = opening × mgmtFeePct × days/365 (ACT/365), days = calendar days from
 *   periodStart through periodEnd inclusive. The implied annual rate is reported, and which day-count
 *   conventions reproduce the charged fee: ACT/365, ACT/360 (opening × rate × days/360) and monthly 1/12
 *   (opening × rate × months/12, only when the period is whole calendar months). Sources: ISDA 2006
 *   Definitions §4.16 (Actual/365 (Fixed), Actual/360); CFA Program Level I, Alternative Investments.
 * - Performance fee: expected = perfFeePct × max(0, NAV before perf fee − reference), where NAV before perf
 *   fee = opening + contributions − withdrawals + gross P&L − mgmt fee − other expenses, and the reference
 *   is the flow-adjusted high-water mark (hwmUsd + contributions − withdrawals) when hasHwm, else
 *   opening + contributions − withdrawals.
 * - LP rows: every row must roll forward within `toleranceUsd`; each column's sum must equal the fund figure
 *   within max(0.01, 0.005 × rows) USD (half a cent of rounding per row).
 *
 * Omitted amounts are 0; omitted fee terms take the fee calculator's defaults (2 %, 20 %, HWM on).
 */
import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { D, cents, dec, fromPct, pct4, roundCents, sum, type Dec } from '../decimal.ts';
import { parseAmountCell, parseCsv } from '../csv.ts';
import { inputPointer, isCalendarDate, isoDate, usd, lazy } from '../validation.ts';
import { defineCalculator } from './definition.ts';

/** LP CSV columns (header matched case-insensitively). */
export const LP_COLUMNS = [
  'lpId',
  'openingNavUsd',
  'contributionsUsd',
  'withdrawalsUsd',
  'grossPnlUsd',
  'mgmtFeeUsd',
  'perfFeeUsd',
  'otherExpensesUsd',
  'closingNavUsd',
] as const;

const nonNegativeUsd = () => usd({ min: 0 });

/** Request body. Amounts in USD; rates in percent units; dates `YYYY-MM-DD`. */
export const navValidatorInput = lazy(() =>
  z
    .strictObject({
      periodStart: isoDate().nullable().default(null).describe('First day of the period; null skips the day-count checks.'),
      periodEnd: isoDate().nullable().default(null).describe('Last day of the period (inclusive).'),
      openingNavUsd: nonNegativeUsd().default(0).describe('NAV at the start of the period.'),
      contributionsUsd: nonNegativeUsd().default(0).describe('Subscriptions received in the period.'),
      withdrawalsUsd: nonNegativeUsd().default(0).describe('Redemptions paid in the period.'),
      grossPnlUsd: usd().default(0).describe('Gross P&L of the period, before fees and expenses; negative for a loss.'),
      mgmtFeeUsd: nonNegativeUsd().default(0).describe('Management fee charged for the period.'),
      perfFeeUsd: nonNegativeUsd().default(0).describe('Performance fee charged for the period.'),
      otherExpensesUsd: nonNegativeUsd().default(0).describe('Other fund expenses of the period (audit, admin, legal, ...).'),
      reportedClosingNavUsd: usd().default(0).describe('Closing NAV as reported by the administrator.'),
      mgmtFeePct: z.number().min(0).max(100).default(2).describe('Annual management fee rate, percent.'),
      perfFeePct: z.number().min(0).max(100).default(20).describe('Performance fee rate, percent.'),
      hasHwm: z.boolean().default(true).describe('Performance fee only above the high-water mark (else above opening plus net flows).'),
      hwmUsd: nonNegativeUsd()
        .nullable()
        .default(null)
        .describe('High-water mark at the period start, USD; omitted or null means the opening NAV (echoed resolved).'),
      toleranceUsd: z.number().min(0).max(1e9).default(0.01).describe('Largest difference still taken as a match, USD.'),
      lpRowsCsv: z
        .string()
        .default('')
        .describe(`Per-investor rows; header ${LP_COLUMNS.join(', ')} (case-insensitive). Empty skips the LP check.`),
    })
    .superRefine((v, ctx) => {
      if ((v.periodStart === null) !== (v.periodEnd === null)) {
        const missing = v.periodStart === null ? 'periodStart' : 'periodEnd';
        ctx.addIssue({ code: 'custom', path: [missing], message: 'periodStart and periodEnd must be given together' });
      } else if (
        v.periodStart !== null &&
        v.periodEnd !== null &&
        isCalendarDate(v.periodStart) &&
        isCalendarDate(v.periodEnd) &&
        v.periodEnd < v.periodStart
      ) {
        ctx.addIssue({ code: 'custom', path: ['periodEnd'], message: 'must not be before periodStart' });
      }
    }),
);

const finding = lazy(() =>
  z.object({
    severity: z.enum(['error', 'warning', 'info']),
    code: z.string(),
    message: z.string(),
  }),
);
type Finding = z.output<ReturnType<typeof finding>>;

const checkStatus = lazy(() => z.enum(['ok', 'mismatch', 'not_checked']));

/** Result of the NAV validator. */
export const navValidatorOutput = lazy(() =>
  z.object({
    expectedClosingNavUsd: z.number(),
    reportedClosingNavUsd: z.number(),
    differenceUsd: z.number().describe('reported − expected, USD.'),
    differenceBps: z.number().nullable().describe('difference / expected in basis points; null when expected is 0.'),
    rollForwardOk: z.boolean(),
    mgmtFeeCheck: z.object({
      status: z.enum(['ok', 'other_convention', 'mismatch', 'not_checked']),
      days: z.number().int().nullable(),
      chargedUsd: z.number(),
      expectedUsd: z.number().nullable().describe('ACT/365 expectation.'),
      differenceUsd: z.number().nullable(),
      impliedAnnualRatePct: z.number().nullable().describe('charged / opening × 365/days, percent.'),
      conventions: z.array(
        z.object({
          convention: z.enum(['ACT/365', 'ACT/360', 'monthly 1/12']),
          expectedUsd: z.number().nullable().describe('null when the convention does not apply to the period.'),
          matches: z.boolean(),
        }),
      ),
    }),
    perfFeeCheck: z.object({
      status: checkStatus(),
      chargedUsd: z.number(),
      expectedUsd: z.number(),
      differenceUsd: z.number(),
      navBeforePerfFeeUsd: z.number(),
      referenceUsd: z.number().describe('Flow-adjusted HWM (hasHwm) or opening plus net flows.'),
    }),
    lpCheck: z.object({
      status: z.enum(['ok', 'mismatch', 'not_provided']),
      rowCount: z.number().int(),
      toleranceUsd: z.number().describe('Tolerance for column sums: max(0.01, 0.005 × rows).'),
      rowsNotRollingForward: z.array(z.object({ line: z.number().int(), lpId: z.string(), differenceUsd: z.number() })),
      columnSums: z.array(
        z.object({ column: z.string(), sumUsd: z.number(), fundUsd: z.number(), differenceUsd: z.number(), matches: z.boolean() }),
      ),
    }),
    ok: z.boolean().describe('Roll-forward, fees and LP rows all check out.'),
    findings: z.array(finding()),
  }),
);

type NavInputs = z.output<ReturnType<typeof navValidatorInput>>;
type NavOutput = z.output<ReturnType<typeof navValidatorOutput>>;

/** The high-water mark at the period start, USD: `hwmUsd`, or the opening NAV when it is null. */
export function startingHwmUsd(inputs: Pick<NavInputs, 'hwmUsd' | 'openingNavUsd'>): number {
  return inputs.hwmUsd ?? inputs.openingNavUsd;
}

/** Calendar days from start through end inclusive (UTC dates `YYYY-MM-DD`). */
export function daysInclusive(start: string, end: string): number {
  return (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000 + 1;
}

/** Whole calendar months covered by [start, end] when start is a 1st and end a month's last day; else null. */
export function wholeMonths(start: string, end: string): number | null {
  const s = new Date(`${start}T00:00:00Z`);
  const e = new Date(`${end}T00:00:00Z`);
  const dayAfterEnd = new Date(e.getTime() + 86_400_000);
  if (s.getUTCDate() !== 1 || dayAfterEnd.getUTCDate() !== 1) return null;
  return (dayAfterEnd.getUTCFullYear() - s.getUTCFullYear()) * 12 + dayAfterEnd.getUTCMonth() - s.getUTCMonth();
}

function within(a: Dec, b: Dec, tolerance: Dec): boolean {
  return a.minus(b).abs().lte(tolerance);
}

function checkMgmtFee(inputs: NavInputs, tolerance: Dec, findings: Finding[]): NavOutput['mgmtFeeCheck'] {
  const charged = dec(inputs.mgmtFeeUsd);
  if (inputs.periodStart === null || inputs.periodEnd === null) {
    findings.push({
      severity: 'info',
      code: 'mgmt_fee_not_checked',
      message: 'No period dates given, so the management fee was not checked.',
    });
    return {
      status: 'not_checked',
      days: null,
      chargedUsd: cents(charged),
      expectedUsd: null,
      differenceUsd: null,
      impliedAnnualRatePct: null,
      conventions: [],
    };
  }
  const days = daysInclusive(inputs.periodStart, inputs.periodEnd);
  const months = wholeMonths(inputs.periodStart, inputs.periodEnd);
  const opening = dec(inputs.openingNavUsd);
  const rate = fromPct(inputs.mgmtFeePct);
  const act365 = roundCents(opening.times(rate).times(days).div(365));
  const act360 = roundCents(opening.times(rate).times(days).div(360));
  const monthly = months === null ? null : roundCents(opening.times(rate).times(months).div(12));
  const conventions = [
    { convention: 'ACT/365' as const, expected: act365 },
    { convention: 'ACT/360' as const, expected: act360 },
    { convention: 'monthly 1/12' as const, expected: monthly },
  ].map(({ convention, expected }) => ({
    convention,
    expectedUsd: expected === null ? null : cents(expected),
    matches: expected !== null && within(charged, expected, tolerance),
  }));
  const implied = opening.gt(0) ? charged.div(opening).times(365).div(days).times(100) : null;
  const status = conventions[0]!.matches ? 'ok' : conventions.some((c) => c.matches) ? 'other_convention' : 'mismatch';
  if (status === 'other_convention') {
    const used = conventions
      .filter((c) => c.matches)
      .map((c) => c.convention)
      .join(' or ');
    findings.push({ severity: 'warning', code: 'mgmt_fee_convention', message: `The management fee matches ${used}, not ACT/365.` });
  } else if (status === 'mismatch') {
    findings.push({
      severity: 'error',
      code: 'mgmt_fee_mismatch',
      message: `The management fee differs from ACT/365 by ${cents(charged.minus(act365))} USD and matches no common day count.`,
    });
  }
  return {
    status,
    days,
    chargedUsd: cents(charged),
    expectedUsd: cents(act365),
    differenceUsd: cents(charged.minus(act365)),
    impliedAnnualRatePct: implied === null ? null : pct4(implied),
    conventions,
  };
}

function checkPerfFee(inputs: NavInputs, tolerance: Dec, findings: Finding[]): NavOutput['perfFeeCheck'] {
  const netFlows = dec(inputs.contributionsUsd).minus(inputs.withdrawalsUsd);
  const navBeforePerfFee = rollForward({ ...inputs, perfFeeUsd: 0 });
  const reference = inputs.hasHwm ? dec(startingHwmUsd(inputs)).plus(netFlows) : dec(inputs.openingNavUsd).plus(netFlows);
  const expected = roundCents(fromPct(inputs.perfFeePct).times(D.max(0, navBeforePerfFee.minus(reference))));
  const charged = dec(inputs.perfFeeUsd);
  const ok = within(charged, expected, tolerance);
  if (!ok) {
    findings.push({
      severity: 'error',
      code: charged.gt(expected) ? 'perf_fee_overcharged' : 'perf_fee_undercharged',
      message: `The performance fee differs from the expected ${cents(expected)} USD by ${cents(charged.minus(expected))} USD.`,
    });
  }
  return {
    status: ok ? 'ok' : 'mismatch',
    chargedUsd: cents(charged),
    expectedUsd: cents(expected),
    differenceUsd: cents(charged.minus(expected)),
    navBeforePerfFeeUsd: cents(navBeforePerfFee),
    referenceUsd: cents(reference),
  };
}

/** Expected closing NAV of a roll-forward, exact. */
export function rollForward(v: {
  openingNavUsd: number | Dec;
  contributionsUsd: number | Dec;
  withdrawalsUsd: number | Dec;
  grossPnlUsd: number | Dec;
  mgmtFeeUsd: number | Dec;
  perfFeeUsd: number | Dec;
  otherExpensesUsd: number | Dec;
}): Dec {
  return dec(v.openingNavUsd)
    .plus(v.contributionsUsd)
    .minus(v.withdrawalsUsd)
    .plus(v.grossPnlUsd)
    .minus(v.mgmtFeeUsd)
    .minus(v.perfFeeUsd)
    .minus(v.otherExpensesUsd);
}

const FUND_FIGURE: Record<Exclude<(typeof LP_COLUMNS)[number], 'lpId'>, keyof NavInputs> = {
  openingNavUsd: 'openingNavUsd',
  contributionsUsd: 'contributionsUsd',
  withdrawalsUsd: 'withdrawalsUsd',
  grossPnlUsd: 'grossPnlUsd',
  mgmtFeeUsd: 'mgmtFeeUsd',
  perfFeeUsd: 'perfFeeUsd',
  otherExpensesUsd: 'otherExpensesUsd',
  closingNavUsd: 'reportedClosingNavUsd',
};

function checkLpRows(inputs: NavInputs, tolerance: Dec, findings: Finding[]): NavOutput['lpCheck'] {
  const rows = parseCsv(inputs.lpRowsCsv, 'lpRowsCsv', { required: LP_COLUMNS });
  if (rows.length === 0) {
    return { status: 'not_provided', rowCount: 0, toleranceUsd: 0.01, rowsNotRollingForward: [], columnSums: [] };
  }
  const amountColumns = Object.keys(FUND_FIGURE) as (keyof typeof FUND_FIGURE)[];
  const parsed = rows.map((row) => {
    const amounts = {} as Record<keyof typeof FUND_FIGURE, Dec>;
    for (const column of amountColumns) {
      const text = parseAmountCell(row.cells[column] ?? '');
      if (text === null) {
        throw new ValidationError([
          { pointer: inputPointer(['lpRowsCsv']), detail: `line ${row.line}, column ${column} is not a number within ±1e15` },
        ]);
      }
      amounts[column] = dec(text);
    }
    return { line: row.line, lpId: row.cells.lpId ?? '', amounts };
  });
  const rowsNotRollingForward = parsed.flatMap(({ line, lpId, amounts }) => {
    const difference = amounts.closingNavUsd.minus(rollForward(amounts));
    return difference.abs().gt(tolerance) ? [{ line, lpId, differenceUsd: cents(difference) }] : [];
  });
  const sumTolerance = D.max('0.01', dec('0.005').times(parsed.length));
  const columnSums = amountColumns.map((column) => {
    const total = sum(parsed.map((p) => p.amounts[column]));
    const fund = dec(inputs[FUND_FIGURE[column]] as number);
    return {
      column,
      sumUsd: cents(total),
      fundUsd: cents(fund),
      differenceUsd: cents(total.minus(fund)),
      matches: within(total, fund, sumTolerance),
    };
  });
  for (const r of rowsNotRollingForward) {
    findings.push({
      severity: 'error',
      code: 'lp_row_roll_forward',
      message: `LP row on line ${r.line} does not roll forward (off by ${r.differenceUsd} USD).`,
    });
  }
  for (const c of columnSums.filter((c) => !c.matches)) {
    findings.push({
      severity: 'error',
      code: 'lp_column_sum',
      message: `LP column ${c.column} sums to ${c.sumUsd} USD, the fund figure is ${c.fundUsd} USD.`,
    });
  }
  const ok = rowsNotRollingForward.length === 0 && columnSums.every((c) => c.matches);
  return { status: ok ? 'ok' : 'mismatch', rowCount: parsed.length, toleranceUsd: cents(sumTolerance), rowsNotRollingForward, columnSums };
}

/** Validates a NAV roll-forward. Pure; see the module comment. @throws {ValidationError} for a bad LP CSV. */
export function validateNav(inputs: NavInputs): NavOutput {
  const tolerance = dec(inputs.toleranceUsd);
  const findings: Finding[] = [];
  const expected = rollForward(inputs);
  const reported = dec(inputs.reportedClosingNavUsd);
  const difference = reported.minus(expected);
  const rollForwardOk = difference.abs().lte(tolerance);
  if (!rollForwardOk) {
    findings.push({
      severity: 'error',
      code: 'roll_forward_break',
      message: `The reported closing NAV differs from the roll-forward by ${cents(difference)} USD.`,
    });
  }
  const mgmtFeeCheck = checkMgmtFee(inputs, tolerance, findings);
  const perfFeeCheck = checkPerfFee(inputs, tolerance, findings);
  const lpCheck = checkLpRows(inputs, tolerance, findings);
  const ok = rollForwardOk && mgmtFeeCheck.status !== 'mismatch' && perfFeeCheck.status === 'ok' && lpCheck.status !== 'mismatch';
  if (ok) findings.push({ severity: 'info', code: 'all_checks_passed', message: 'Every check that could run passed.' });
  return {
    expectedClosingNavUsd: cents(expected),
    reportedClosingNavUsd: cents(reported),
    differenceUsd: cents(difference),
    differenceBps: expected.isZero() ? null : pct4(difference.div(expected).times(10_000)),
    rollForwardOk,
    mgmtFeeCheck,
    perfFeeCheck,
    lpCheck,
    ok,
    findings,
  };
}

/** The NAV validator (REST, and the MCP tool `calc_nav_validator`). */
export const navValidator = defineCalculator({
  slug: 'nav-validator',
  title: 'NAV roll-forward validator',
  description:
    'Checks a month-end NAV roll-forward for arithmetic and fee errors: roll-forward, management fee day count, performance fee against the high-water mark, and per-investor rows.',
  input: navValidatorInput,
  output: navValidatorOutput,
  example: {
    periodStart: '2026-01-01',
    periodEnd: '2026-01-31',
    openingNavUsd: 10_000_000,
    contributionsUsd: 500_000,
    withdrawalsUsd: 0,
    grossPnlUsd: 250_000,
    mgmtFeeUsd: 17_260.27,
    perfFeeUsd: 46_547.95,
    otherExpensesUsd: 5_000,
    reportedClosingNavUsd: 10_681_191.78,
  },
  resolve: (inputs) => ({ ...inputs, hwmUsd: startingHwmUsd(inputs) }),
  run: validateNav,
});

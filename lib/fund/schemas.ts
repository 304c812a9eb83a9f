/**
 * Field schemas of fund-data responses (docs/api.md#conventions): the building blocks of every resource's allow-list.
 * Every object schema built from them must be strict (`z.strictObject`), so an unknown field fails.
 */
import * as z from 'zod';
import { lazy } from '../validation.ts';
import { RECON_STATUSES, RUN_STATUSES } from './rows.ts';

// Each field schema is built once, on first use, and shared by every allow-list that holds it (a zod schema is
// immutable; `.describe()` on it makes a new one): building the same three-step schema for each of some
// eighty fields was a share of the Worker's startup (docs/performance.md#todays-figures).

/** Money: a decimal string with exactly 2 dp, in the fund's base currency, e.g. "1250000.00". */
export const money = lazy(() =>
  z
    .string()
    .regex(/^-?\d+\.\d{2}$/)
    .describe('Money in the base currency: a decimal string, 2 dp.'),
);
/** A quantity or price: a decimal string with up to 18 dp. */
export const decimal = lazy(() =>
  z
    .string()
    .regex(/^-?\d+(\.\d{1,18})?$/)
    .describe('A decimal string (up to 18 dp).'),
);
/** A percentage in percent units, 4 dp (2.5 = 2.5 %); null when its base is zero. */
export const pct = lazy(() => z.number().nullable().describe('Percent units, 4 dp; null when the base is zero.'));
/** A date `YYYY-MM-DD` (UTC). */
export const date = lazy(() =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .describe('A date, YYYY-MM-DD (UTC).'),
);
/** The fund's base currency, ISO 4217. */
export const currency = lazy(() =>
  z
    .string()
    .regex(/^[A-Z]{3}$/)
    .describe("The fund's base currency (ISO 4217)."),
);
/** A label from the fund's data (asset, venue, source type, account name): short text, never free-form notes. */
export const label = lazy(() => z.string().max(200));

// ---------------------------------------------------------------------------------------------------------
// Row schemas shared by a tool's allow-list and the analytic that builds the rows (whose types are their
// `z.output`, so a shape is declared once).

/** One live position as the positions endpoint returns it (money and quantities as decimal strings). */
export const positionViewSchema = lazy(() =>
  z.strictObject({
    asset: label(),
    assetClass: label(),
    sourceType: label(),
    venue: label(),
    quantity: decimal(),
    price: decimal(),
    marketValue: money(),
    weightPct: pct().describe('marketValue / NAV × 100.'),
  }),
);
export type PositionView = z.output<ReturnType<typeof positionViewSchema>>;

/**
 * The exposure amounts of one NAV run (money as decimal strings in the fund's base currency): NAV, long
 * (Σ positive non-cash market values), short (Σ |negative| ones), gross = long + short, net = long − short,
 * and cash. The one shape of the exposure snapshot's and each exposure-series row's amounts.
 */
export const exposureAmounts = () => ({ nav: money(), long: money(), short: money(), gross: money(), net: money(), cash: money() });

/** One breakdown row: a group's market value and its weight in NAV. */
export const breakdownRowSchema = lazy(() => z.strictObject({ key: label(), marketValue: money(), weightPct: pct() }));
export type BreakdownRow = z.output<ReturnType<typeof breakdownRowSchema>>;

/** One row of the NAV history: a run, its reconciliation and whether it is usable (docs/fund-data.md#nav-runs-and-which-one-an-endpoint-reads). */
export const navHistoryRowSchema = lazy(() =>
  z.strictObject({
    navDate: date(),
    status: z.enum(RUN_STATUSES),
    shadowNav: money().nullable(),
    adminNav: money().nullable(),
    differenceBps: z.number().nullable(),
    reconStatus: z.enum(RECON_STATUSES).nullable(),
    usable: z.boolean(),
  }),
);
export type NavHistoryRow = z.output<ReturnType<typeof navHistoryRowSchema>>;

/**
 * Raw fund rows: what a fund store returns, before any analytics (the shapes the Postgres tables of
 * `db/migrations/` and the embedded synthetic fund share; docs/fund-data.md#data-model). Money and quantities are decimal strings, exactly as the
 * database's NUMERIC columns give them: money in the fund's base currency with 2 dp, quantities and prices
 * with up to 18 dp. Dates are `YYYY-MM-DD` (UTC).
 *
 * The store is a trust boundary: {@link guardRows} checks every row a store returns against the exact field
 * list of its kind, and refuses a paper-book position, before any figure is computed from it. A store that
 * returns more than it was asked for fails closed (500 `redaction_failed`), like the output scan does.
 */
import { RedactionFailedError } from '../errors.ts';
import {
  ACCOUNT_BALANCES,
  ACCOUNTS,
  CAPITAL_ACCOUNTS,
  EXPENSES,
  FEE_TERMS,
  FUNDS,
  INVESTOR_CLASSES,
  INVESTORS,
  type LEDGER_LINES,
  LEDGER_SUMS,
  NAV_RUNS,
  POSITION_SUMS,
  POSITIONS,
  PRICES,
  type RowOf,
  SHARE_CLASSES,
  type Table,
  VAR_MOMENTS,
} from './tables.ts';

export {
  type AccountRole,
  CRYSTALLIZATIONS,
  type Crystallization,
  EXPENSE_STATUSES,
  type ExpenseStatus,
  HURDLE_TYPES,
  type HurdleType,
  RECON_STATUSES,
  type ReconStatus,
  RUN_STATUSES,
  type RunStatus,
} from './tables.ts';

// Each row type is derived from its table descriptor in lib/fund/tables.ts (field meanings and units there).

/** The fund itself. */
export type FundRow = RowOf<typeof FUNDS>;
/** A share class and its fee terms (share_classes joined with fee_terms). */
export type ShareClassRow = RowOf<typeof SHARE_CLASSES> & RowOf<typeof FEE_TERMS>;
/** One daily NAV run. */
export type NavRunRow = RowOf<typeof NAV_RUNS>;
/** A position of a NAV run's snapshot. `book` `paper` rows exist in the data and never leave the service. */
export type PositionRow = RowOf<typeof POSITIONS>;
/**
 * A run's live positions of one asset class and one sign (negative, or not), their market values summed:
 * `marketValue` < 0 sums the short ones. What exposure needs of a run, without its positions.
 */
export type PositionSumRow = RowOf<typeof POSITION_SUMS>;
/** A daily closing price of an asset in the base currency. */
export type PriceRow = RowOf<typeof PRICES>;
/** VaR's moments for one held asset (see `VAR_MOMENTS` in lib/fund/tables.ts). */
export type VarMomentRow = RowOf<typeof VAR_MOMENTS>;
/** An account of the chart of accounts. */
export type AccountRow = RowOf<typeof ACCOUNTS>;
/**
 * One line of a balanced journal entry (amounts in the base currency). The position sub-ledger convention
 * P&L attribution relies on: a line carrying a non-cash position's `asset` and `venue` is a purchase
 * (debit − credit > 0) or sale of that position at cost; marks to market carry no asset; cash legs carry the
 * cash position's asset and venue.
 */
export type LedgerLineRow = RowOf<typeof LEDGER_LINES>;
/**
 * Ledger lines of a span summed per account, asset and venue: the totals of their debit and of their credit
 * column (money, ≥ 0). A sum of lines is read as a line is: by its account's role, or as a purchase or
 * sale at cost of the position its asset and venue name.
 */
export type LedgerSumRow = RowOf<typeof LEDGER_SUMS>;
/**
 * An account's ledger lines through a date, summed: the totals of its debit and of its credit column (money,
 * ≥ 0), from every line of the account dated on or before that date.
 */
export type AccountBalanceRow = RowOf<typeof ACCOUNT_BALANCES>;
/** An investor with the identity data the store holds (PII; read only so redaction can scan for it). */
export type InvestorRow = RowOf<typeof INVESTORS>;
/** An investor's id and share class: what a capital read returns of each investor (no identity data). */
export type InvestorClassRow = RowOf<typeof INVESTOR_CLASSES>;
/**
 * An investor's capital account at a complete NAV run, cumulative since inception: `capital` is the closing
 * balance, and capital = contributions − withdrawals + pnlAllocation − mgmtFee − perfFee.
 */
export type CapitalRow = RowOf<typeof CAPITAL_ACCOUNTS>;
/** An expense accrual and, once settled, its payment. */
export type ExpenseRow = RowOf<typeof EXPENSES>;

/** Every kind of row a store returns, by name. */
export interface RowKinds {
  fund: FundRow;
  shareClasses: ShareClassRow;
  runs: NavRunRow;
  positions: PositionRow;
  positionSums: PositionSumRow;
  prices: PriceRow;
  varMoments: VarMomentRow;
  accounts: AccountRow;
  ledger: LedgerSumRow;
  balances: AccountBalanceRow;
  investors: InvestorRow;
  investorClasses: InvestorClassRow;
  capital: CapitalRow;
  expenses: ExpenseRow;
}

/** The stored table(s) each row kind is read from (a share class row joins its fee terms). */
export const ROW_TABLES: { [K in keyof RowKinds]: readonly Table[] } = {
  fund: [FUNDS],
  shareClasses: [SHARE_CLASSES, FEE_TERMS],
  runs: [NAV_RUNS],
  positions: [POSITIONS],
  positionSums: [POSITION_SUMS],
  prices: [PRICES],
  varMoments: [VAR_MOMENTS],
  accounts: [ACCOUNTS],
  ledger: [LEDGER_SUMS],
  balances: [ACCOUNT_BALANCES],
  investors: [INVESTORS],
  investorClasses: [INVESTOR_CLASSES],
  capital: [CAPITAL_ACCOUNTS],
  expenses: [EXPENSES],
};

/** The exact field list of each row kind (its tables' fields, once each): a store row with any other field is refused. */
export const ROW_FIELDS = Object.fromEntries(
  Object.entries(ROW_TABLES).map(([kind, tables]) => [kind, [...new Set(tables.flatMap((t) => Object.keys(t.columns)))]]),
) as unknown as { [K in keyof RowKinds]: readonly (keyof RowKinds[K])[] };

const FIELD_SETS = Object.fromEntries(
  Object.entries(ROW_FIELDS).map(([kind, fields]) => [kind, new Set<string>(fields as readonly string[])]),
) as Record<keyof RowKinds, Set<string>>;

/**
 * Checks rows a store returned: each has exactly the fields of its kind, and no position is on the paper book.
 * @returns the same rows
 * @throws {RedactionFailedError} on any extra or missing field, or a paper row (fail closed: no data leaves)
 */
export function guardRows<K extends keyof RowKinds>(kind: K, rows: readonly RowKinds[K][]): readonly RowKinds[K][] {
  const fields = FIELD_SETS[kind];
  for (const row of rows) {
    if (row === null || typeof row !== 'object') throw new RedactionFailedError('store_row');
    let n = 0;
    for (const key in row) {
      if (!fields.has(key)) throw new RedactionFailedError('store_row');
      n++;
    }
    if (n !== fields.size) throw new RedactionFailedError('store_row');
    if (kind === 'positions' && (row as PositionRow).book !== 'live') throw new RedactionFailedError('store_row');
  }
  return rows;
}

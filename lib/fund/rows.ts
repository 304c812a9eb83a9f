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

/** The fund itself. `aumTarget` in the base currency; `reconToleranceBps`: shadow vs administrator tolerance. */
export interface FundRow {
  fundId: string;
  name: string;
  baseCurrency: string;
  inceptionDate: string;
  aumTarget: string;
  reconToleranceBps: string;
}

/** A share class and its fee terms. Fee rates in percent per year (`"2.0000"` = 2 %). */
export interface ShareClassRow {
  shareClassId: string;
  name: string;
  mgmtFeePct: string;
  perfFeePct: string;
  /** Annual hurdle rate in percent, or null for none. */
  hurdlePct: string | null;
  hurdleType: HurdleType | null;
  hasHwm: boolean;
  crystallization: Crystallization;
}

/** Hurdle types: a hard hurdle charges only above it, a soft one on the whole return once passed. */
export const HURDLE_TYPES = ['hard', 'soft'] as const;
export type HurdleType = (typeof HURDLE_TYPES)[number];
/** How often a performance fee crystallizes. */
export const CRYSTALLIZATIONS = ['annual', 'quarterly'] as const;
export type Crystallization = (typeof CRYSTALLIZATIONS)[number];
/** Status of a daily NAV run. */
export const RUN_STATUSES = ['complete', 'partial', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Reconciliation of the shadow NAV against the administrator's: within tolerance, or not (a run without a shadow NAV has none: null). */
export const RECON_STATUSES = ['matched', 'break'] as const;
export type ReconStatus = (typeof RECON_STATUSES)[number];
/** Status of an expense. */
export const EXPENSE_STATUSES = ['accrued', 'paid'] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];

/**
 * One daily NAV run. `shadowNav` is null when the run failed; `netFlows` are the subscriptions less
 * redemptions dealt at this NAV date (included in its NAV).
 */
export interface NavRunRow {
  navDate: string;
  status: RunStatus;
  shadowNav: string | null;
  adminNav: string | null;
  reconStatus: ReconStatus | null;
  netFlows: string;
}

/** A position of a NAV run's snapshot. `book` `paper` rows exist in the data and never leave the service. */
export interface PositionRow {
  navDate: string;
  asset: string;
  /** `crypto`, `perpetual`, `stablecoin` or `fiat`. */
  assetClass: string;
  /** `exchange`, `custodian`, `onchain_wallet`, `defi` or `bank`. */
  sourceType: string;
  venue: string;
  book: 'live' | 'paper';
  /** Signed: negative for a short. */
  quantity: string;
  /** Price in the base currency. */
  price: string;
  /** quantity × price, rounded half-up to cents; negative for a short. */
  marketValue: string;
}

/** A daily closing price of an asset in the base currency. */
export interface PriceRow {
  asset: string;
  priceDate: string;
  price: string;
}

/**
 * What an account is for, so analytics read any chart of accounts: `fee_expense` (management and
 * performance fees), `operating_expense` (administration, audit, ...), `capital_contributions` and
 * `capital_withdrawals` (investor flows), or `other`.
 */
export type AccountRole = 'fee_expense' | 'operating_expense' | 'capital_contributions' | 'capital_withdrawals' | 'other';

/** An account of the chart of accounts. */
export interface AccountRow {
  code: string;
  name: string;
  type: 'asset' | 'liability' | 'equity' | 'income' | 'expense';
  role: AccountRole;
}

/**
 * One line of a balanced journal entry (amounts in the base currency). The position sub-ledger convention
 * P&L attribution relies on: a line carrying a non-cash position's `asset` and `venue` is a purchase
 * (debit − credit > 0) or sale of that position at cost; marks to market carry no asset; cash legs carry the
 * cash position's asset and venue.
 */
export interface LedgerLineRow {
  entryId: string;
  entryDate: string;
  accountCode: string;
  asset: string | null;
  venue: string | null;
  debit: string;
  credit: string;
}

/** An investor with the identity data the store holds (PII; read only so redaction can scan for it). */
export interface InvestorRow {
  investorId: string;
  shareClassId: string;
  legalName: string;
  email: string;
  taxId: string;
  bankAccount: string;
}

/**
 * An investor's capital account at a complete NAV run, cumulative since inception: `capital` is the closing
 * balance, and capital = contributions − withdrawals + pnlAllocation − mgmtFee − perfFee.
 */
export interface CapitalRow {
  navDate: string;
  investorId: string;
  capital: string;
  contributions: string;
  withdrawals: string;
  pnlAllocation: string;
  mgmtFee: string;
  perfFee: string;
}

/** An expense accrual and, once settled, its payment. */
export interface ExpenseRow {
  id: string;
  date: string;
  category: string;
  description: string;
  amount: string;
  status: ExpenseStatus;
  paidDate: string | null;
}

/** Every kind of row a store returns, by name. */
export interface RowKinds {
  fund: FundRow;
  shareClasses: ShareClassRow;
  runs: NavRunRow;
  positions: PositionRow;
  prices: PriceRow;
  accounts: AccountRow;
  ledger: LedgerLineRow;
  investors: InvestorRow;
  capital: CapitalRow;
  expenses: ExpenseRow;
}

/** The exact field list of each row kind: a store row with any other field is refused. */
export const ROW_FIELDS: { [K in keyof RowKinds]: readonly (keyof RowKinds[K])[] } = {
  fund: ['fundId', 'name', 'baseCurrency', 'inceptionDate', 'aumTarget', 'reconToleranceBps'],
  shareClasses: ['shareClassId', 'name', 'mgmtFeePct', 'perfFeePct', 'hurdlePct', 'hurdleType', 'hasHwm', 'crystallization'],
  runs: ['navDate', 'status', 'shadowNav', 'adminNav', 'reconStatus', 'netFlows'],
  positions: ['navDate', 'asset', 'assetClass', 'sourceType', 'venue', 'book', 'quantity', 'price', 'marketValue'],
  prices: ['asset', 'priceDate', 'price'],
  accounts: ['code', 'name', 'type', 'role'],
  ledger: ['entryId', 'entryDate', 'accountCode', 'asset', 'venue', 'debit', 'credit'],
  investors: ['investorId', 'shareClassId', 'legalName', 'email', 'taxId', 'bankAccount'],
  capital: ['navDate', 'investorId', 'capital', 'contributions', 'withdrawals', 'pnlAllocation', 'mgmtFee', 'perfFee'],
  expenses: ['id', 'date', 'category', 'description', 'amount', 'status', 'paidDate'],
};

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

/**
 * Table descriptors: one per stored table of `db/migrations/`, naming each column once — its SQL name, the
 * row field it maps to (the key), its SQL type and whether it may be NULL. Everything else that names a
 * column is derived from these: the row types and the store-row field guard of `lib/fund/rows.ts`, the
 * select lists of `lib/fund/postgres-store.ts`, the insert column lists of `operator/db/seed.ts`, and the file
 * format of `npm run fund` (operator/bundle/format.ts, docs/import.md). The DDL stays
 * SQL (migrations are history); test/db/migrations.test.ts checks the descriptors against the migrated schema.
 *
 * A row type is derived with {@link RowOf}: a column's TypeScript type is the one given to its constructor
 * (`text<HurdleType>(...)`), `| null` when nullable. Money and quantities (NUMERIC) and dates (DATE) are
 * strings: decimal text with the scale they were written with, and `YYYY-MM-DD` (UTC).
 */

/** SQL types the fund tables use. */
export type SqlType = 'text' | 'date' | 'numeric' | 'boolean' | 'integer';

declare const ROW_TYPE: unique symbol;

/** A column: its SQL name, SQL type and nullability; `T` is the field's TypeScript type (type-level only). */
export interface Column<T> {
  readonly column: string;
  readonly type: SqlType;
  readonly nullable: boolean;
  /** The values a text column allows (its CHECK constraint or the analytics' vocabulary), when it is an enum. */
  readonly values?: readonly string[];
  /**
   * Personal data: an investor's identity (internal id included, which the redaction scans answers for) or
   * free text that may name someone (ledger memos, expense descriptions). The import never echoes it.
   */
  readonly personal?: boolean;
  /** Carries `T` for {@link RowOf}; never present at run time. */
  readonly [ROW_TYPE]?: T;
}

/** A stored table: its SQL name and its columns by row field. */
export interface Table<C extends Record<string, Column<unknown>> = Record<string, Column<unknown>>> {
  readonly table: string;
  readonly columns: C;
  /** Columns written by the seed but never selected (e.g. ledger memos, which may name an investor). */
  readonly unselected?: Record<string, Column<unknown>>;
}

/** The row type of a table's columns: each field with its column's TypeScript type. */
export type RowOf<T extends Table> = { -readonly [K in keyof T['columns']]: T['columns'][K] extends Column<infer V> ? V : never };

const column =
  <T>(type: SqlType) =>
  (name: string): Column<T> => ({ column: name, type, nullable: false });

/** A `text` column (optionally narrowed to a union of its allowed values). */
const text = <T extends string = string>(name: string) => column<T>('text')(name);
/** A `text` column that holds one of `values`. */
const oneOf =
  <const V extends readonly string[]>(values: V) =>
  (name: string): Column<V[number]> => ({ ...column<V[number]>('text')(name), values });
/** A `text` column whose values the import checks against `values`, typed as any string (the analytics read others too). */
const known =
  (values: readonly string[]) =>
  (name: string): Column<string> => ({ ...text(name), values });
/** The same column, marked as personal data. */
const personal = <T>(c: Column<T>): Column<T> => ({ ...c, personal: true });
/** A `date` column, read as `YYYY-MM-DD`. */
const date = column<string>('date');
/** A `numeric` column (money, quantity, price or rate), read as decimal text. */
const numeric = column<string>('numeric');
const boolean = column<boolean>('boolean');
const integer = column<number>('integer');
/** The same column, NULL allowed. */
const nullable = <T>(c: Column<T>): Column<T | null> => ({ ...c, nullable: true });

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
/** Book of a position: `live` (the fund's) or `paper` (paper trading, never served). */
export const BOOKS = ['live', 'paper'] as const;
/** Asset classes the analytics know: fiat and stablecoins are cash, perpetuals count at notional. */
export const ASSET_CLASSES = ['crypto', 'perpetual', 'stablecoin', 'fiat'] as const;
/** Where a position is held. */
export const SOURCE_TYPES = ['exchange', 'custodian', 'onchain_wallet', 'defi', 'bank'] as const;
/** Account types of the chart of accounts. */
export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'income', 'expense'] as const;
/** Status of an expense. */
export const EXPENSE_STATUSES = ['accrued', 'paid'] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];
/**
 * What an account is for, so analytics read any chart of accounts: `fee_expense` (management and
 * performance fees), `operating_expense` (administration, audit, ...), `capital_contributions` and
 * `capital_withdrawals` (investor flows), or `other`.
 */
export const ACCOUNT_ROLES = ['fee_expense', 'operating_expense', 'capital_contributions', 'capital_withdrawals', 'other'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/** The fund. `aumTarget` in the base currency; `reconToleranceBps`: shadow vs administrator tolerance (basis points). */
export const FUNDS = {
  table: 'funds',
  columns: {
    fundId: text('fund_id'),
    name: text('name'),
    baseCurrency: text('base_currency'),
    inceptionDate: date('inception_date'),
    aumTarget: numeric('aum_target'),
    reconToleranceBps: numeric('recon_tolerance_bps'),
  },
} as const satisfies Table;

/** A share class (its fee terms are {@link FEE_TERMS}). */
export const SHARE_CLASSES = {
  table: 'share_classes',
  columns: { shareClassId: text('share_class_id'), name: text('name') },
} as const satisfies Table;

/** Fee terms of a share class: rates in percent per year (`"2.0000"` = 2 %); `hurdlePct` null for no hurdle. */
export const FEE_TERMS = {
  table: 'fee_terms',
  columns: {
    shareClassId: text('share_class_id'),
    mgmtFeePct: numeric('mgmt_fee_pct'),
    perfFeePct: numeric('perf_fee_pct'),
    hurdlePct: nullable(numeric('hurdle_pct')),
    hurdleType: nullable(oneOf(HURDLE_TYPES)('hurdle_type')),
    hasHwm: boolean('has_hwm'),
    crystallization: oneOf(CRYSTALLIZATIONS)('crystallization'),
  },
} as const satisfies Table;

/** One daily NAV run: `shadowNav` null when the run failed; `netFlows` dealt at this NAV date (base currency). */
export const NAV_RUNS = {
  table: 'nav_runs',
  columns: {
    navDate: date('nav_date'),
    status: oneOf(RUN_STATUSES)('status'),
    shadowNav: nullable(numeric('shadow_nav')),
    adminNav: nullable(numeric('admin_nav')),
    reconStatus: nullable(oneOf(RECON_STATUSES)('recon_status')),
    netFlows: numeric('net_flows'),
  },
} as const satisfies Table;

/**
 * A position of a run's snapshot: `quantity` signed (negative for a short), `price` in the base currency,
 * `marketValue` = quantity × price rounded half-up to cents. `assetClass`: `crypto`, `perpetual`,
 * `stablecoin` or `fiat`; `sourceType`: `exchange`, `custodian`, `onchain_wallet`, `defi` or `bank`.
 */
export const POSITIONS = {
  table: 'positions',
  columns: {
    navDate: date('nav_date'),
    asset: text('asset'),
    assetClass: known(ASSET_CLASSES)('asset_class'),
    sourceType: known(SOURCE_TYPES)('source_type'),
    venue: text('venue'),
    book: oneOf(BOOKS)('book'),
    quantity: numeric('quantity'),
    price: numeric('price'),
    marketValue: numeric('market_value'),
  },
} as const satisfies Table;

/** A daily closing price of an asset in the base currency. */
export const PRICES = {
  table: 'prices',
  columns: { asset: text('asset'), priceDate: date('price_date'), price: numeric('price') },
} as const satisfies Table;

/** An account of the chart of accounts. */
export const ACCOUNTS = {
  table: 'accounts',
  columns: {
    code: text('code'),
    name: text('name'),
    type: oneOf(ACCOUNT_TYPES)('type'),
    role: oneOf(ACCOUNT_ROLES)('role'),
  },
} as const satisfies Table;

/** A journal line (amounts in the base currency). `lineNo` and `memo` are stored, never selected. */
export const LEDGER_LINES = {
  table: 'ledger_lines',
  columns: {
    entryId: text('entry_id'),
    entryDate: date('entry_date'),
    accountCode: text('account_code'),
    asset: nullable(text('asset')),
    venue: nullable(text('venue')),
    debit: numeric('debit'),
    credit: numeric('credit'),
  },
  unselected: { lineNo: integer('line_no'), memo: personal(text('memo')) },
} as const satisfies Table;

/** An investor and the personal data the store holds (selected only for the redaction scan). */
export const INVESTORS = {
  table: 'investors',
  columns: {
    investorId: personal(text('investor_id')),
    shareClassId: text('share_class_id'),
    legalName: personal(text('legal_name')),
    email: personal(text('email')),
    taxId: personal(text('tax_id')),
    bankAccount: personal(text('bank_account')),
  },
} as const satisfies Table;

/**
 * The investors part of a capital read: each investor's id and share class, none of the identity data
 * (the identity set is read with the index, lib/fund/identities.ts): what capital accounts read of them.
 */
export const INVESTOR_CLASSES = {
  table: INVESTORS.table,
  columns: { investorId: INVESTORS.columns.investorId, shareClassId: INVESTORS.columns.shareClassId },
} as const satisfies Table;

/** An investor's capital account at a complete run, cumulative since inception (base currency). */
export const CAPITAL_ACCOUNTS = {
  table: 'capital_accounts',
  columns: {
    navDate: date('nav_date'),
    investorId: personal(text('investor_id')),
    capital: numeric('capital'),
    contributions: numeric('contributions'),
    withdrawals: numeric('withdrawals'),
    pnlAllocation: numeric('pnl_allocation'),
    mgmtFee: numeric('mgmt_fee'),
    perfFee: numeric('perf_fee'),
  },
} as const satisfies Table;

/** An expense accrual (amount in the base currency) and, once settled, its payment date. */
export const EXPENSES = {
  table: 'expenses',
  columns: {
    id: text('expense_id'),
    date: date('expense_date'),
    category: text('category'),
    description: personal(text('description')),
    amount: numeric('amount'),
    status: oneOf(EXPENSE_STATUSES)('status'),
    paidDate: nullable(date('paid_date')),
  },
} as const satisfies Table;

/**
 * Derived, written by `fund_derive()` (db/migrations/0002_derived_data.sql) whenever the ledger is written:
 * each account's lines dated on or before `entryDate`, summed (NUMERIC sums are exact), one row per account
 * and date with lines. A trial balance as of a date reads the latest row per account on or before it, not
 * every line since inception, which a fund of a few years holds millions of.
 */
export const LEDGER_BALANCES = {
  table: 'ledger_balances',
  columns: {
    accountCode: LEDGER_LINES.columns.accountCode,
    entryDate: LEDGER_LINES.columns.entryDate,
    debit: LEDGER_LINES.columns.debit,
    credit: LEDGER_LINES.columns.credit,
  },
} as const satisfies Table;

/**
 * Derived, written by `fund_derive()` whenever positions are written: a run's live positions summed per
 * asset class and sign (`negative`: `market_value < 0`), in the positions' own columns. Exposure is a
 * function of these sums alone (long, short and cash each add values of one class and one sign), and an
 * exposure series over a year of a fund with 500 positions would otherwise read 183,000 positions.
 */
export const RUN_POSITION_SUMS = {
  table: 'position_sums',
  columns: {
    navDate: POSITIONS.columns.navDate,
    assetClass: POSITIONS.columns.assetClass,
    negative: boolean('negative'),
    marketValue: POSITIONS.columns.marketValue,
  },
} as const satisfies Table;

/** The `balances` part of a store read: an account's debits and credits summed through a date ({@link LEDGER_BALANCES}). */
export const ACCOUNT_BALANCES = {
  table: LEDGER_BALANCES.table,
  columns: {
    accountCode: LEDGER_BALANCES.columns.accountCode,
    debit: LEDGER_BALANCES.columns.debit,
    credit: LEDGER_BALANCES.columns.credit,
  },
} as const satisfies Table;

/**
 * The `ledger` part of a store read: the ledger lines of a span summed per account, asset and venue (money,
 * ≥ 0): what P&L attribution reads of the ledger, one row per key instead of one per line (a day of a
 * 500-position fund: 1,040 lines, 25 keys).
 */
export const LEDGER_SUMS = {
  table: LEDGER_LINES.table,
  columns: {
    accountCode: LEDGER_LINES.columns.accountCode,
    asset: LEDGER_LINES.columns.asset,
    venue: LEDGER_LINES.columns.venue,
    debit: LEDGER_LINES.columns.debit,
    credit: LEDGER_LINES.columns.credit,
  },
} as const satisfies Table;

/** The `positionSums` part of a store read: a run's live positions of one class and sign, summed ({@link RUN_POSITION_SUMS}). */
export const POSITION_SUMS = {
  table: RUN_POSITION_SUMS.table,
  columns: {
    navDate: RUN_POSITION_SUMS.columns.navDate,
    assetClass: RUN_POSITION_SUMS.columns.assetClass,
    marketValue: RUN_POSITION_SUMS.columns.marketValue,
  },
} as const satisfies Table;

/**
 * Not a stored table: the `varMoments` part of a store read, one row per held asset with price risk, made
 * by lib/fund/analytics/var.ts in either store (the Postgres store reads them as the importer stored them,
 * db/migrations/0004_var_moments.sql, or computes them from the closes): the returns used (`observations`), the portfolio's
 * daily P&L variance and the asset's covariance with it, each the shortest text of an IEEE double (`"0"`
 * below two returns).
 */
export const VAR_MOMENTS = {
  table: PRICES.table,
  columns: {
    asset: PRICES.columns.asset,
    observations: integer('observations'),
    variance: text('variance'),
    covariance: text('covariance'),
  },
} as const satisfies Table;

/**
 * Derived, written by the database's triggers whenever a fund's row, share classes, fee terms, runs or
 * investors are written (db/migrations/0003_fund_versions.sql): the fund's index version and identity-set
 * version, each an MD5 of those rows, so that a request reads them instead of digesting the fund's history.
 */
export const FUND_VERSIONS = {
  table: 'fund_versions',
  columns: {
    indexVersion: text('index_version'),
    identityVersion: text('identity_version'),
  },
} as const satisfies Table;

/** The derived tables: written only by the database (`fund_derive()`, triggers), never from a bundle or a seed's rows. */
export const DERIVED_TABLES = [LEDGER_BALANCES, RUN_POSITION_SUMS, FUND_VERSIONS] as const satisfies readonly Table[];

/** Every stored table, in the order the seed writes them (parents before children). */
export const TABLES = [
  FUNDS,
  SHARE_CLASSES,
  FEE_TERMS,
  NAV_RUNS,
  POSITIONS,
  PRICES,
  ACCOUNTS,
  LEDGER_LINES,
  INVESTORS,
  CAPITAL_ACCOUNTS,
  EXPENSES,
] as const satisfies readonly Table[];

/** The key column every fund table has (`fund_id`), written by the seed from the fund, not from a row. */
export const FUND_KEY = 'fund_id';

/**
 * The `json_build_object` arguments that select a table's columns under their field names: dates as
 * `YYYY-MM-DD`, NUMERIC as text (never a float), others as stored.
 * @param alias the table's alias in the query
 * @param omit fields selected elsewhere (e.g. a join key)
 */
export function jsonFields(t: Table, alias: string, omit: readonly string[] = []): string {
  return Object.entries(t.columns)
    .filter(([field]) => !omit.includes(field))
    .map(([field, c]) => {
      const ref = `${alias}.${c.column}`;
      const value = c.type === 'date' ? `to_char(${ref}, 'YYYY-MM-DD')` : c.type === 'numeric' ? `${ref}::text` : ref;
      return `'${field}', ${value}`;
    })
    .join(', ');
}

/** The SQL names of a table's selected columns, comma-separated. */
export function columnList(t: Table): string {
  return Object.values(t.columns)
    .map((c) => c.column)
    .join(', ');
}

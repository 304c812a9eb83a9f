/**
 * The bundle format (docs/import.md): one CSV file per stored table, named after it (`positions.csv`), its
 * columns those of the table's descriptor in `lib/fund/tables.ts` under their SQL names, in descriptor
 * order, without `fund_id` (the fund is the bundle's; only `funds.csv` names it). Plus one optional file that
 * is not a table: the administrator's positions (`admin_positions.csv`), which feeds the position breaks of
 * the reconciliation report and is never stored.
 *
 * Everything that names a file or a column is derived here from the descriptors: the reader, the
 * validator, the exporter, the COPY column lists and the column table of docs/import.md (written between
 * its generated markers by `npm run build`, {@link columnTables}). What the descriptors do not say is
 * stated once below: each table's key, the column whose date orders a bulk file, and the optional columns.
 */
import { type Column, FUND_KEY, type SqlType, TABLES, type Table } from '../../lib/fund/tables.ts';

/** A column of a bundle file. */
export interface FileColumn {
  /** Header name (the SQL column name). */
  name: string;
  /** The row field of the descriptor. */
  field: string;
  type: SqlType;
  /** Empty means NULL. */
  nullable: boolean;
  /** May be left out of the header: `line_no` (numbered in file order within its entry), `memo` (''), `recon_status` (computed). */
  optional: boolean;
  values?: readonly string[];
  /** Never echoed in an error, a report or a log (docs/import.md#personal-data). */
  personal: boolean;
}

/** A file of the bundle. */
export interface BundleFile {
  /** File name inside the bundle folder, e.g. `positions.csv`. */
  file: string;
  /** The stored table it loads (null for the administrator's positions, which are only compared). */
  table: Table | null;
  columns: FileColumn[];
  /** Columns whose values identify a row within the fund (the table's primary key without `fund_id`). */
  key: string[];
  /** The date column a bulk file is ordered by (non-decreasing), so it is validated and loaded in one pass per date. */
  orderedBy?: string;
  /** Whether a bundle must carry it (every table's file does; the administrator's positions are optional). */
  required: boolean;
}

/** Each table's primary key, without `fund_id` (test/db/import.test.ts checks these against the migrated schema). */
export const KEYS: Record<string, string[]> = {
  funds: ['fund_id'],
  share_classes: ['share_class_id'],
  fee_terms: ['share_class_id'],
  nav_runs: ['nav_date'],
  positions: ['nav_date', 'book', 'asset', 'venue'],
  prices: ['asset', 'price_date'],
  accounts: ['code'],
  ledger_lines: ['entry_id', 'line_no'],
  investors: ['investor_id'],
  capital_accounts: ['nav_date', 'investor_id'],
  expenses: ['expense_id'],
};

/** The bulk files and the date that orders each (docs/import.md#order). */
const ORDERED_BY: Record<string, string> = {
  positions: 'nav_date',
  prices: 'price_date',
  ledger_lines: 'entry_date',
  capital_accounts: 'nav_date',
};

const OPTIONAL = new Set(['ledger_lines.line_no', 'ledger_lines.memo', 'nav_runs.recon_status']);

function fileColumns(table: string, columns: Record<string, Column<unknown>>): FileColumn[] {
  return Object.entries(columns)
    .filter(([, c]) => table === 'funds' || c.column !== FUND_KEY)
    .map(([field, c]) => ({
      name: c.column,
      field,
      type: c.type,
      nullable: c.nullable,
      optional: OPTIONAL.has(`${table}.${c.column}`),
      ...(c.values ? { values: c.values } : {}),
      personal: c.personal === true,
    }));
}

/** Columns of a table in its file: the selected ones, then the stored-only ones (`line_no` after `entry_id`). */
function tableColumns(t: Table): FileColumn[] {
  const columns = fileColumns(t.table, { ...t.columns, ...t.unselected });
  if (t.table !== 'ledger_lines') return columns;
  const lineNo = columns.find((c) => c.name === 'line_no')!;
  const rest = columns.filter((c) => c !== lineNo);
  rest.splice(rest.findIndex((c) => c.name === 'entry_id') + 1, 0, lineNo);
  return rest;
}

const column = (name: string, type: SqlType): FileColumn => ({
  name,
  field: name,
  type,
  nullable: false,
  optional: false,
  personal: false,
});

/** The administrator's positions: the live book as the administrator values it, compared position by position. */
export const ADMIN_POSITIONS: BundleFile = {
  file: 'admin_positions.csv',
  table: null,
  columns: [
    column('nav_date', 'date'),
    column('asset', 'text'),
    column('venue', 'text'),
    column('quantity', 'numeric'),
    column('market_value', 'numeric'),
  ],
  key: ['nav_date', 'asset', 'venue'],
  orderedBy: 'nav_date',
  required: false,
};

/** Every file of a bundle, tables in `TABLES` order (parents before children), then the optional ones. */
export const BUNDLE_FILES: readonly BundleFile[] = [
  ...TABLES.map(
    (t): BundleFile => ({
      file: `${t.table}.csv`,
      table: t,
      columns: tableColumns(t),
      key: KEYS[t.table]!,
      ...(ORDERED_BY[t.table] ? { orderedBy: ORDERED_BY[t.table] } : {}),
      required: true,
    }),
  ),
  ADMIN_POSITIONS,
];

/** A bundle file by table name (or `admin_positions`). */
export function bundleFile(name: string): BundleFile {
  const found = BUNDLE_FILES.find((f) => f.file === `${name}.csv`);
  if (!found) throw new Error(`No bundle file for ${name}.`);
  return found;
}

/** Every personal column as `file.column`, for the docs and the tests. */
export function personalColumns(): string[] {
  return BUNDLE_FILES.flatMap((f) => f.columns.filter((c) => c.personal).map((c) => `${f.file.replace('.csv', '')}.${c.name}`));
}

/** What a column means, in the doc's column table (units: money in the fund's base currency). */
const NOTES: Record<string, string> = {
  'funds.base_currency': 'ISO 4217, e.g. `USD`',
  'funds.aum_target': 'money',
  'funds.recon_tolerance_bps': 'shadow vs administrator NAV tolerance, basis points',
  'fee_terms.mgmt_fee_pct': 'percent per year (`2.0000` = 2 %)',
  'fee_terms.perf_fee_pct': 'percent of the gain',
  'fee_terms.hurdle_pct': 'percent per year; empty: no hurdle',
  'nav_runs.shadow_nav': 'money; empty for a failed run',
  'nav_runs.admin_nav': 'money, the administrator’s',
  'nav_runs.recon_status': 'empty: computed from the tolerance',
  'nav_runs.net_flows': 'money dealt at this NAV (subscriptions − redemptions)',
  'positions.quantity': 'signed, negative for a short',
  'positions.price': 'base currency per unit',
  'positions.market_value': 'money: quantity × price, to the cent',
  'prices.price': 'base currency per unit',
  'ledger_lines.line_no': 'within the entry; left out: numbered in file order',
  'ledger_lines.asset': 'the position a trade line moves (with `venue`); empty otherwise',
  'ledger_lines.debit': 'money',
  'ledger_lines.credit': 'money',
  'ledger_lines.memo': 'left out: empty',
  'capital_accounts.capital': 'money, closing balance; the others are cumulative since inception',
  'expenses.amount': 'money',
  'expenses.paid_date': 'empty while accrued',
};

const TYPE_TEXT: Record<SqlType, string> = {
  text: 'text',
  date: 'date `YYYY-MM-DD`',
  numeric: 'decimal text',
  boolean: '`true` or `false`',
  integer: 'integer ≥ 1',
};

/**
 * The Markdown column tables of docs/import.md, one per file: column, type, whether it may be empty or
 * left out, and the allowed values, key and personal-data marks. Rewritten by `npm run build`.
 */
export function columnTables(): string {
  const out: string[] = [];
  for (const f of BUNDLE_FILES) {
    const notes = [
      f.required ? 'required' : 'optional file',
      `key: ${f.key.map((k) => `\`${k}\``).join(', ')}`,
      ...(f.orderedBy ? [`rows ordered by \`${f.orderedBy}\``] : []),
    ];
    out.push(`#### \`${f.file}\``, '', notes.join('; '), '', '| column | type | empty | notes |', '|---|---|---|---|');
    for (const c of f.columns) {
      const marks = [
        ...(NOTES[`${f.file.replace('.csv', '')}.${c.name}`] ? [NOTES[`${f.file.replace('.csv', '')}.${c.name}`]!] : []),
        ...(c.values ? [`one of ${c.values.map((v) => `\`${v}\``).join(', ')}`] : []),
        ...(c.optional ? ['may be left out of the header'] : []),
        ...(c.personal ? ['**personal**'] : []),
      ];
      out.push(`| \`${c.name}\` | ${TYPE_TEXT[c.type]} | ${c.nullable ? 'NULL' : 'no'} | ${marks.join('; ')} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

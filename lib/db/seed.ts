/**
 * Seeding: writes a fund dataset (the synthetic generator's, the same the embedded store serves) into the
 * tables of `db/migrations/`, replacing whatever that fund had, in one transaction. Each table is one
 * `INSERT ... SELECT FROM json_to_recordset($2)` statement, so values travel as parameters (decimal strings
 * stay exact) and a fund of tens of thousands of rows is a dozen round trips.
 */
import type { SqlClient } from './client.ts';
import type { FundDataset } from '../fund/synthetic.ts';

/** A column: its SQL name, the row field it is read from, and its SQL type. */
type Column = readonly [column: string, field: string, type: string];

/** Rows written per table, by table name. */
export type SeedReport = Record<string, number>;

async function insert(db: SqlClient, table: string, columns: readonly Column[], fundId: string, rows: readonly object[]): Promise<number> {
  if (rows.length === 0) return 0;
  const names = columns.map(([c]) => c).join(', ');
  const values = columns.map(([, f, t]) => `x."${f}"::${t}`).join(', ');
  const record = columns.map(([, f, t]) => `"${f}" ${t === 'numeric' ? 'text' : t}`).join(', ');
  await db.query(`INSERT INTO ${table} (fund_id, ${names}) SELECT $1, ${values} FROM json_to_recordset($2::json) AS x(${record})`, [
    fundId,
    JSON.stringify(rows),
  ]);
  return rows.length;
}

/**
 * Replaces the fund `data.fund.fundId` in the database with `data`. The client must hold one connection.
 * @returns rows written per table
 */
export async function seedFund(db: SqlClient, data: FundDataset): Promise<SeedReport> {
  const fundId = data.fund.fundId;
  const lineNumbers = new Map<string, number>();
  const ledger = data.ledger.map((line) => {
    const lineNo = (lineNumbers.get(line.entryId) ?? 0) + 1;
    lineNumbers.set(line.entryId, lineNo);
    return { ...line, lineNo };
  });
  const report: SeedReport = {};
  await db.query('BEGIN');
  try {
    await db.query('DELETE FROM funds WHERE fund_id = $1', [fundId]);
    report.funds = await insert(
      db,
      'funds',
      [
        ['name', 'name', 'text'],
        ['base_currency', 'baseCurrency', 'text'],
        ['inception_date', 'inceptionDate', 'date'],
        ['aum_target', 'aumTarget', 'numeric'],
        ['recon_tolerance_bps', 'reconToleranceBps', 'numeric'],
      ],
      fundId,
      [data.fund],
    );
    report.share_classes = await insert(
      db,
      'share_classes',
      [
        ['share_class_id', 'shareClassId', 'text'],
        ['name', 'name', 'text'],
      ],
      fundId,
      data.shareClasses,
    );
    report.fee_terms = await insert(
      db,
      'fee_terms',
      [
        ['share_class_id', 'shareClassId', 'text'],
        ['mgmt_fee_pct', 'mgmtFeePct', 'numeric'],
        ['perf_fee_pct', 'perfFeePct', 'numeric'],
        ['hurdle_pct', 'hurdlePct', 'numeric'],
        ['hurdle_type', 'hurdleType', 'text'],
        ['has_hwm', 'hasHwm', 'boolean'],
        ['crystallization', 'crystallization', 'text'],
      ],
      fundId,
      data.shareClasses,
    );
    report.nav_runs = await insert(
      db,
      'nav_runs',
      [
        ['nav_date', 'navDate', 'date'],
        ['status', 'status', 'text'],
        ['shadow_nav', 'shadowNav', 'numeric'],
        ['admin_nav', 'adminNav', 'numeric'],
        ['recon_status', 'reconStatus', 'text'],
        ['net_flows', 'netFlows', 'numeric'],
      ],
      fundId,
      data.runs,
    );
    report.positions = await insert(
      db,
      'positions',
      [
        ['nav_date', 'navDate', 'date'],
        ['book', 'book', 'text'],
        ['asset', 'asset', 'text'],
        ['venue', 'venue', 'text'],
        ['asset_class', 'assetClass', 'text'],
        ['source_type', 'sourceType', 'text'],
        ['quantity', 'quantity', 'numeric'],
        ['price', 'price', 'numeric'],
        ['market_value', 'marketValue', 'numeric'],
      ],
      fundId,
      data.positions,
    );
    report.prices = await insert(
      db,
      'prices',
      [
        ['asset', 'asset', 'text'],
        ['price_date', 'priceDate', 'date'],
        ['price', 'price', 'numeric'],
      ],
      fundId,
      data.prices,
    );
    report.accounts = await insert(
      db,
      'accounts',
      [
        ['code', 'code', 'text'],
        ['name', 'name', 'text'],
        ['type', 'type', 'text'],
        ['role', 'role', 'text'],
      ],
      fundId,
      data.accounts,
    );
    report.ledger_lines = await insert(
      db,
      'ledger_lines',
      [
        ['entry_id', 'entryId', 'text'],
        ['line_no', 'lineNo', 'integer'],
        ['entry_date', 'entryDate', 'date'],
        ['account_code', 'accountCode', 'text'],
        ['asset', 'asset', 'text'],
        ['venue', 'venue', 'text'],
        ['debit', 'debit', 'numeric'],
        ['credit', 'credit', 'numeric'],
        ['memo', 'memo', 'text'],
      ],
      fundId,
      ledger,
    );
    report.investors = await insert(
      db,
      'investors',
      [
        ['investor_id', 'investorId', 'text'],
        ['share_class_id', 'shareClassId', 'text'],
        ['legal_name', 'legalName', 'text'],
        ['email', 'email', 'text'],
        ['tax_id', 'taxId', 'text'],
        ['bank_account', 'bankAccount', 'text'],
      ],
      fundId,
      data.investors,
    );
    report.capital_accounts = await insert(
      db,
      'capital_accounts',
      [
        ['nav_date', 'navDate', 'date'],
        ['investor_id', 'investorId', 'text'],
        ['capital', 'capital', 'numeric'],
        ['contributions', 'contributions', 'numeric'],
        ['withdrawals', 'withdrawals', 'numeric'],
        ['pnl_allocation', 'pnlAllocation', 'numeric'],
        ['mgmt_fee', 'mgmtFee', 'numeric'],
        ['perf_fee', 'perfFee', 'numeric'],
      ],
      fundId,
      data.capital,
    );
    report.expenses = await insert(
      db,
      'expenses',
      [
        ['expense_id', 'id', 'text'],
        ['expense_date', 'date', 'date'],
        ['category', 'category', 'text'],
        ['description', 'description', 'text'],
        ['amount', 'amount', 'numeric'],
        ['status', 'status', 'text'],
        ['paid_date', 'paidDate', 'date'],
      ],
      fundId,
      data.expenses,
    );
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return report;
}

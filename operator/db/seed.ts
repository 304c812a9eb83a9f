/**
 * Seeding: writes a fund dataset (the synthetic generator's, the same the embedded store serves) into the
 * tables of `db/migrations/`, replacing whatever that fund had, in one transaction. Each table is one
 * `INSERT ... SELECT FROM json_to_recordset($2)` statement, so values travel as parameters (decimal strings
 * stay exact) and a fund of tens of thousands of rows is a dozen round trips. Column lists come from the
 * table descriptors of `lib/fund/tables.ts`.
 */
import type { SqlClient } from '../../lib/db/sql.ts';
import type { FundDataset } from '../../lib/fund/synthetic.ts';
import { FUND_KEY, TABLES, type Table } from '../../lib/fund/tables.ts';
import { storeVarMoments } from './var-moments.ts';
import { storeIdentitySet } from './identity-sets.ts';

/** Rows written per table, by table name. */
export type SeedReport = Record<string, number>;

/**
 * Inserts rows into a table: `fund_id` from the fund, every other column (selected or not) from the row
 * field its descriptor names. NUMERIC values travel as text, so they keep their scale.
 * @returns rows written
 */
async function insert(db: SqlClient, t: Table, fundId: string, rows: readonly object[]): Promise<number> {
  if (rows.length === 0) return 0;
  const columns = Object.entries({ ...t.columns, ...t.unselected }).filter(([, c]) => c.column !== FUND_KEY);
  const names = columns.map(([, c]) => c.column).join(', ');
  const values = columns.map(([f, c]) => `x."${f}"::${c.type}`).join(', ');
  const record = columns.map(([f, c]) => `"${f}" ${c.type === 'numeric' ? 'text' : c.type}`).join(', ');
  await db.query(`INSERT INTO ${t.table} (${FUND_KEY}, ${names}) SELECT $1, ${values} FROM json_to_recordset($2::json) AS x(${record})`, [
    fundId,
    JSON.stringify(rows),
  ]);
  return rows.length;
}

/** The dataset's rows of each table (a share class row holds its fee terms too). */
const ROWS_OF: Record<string, (data: FundDataset) => readonly object[]> = {
  funds: (d) => [d.fund],
  share_classes: (d) => d.shareClasses,
  fee_terms: (d) => d.shareClasses,
  nav_runs: (d) => d.runs,
  positions: (d) => d.positions,
  prices: (d) => d.prices,
  accounts: (d) => d.accounts,
  ledger_lines: (d) => ledgerWithLineNumbers(d),
  investors: (d) => d.investors,
  capital_accounts: (d) => d.capital,
  expenses: (d) => d.expenses,
};

/** The ledger with each line's number within its entry (1, 2, ...), the table's key. */
function ledgerWithLineNumbers(data: FundDataset): object[] {
  const lineNumbers = new Map<string, number>();
  return data.ledger.map((line) => {
    const lineNo = (lineNumbers.get(line.entryId) ?? 0) + 1;
    lineNumbers.set(line.entryId, lineNo);
    return { ...line, lineNo };
  });
}

/**
 * Replaces the fund `data.fund.fundId` in the database with `data`. The client must hold one connection.
 * @returns rows written per table
 */
export async function seedFund(db: SqlClient, data: FundDataset): Promise<SeedReport> {
  const fundId = data.fund.fundId;
  const report: SeedReport = {};
  await db.query('BEGIN');
  try {
    await db.query('DELETE FROM funds WHERE fund_id = $1', [fundId]);
    for (const t of TABLES) report[t.table] = await insert(db, t, fundId, ROWS_OF[t.table]!(data));
    // The derived sums (db/migrations/0002_derived_data.sql), made from the rows just written.
    await db.query('SELECT fund_derive($1, NULL)', [fundId]);
    // VaR's moments of the latest usable run (db/migrations/0004_var_moments.sql).
    await storeVarMoments(db, fundId);
    // The identity set compiled from the investors just written (db/migrations/0005_identity_sets.sql).
    await storeIdentitySet(db, fundId);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return report;
}

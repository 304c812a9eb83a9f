/**
 * A seeded fund database whose books name its investors, for the identity-scan tests of the PostgreSQL store
 * and of the Worker (docs/fund-data.md#redaction-fail-closed).
 */
import { sql, type TestDatabase } from './database.ts';
import { freeTextNaming, WANG, YAMADA, ZOE, type Identity } from './identities.ts';

/** The newest expense of fund `$1`: the row the tests write free text into. */
export const NEWEST_EXPENSE = '(SELECT expense_id FROM expenses WHERE fund_id = $1 ORDER BY expense_date DESC, expense_id DESC LIMIT 1)';

/**
 * Adds {@link ZOE}, {@link WANG} and {@link YAMADA} to fund `fundId` (migrated and seeded), writes {@link freeTextNaming} of Zoë and the fourth
 * investor into the newest expense's description and category, and Zoë's name and bank account into every
 * ledger memo (memos are never selected).
 * @returns every investor of the fund, Zoë included, by internal id
 */
export async function nameInvestorsInBooks(database: TestDatabase, fundId: string): Promise<Identity[]> {
  for (const i of [ZOE, WANG, YAMADA]) {
    await sql(
      database,
      `INSERT INTO investors (fund_id, investor_id, share_class_id, legal_name, email, tax_id, bank_account)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [fundId, i.investorId, i.shareClassId, i.legalName, i.email, i.taxId, i.bankAccount],
    );
  }
  const investors = await sql<Identity>(
    database,
    `SELECT investor_id AS "investorId", legal_name AS "legalName", email, tax_id AS "taxId", bank_account AS "bankAccount"
     FROM investors WHERE fund_id = $1 ORDER BY investor_id`,
    [fundId],
  );
  const { description, category } = freeTextNaming(ZOE, investors[3]!);
  await sql(database, `UPDATE expenses SET description = $2, category = $3 WHERE fund_id = $1 AND expense_id = ${NEWEST_EXPENSE}`, [
    fundId,
    description,
    category,
  ]);
  await sql(database, 'UPDATE ledger_lines SET memo = $2 WHERE fund_id = $1', [
    fundId,
    `Wire from ${ZOE.legalName}, acct ${ZOE.bankAccount}`,
  ]);
  return investors;
}

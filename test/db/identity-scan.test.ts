/**
 * The identity scan on fund data from PostgreSQL (docs/fund-data.md#redaction-fail-closed), against a real server (see
 * test/support/database.ts): the demo fund seeded, then an expense's description and category naming
 * investors in every way the scan catches (case, accents as stored, line breaks, JSON escapes, the words
 * written together), a ledger memo naming one, and a position's venue naming one. Proves that:
 * - every answer is scanned against every investor of the fund, though the expenses read loads none: the
 *   free text comes back with each name, e-mail, tax id, bank account and internal id as `[redacted]`, and
 *   a venue naming an investor fails closed (500 `redaction_failed`);
 * - the identity set follows the database: an investor renamed without a new NAV run is masked under the
 *   new name at once (the set's version is a digest of the rows, read with the index), and an unchanged set
 *   costs no round trip of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFundTool, type FundToolDefinition } from '../../lib/fund/definition.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import { guardedStore } from '../../lib/fund/store.ts';
import { DEMO_FUND } from '../../lib/fund/synthetic.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';
import { ApiError } from '../../lib/errors.ts';
import { createTestDatabase, migrateAndSeed, type TestDatabase } from '../support/database.ts';
import { MASKED_CATEGORY, MASKED_DESCRIPTION, expectNoIdentity, freeTextNaming, type Identity } from '../support/identities.ts';

const FUND = DEMO_FUND.fundId;
let database: TestDatabase;
let investors: Identity[];

const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)! as FundToolDefinition;

/** One statement on its own connection. */
async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const db = database.open();
  try {
    return (await db.query<T & Record<string, unknown>>(text, params)).rows;
  } finally {
    await db.release();
  }
}

/** A tool call on a connection of its own; its answer text, and the round trips it made. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<{ text: string; roundTrips: number }> {
  const db = database.open();
  try {
    const text = await callFundTool(tool(name), { store: guardedStore(postgresStore(db)), fundId: FUND }, { investorRefKey: 'k' }, args);
    return { text, roundTrips: db.roundTrips };
  } finally {
    await db.release();
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND]);
  // An investor whose name carries accents, as stored (NFC), beside the synthetic ones.
  await sql(
    `INSERT INTO investors (fund_id, investor_id, share_class_id, legal_name, email, tax_id, bank_account)
     VALUES ($1, 'INV-9001', 'A', 'Zoë Ångström-Øvergård', 'zoe.angstrom@example.org', '941-27-5531', 'NO9386011117947')`,
    [FUND],
  );
  investors = await sql<Identity>(
    `SELECT investor_id AS "investorId", legal_name AS "legalName", email, tax_id AS "taxId", bank_account AS "bankAccount"
     FROM investors WHERE fund_id = $1 ORDER BY investor_id`,
    [FUND],
  );
  const [a, b] = [investors.find((i) => i.investorId === 'INV-9001')!, investors[3]!];
  const { description, category } = freeTextNaming(a, b);
  // The newest expense names them; a ledger memo names one too (memos are never selected).
  await sql(
    `UPDATE expenses SET description = $2, category = $3
     WHERE fund_id = $1 AND expense_id = (SELECT expense_id FROM expenses WHERE fund_id = $1 ORDER BY expense_date DESC, expense_id DESC LIMIT 1)`,
    [FUND, description, category],
  );
  await sql(`UPDATE ledger_lines SET memo = $2 WHERE fund_id = $1`, [FUND, `Wire from ${a.legalName}, acct ${a.bankAccount}`]);
}, 120_000);

afterAll(async () => {
  await database?.dispose();
});

describe('the identity scan on PostgreSQL data', () => {
  it('get_expenses masks every identity value in the description and the category, and nothing else', async () => {
    const { text } = await call('get_expenses', { limit: '3' });
    const newest = (JSON.parse(text) as { expenses: { description: string; category: string }[] }).expenses[0]!;
    expect(newest.description).toBe(MASKED_DESCRIPTION);
    expect(newest.category).toBe(MASKED_CATEGORY);
    expectNoIdentity(text, investors);
  });

  it('every other endpoint answers without an identity value (memos never leave)', async () => {
    for (const def of FUND_TOOLS) {
      const { text } = await call(def.tool, def.tool === 'get_pnl_attribution' ? { date: '2026-10-20' } : {});
      expectNoIdentity(text, investors);
    }
  });

  it('a venue naming an investor fails closed, though the positions read loads no investor', async () => {
    const [one] = await sql<{ asset: string }>(`SELECT asset FROM positions WHERE fund_id = $1 AND book = 'live' LIMIT 1`, [FUND]);
    await sql(`UPDATE positions SET venue = $3 WHERE fund_id = $1 AND asset = $2`, [
      FUND,
      one!.asset,
      `Desk of ${investors[5]!.legalName.toUpperCase()}`,
    ]);
    try {
      const err = await call('get_positions').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('redaction_failed');
    } finally {
      await sql(`UPDATE positions SET venue = 'Coinbase Prime' WHERE fund_id = $1 AND asset = $2`, [FUND, one!.asset]);
    }
  });

  it('an investor renamed without a new NAV run is masked under the new name at once; an unchanged set costs no round trip', async () => {
    const warm = await call('get_expenses', { limit: '1' });
    expect(warm.roundTrips).toBe(2); // the index (with the set's version) and the read
    const renamed = 'Petronella Quackenbush-Vanterpool';
    const target = investors[7]!;
    await sql(`UPDATE investors SET legal_name = $3 WHERE fund_id = $1 AND investor_id = $2`, [FUND, target.investorId, renamed]);
    await sql(
      `UPDATE expenses SET description = $2
       WHERE fund_id = $1 AND expense_id = (SELECT expense_id FROM expenses WHERE fund_id = $1 ORDER BY expense_date DESC, expense_id DESC LIMIT 1)`,
      [FUND, `Side letter for ${renamed.toLowerCase()}`],
    );
    const after = await call('get_expenses', { limit: '1' });
    expect(after.roundTrips).toBe(3); // the new set's rows, once
    expect(after.text).toContain('"description":"Side letter for [redacted]"');
    expect((await call('get_expenses', { limit: '1' })).roundTrips).toBe(2);
  });
});

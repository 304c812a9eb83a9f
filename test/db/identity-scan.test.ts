/**
 * The identity scan on fund data from PostgreSQL (docs/fund-data.md#redaction-fail-closed), against a real server (see
 * test/support/database.ts): the demo fund seeded, then an expense's description and category naming
 * investors in every way the scan catches (case, accents as stored, line breaks, JSON escapes, the words
 * written together, a Chinese and a Japanese name inside sentences of their scripts, an account number in
 * full-width digits), a ledger memo naming one, and a position's venue naming one. Proves that:
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
import { createTestDatabase, migrateAndSeed, sql, type TestDatabase } from '../support/database.ts';
import { MASKED_CATEGORY, MASKED_DESCRIPTION, YAMADA, expectNoIdentity, type Identity } from '../support/identities.ts';
import { NEWEST_EXPENSE, nameInvestorsInBooks } from '../support/named-investors.ts';

const FUND = DEMO_FUND.fundId;
let database: TestDatabase;
let investors: Identity[];

const tool = (name: string) => FUND_TOOLS.find((t) => t.tool === name)! as FundToolDefinition;

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
  investors = await nameInvestorsInBooks(database, FUND);
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
    const [one] = await sql<{ asset: string }>(database, `SELECT asset FROM positions WHERE fund_id = $1 AND book = 'live' LIMIT 1`, [
      FUND,
    ]);
    for (const venue of [`Desk of ${investors[5]!.legalName.toUpperCase()}`, `${YAMADA.legalName.replace(' ', '')}様の口座`]) {
      await sql(database, `UPDATE positions SET venue = $3 WHERE fund_id = $1 AND asset = $2`, [FUND, one!.asset, venue]);
      try {
        const err = await call('get_positions').then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, venue).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe('redaction_failed');
      } finally {
        await sql(database, `UPDATE positions SET venue = 'Coinbase Prime' WHERE fund_id = $1 AND asset = $2`, [FUND, one!.asset]);
      }
    }
  });

  it('an investor renamed without a new NAV run is masked under the new name at once; an unchanged set costs no round trip', async () => {
    await call('get_expenses', { limit: '1' });
    const warm = await call('get_expenses', { limit: '1' });
    expect(warm.roundTrips).toBe(1); // the read, which checks the kept index's and set's versions
    const renamed = 'Petronella Quackenbush-Vanterpool';
    const target = investors[7]!;
    await sql(database, `UPDATE investors SET legal_name = $3 WHERE fund_id = $1 AND investor_id = $2`, [FUND, target.investorId, renamed]);
    await sql(database, `UPDATE expenses SET description = $2 WHERE fund_id = $1 AND expense_id = ${NEWEST_EXPENSE}`, [
      FUND,
      `Side letter for ${renamed.toLowerCase()}`,
    ]);
    const after = await call('get_expenses', { limit: '1' });
    // The read finds the set's version changed; the index statement brings the new set's rows, then the read.
    expect(after.roundTrips).toBe(3);
    expect(after.text).toContain('"description":"Side letter for [redacted]"');
    expect((await call('get_expenses', { limit: '1' })).roundTrips).toBe(1);
  });
});

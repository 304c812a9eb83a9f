/**
 * The identity set stored compiled (db/migrations/0005_identity_sets.sql, operator/db/identity-sets.ts) in a
 * real database:
 * - a seed stores the set compiled from the investors it wrote, with their identity version, in this code's
 *   format; it loads as exactly the set the store's investors compile to, and an isolate's first read gets it
 *   with the index (no round trip of its own);
 * - it is sent only while current: after an investor is renamed by hand (no new set stored) or when it was
 *   stored by other code (another format), the store sends none and the reader compiles the investors, so
 *   the new name is scanned for at once; a damaged one is compiled around, never loaded;
 * - the importer stores it again for the investors it writes, and keeps a current one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearIdentitySets, fundIdentities, identityValues } from '../../lib/fund/identities.ts';
import { postgresStore } from '../../lib/fund/postgres-store.ts';
import { guardedStore, type FundIdentities, type FundStore } from '../../lib/fund/store.ts';
import { DEMO_FUND, SAMPLE_FUND } from '../../lib/fund/synthetic.ts';
import type { InvestorRow } from '../../lib/fund/rows.ts';
import { IDENTITY_SET_FORMAT, loadIdentitySet } from '../../lib/identity-set-form.ts';
import { identitySet } from '../../lib/identity-set.ts';
import { findIdentities } from '../../lib/identity-scan.ts';
import { storeIdentitySet } from '../../operator/db/identity-sets.ts';
import { createTestDatabase, migrateAndSeed, sql as sharedSql, type TestDatabase } from '../support/database.ts';

const FUND = SAMPLE_FUND.fundId;
const OTHER = DEMO_FUND.fundId;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrateAndSeed(database, [FUND, OTHER]);
}, 120_000);
afterAll(async () => {
  await database?.dispose();
});

const sql = <R>(text: string, params: unknown[] = []): Promise<R[]> => sharedSql<R>(database, text, params);
const storedRow = async (fundId = FUND) =>
  (
    await sql<{ identity_version: string; format: string; compiled: string; current: string }>(
      `SELECT s.identity_version, s.format, s.compiled, v.identity_version AS current
       FROM identity_sets s JOIN fund_versions v USING (fund_id) WHERE s.fund_id = $1`,
      [fundId],
    )
  )[0];

/** The fund's investors as the store reads them, in its order. */
async function investors(fundId = FUND): Promise<InvestorRow[]> {
  const db = database.open();
  try {
    return (await guardedStore(postgresStore(db)).identities(fundId, [])).investors!;
  } finally {
    await db.release();
  }
}

/** What an isolate with no set gets from its first index read: the identities part, the set it scans with, and the round trips. */
async function firstRead(fundId = FUND) {
  clearIdentitySets();
  const db = database.open();
  try {
    const store = guardedStore(postgresStore(db));
    let got: FundIdentities | undefined;
    const seen: FundStore = { ...store, identities: async (id, known) => (got = await store.identities(id, known)) };
    await store.index(fundId);
    const loaded = await fundIdentities(seen, fundId);
    return { got: got!, loaded, roundTrips: db.roundTrips };
  } finally {
    await db.release();
  }
}

describe('the stored identity set', () => {
  it('a seed stores the set of the investors it wrote: current, in this format, equal to compiling them', async () => {
    for (const fundId of [FUND, OTHER]) {
      const row = (await storedRow(fundId))!;
      expect(row.identity_version).toBe(row.current);
      expect(row.format).toBe(IDENTITY_SET_FORMAT);
      const rows = await investors(fundId);
      expect(rows.length).toBeGreaterThan(0);
      expect(await loadIdentitySet(row.compiled)).toEqual(identitySet(rows.flatMap(identityValues)));
    }
  });

  it('comes with the index on an isolate’s first read, and is what the isolate scans with', async () => {
    const { got, loaded, roundTrips } = await firstRead();
    expect(got.compiled).toBe((await storedRow())!.compiled);
    expect(roundTrips).toBe(1);
    const rows = await investors();
    expect(loaded.set).toEqual(identitySet(rows.flatMap(identityValues)));
    expect(loaded.investorIds.size).toBe(rows.length);
  });

  it('is not sent once an investor is renamed by hand, and the new name is scanned for at once', async () => {
    const [one] = await sql<{ investor_id: string }>(`SELECT investor_id FROM investors WHERE fund_id = $1 ORDER BY investor_id LIMIT 1`, [
      FUND,
    ]);
    await sql(`UPDATE investors SET legal_name = 'Zenobia Quartermaine' WHERE fund_id = $1 AND investor_id = $2`, [FUND, one!.investor_id]);
    const { got, loaded } = await firstRead();
    expect(got.compiled ?? null).toBeNull();
    expect(findIdentities('{"memo":"paid Zenobia Quartermaine"}', loaded.set)).toBe(true);
    // Stored again (as the next import would), it is sent again, and holds the new name.
    const db = database.open();
    expect(await storeIdentitySet(db, FUND)).toMatchObject({ written: true });
    await db.release();
    const again = await firstRead();
    expect(again.got.compiled).toBeTypeOf('string');
    expect(findIdentities('{"memo":"paid Zenobia Quartermaine"}', again.loaded.set)).toBe(true);
  });

  it('is not sent when stored by other code, and a damaged one is compiled around', async () => {
    await sql(`UPDATE identity_sets SET format = 'identity-set/0' WHERE fund_id = $1`, [FUND]);
    expect((await firstRead()).got.compiled ?? null).toBeNull();
    await sql(`UPDATE identity_sets SET format = $2, compiled = '{"format":"x"' WHERE fund_id = $1`, [FUND, IDENTITY_SET_FORMAT]);
    const damaged = await firstRead();
    expect(damaged.got.compiled).toBe('{"format":"x"');
    const rows = await investors();
    expect(damaged.loaded.set).toEqual(identitySet(rows.flatMap(identityValues)));
    expect(findIdentities(`{"memo":"${rows[3]!.legalName}"}`, damaged.loaded.set)).toBe(true);
  });

  it('storing writes a damaged or stale set again, and keeps a current one', async () => {
    const db = database.open();
    try {
      expect(await storeIdentitySet(db, FUND)).toMatchObject({ written: true });
      expect(await storeIdentitySet(db, FUND)).toMatchObject({ written: false, investors: (await investors()).length });
      expect(await storeIdentitySet(db, 'no-such-fund')).toEqual({ written: false, investors: 0, bytes: 0 });
    } finally {
      await db.release();
    }
    const row = (await storedRow())!;
    expect([row.identity_version, row.format]).toEqual([row.current, IDENTITY_SET_FORMAT]);
  });
});

/**
 * The fund's identity set stored compiled (db/migrations/0005_identity_sets.sql), made by the importer and
 * the seeder in their own transaction after their writes: the investors the Worker's store reads
 * (`INVESTORS_SQL`), compiled by the redaction's own compiler from their values in the order the Worker
 * compiles them (`storedIdentitySet`) and written in this code's format (lib/identity-set-form.ts) with the
 * identity version they were read with. An isolate's first request then loads the set instead of compiling it.
 */
import type { SqlClient } from '../../lib/db/sql.ts';
import { storedIdentitySet } from '../../lib/fund/identities.ts';
import { INVESTORS_SQL } from '../../lib/fund/postgres-store.ts';
import type { InvestorRow } from '../../lib/fund/rows.ts';
import { IDENTITY_SET_FORMAT } from '../../lib/identity-set-form.ts';

/** What {@link storeIdentitySet} did. */
export interface IdentitySetReport {
  /** Whether a set was compiled and written (false: the stored one was current, or the fund is gone). */
  written: boolean;
  /** Investors the set holds the values of. */
  investors: number;
  /** Bytes of the set's text (0: the fund is gone). */
  bytes: number;
}

/**
 * Makes fund `fundId`'s stored identity set current, in the caller's transaction: compiles the investors
 * and writes the set unless the stored row already holds exactly it (same version, format and text; a
 * damaged row is written again). The version and the investors are read by one statement (one snapshot), so
 * the row names the version of the very investors it was compiled from; a later write to investors changes
 * the version, and the store then sends the set no more.
 * @throws {Error} on a database failure (the caller's transaction is then not committed)
 */
export async function storeIdentitySet(db: SqlClient, fundId: string): Promise<IdentitySetReport> {
  const { rows } = await db.query<{ version: string | null; investors: InvestorRow[] | null }>(
    `SELECT v.identity_version AS version, (${INVESTORS_SQL}) AS investors FROM fund_versions v WHERE v.fund_id = $1`,
    [fundId],
  );
  const row = rows[0];
  if (!row?.version) return { written: false, investors: 0, bytes: 0 };
  const investors = row.investors ?? [];
  const compiled = await storedIdentitySet(investors);
  const { rows: written } = await db.query(
    `INSERT INTO identity_sets AS s (fund_id, identity_version, format, compiled) VALUES ($1, $2, $3, $4)
     ON CONFLICT (fund_id) DO UPDATE SET identity_version = EXCLUDED.identity_version, format = EXCLUDED.format, compiled = EXCLUDED.compiled
     WHERE (s.identity_version, s.format, s.compiled) IS DISTINCT FROM (EXCLUDED.identity_version, EXCLUDED.format, EXCLUDED.compiled)
     RETURNING 1`,
    [fundId, row.version, IDENTITY_SET_FORMAT, compiled],
  );
  return { written: written.length > 0, investors: investors.length, bytes: compiled.length };
}

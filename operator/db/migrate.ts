/**
 * Schema migrations: plain SQL files `db/migrations/NNNN_name.sql`, applied in version order, each in its
 * own transaction together with its record in `schema_migrations` (version, name, SHA-256 of the text,
 * time). Applying again is a no-op; a recorded migration whose text has since changed is refused, because
 * the database no longer matches the files. An advisory lock keeps two migrators apart.
 */
import type { SqlClient } from '../../lib/db/sql.ts';
import { sha256Hex } from '../../lib/digest.ts';

/** One migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** What {@link migrate} did. */
export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

/** Key of the advisory lock migrators take (any constant shared by every migrator of this schema). */
export const MIGRATION_LOCK = 720_530_001;

/**
 * Parses migration files by name (`0001_fund_schema.sql` → version 1, name `fund_schema`).
 * @throws {Error} on a file name not of that shape, or two files with one version
 */
export function migrationsFrom(files: readonly { file: string; sql: string }[]): Migration[] {
  const list = files.map(({ file, sql }) => {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) throw new Error(`Migration file names look like 0001_name.sql: ${file}`);
    return { version: Number(m[1]), name: m[2]!, sql };
  });
  list.sort((a, b) => a.version - b.version);
  for (let i = 1; i < list.length; i++) {
    if (list[i]!.version === list[i - 1]!.version) throw new Error(`Two migrations have version ${list[i]!.version}.`);
  }
  return list;
}

/** SHA-256 of a migration's text, hex. */
export function checksum(sql: string): Promise<string> {
  return sha256Hex(sql);
}

/**
 * Applies every migration not yet recorded, in order, under a session-level advisory lock taken before
 * anything else (so two migrators never race, even on an empty database). Every recorded checksum is
 * compared with its file before anything is applied. The client must hold one connection.
 * @throws {Error} when a recorded migration's checksum differs from its file (nothing is applied then)
 */
export async function migrate(db: SqlClient, migrations: readonly Migration[]): Promise<MigrationReport> {
  await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await db.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations');
    const recorded = new Map(rows.map((r) => [r.version, r.checksum]));
    const sums = await Promise.all(migrations.map((m) => checksum(m.sql)));
    migrations.forEach((m, i) => {
      const was = recorded.get(m.version);
      if (was !== undefined && was !== sums[i]) {
        throw new Error(`Migration ${m.version} (${m.name}) was applied with different text; add a new migration instead of editing it.`);
      }
    });
    const report: MigrationReport = { applied: [], alreadyApplied: [] };
    for (const [i, m] of migrations.entries()) {
      if (recorded.has(m.version)) {
        report.alreadyApplied.push(`${m.version} ${m.name}`);
        continue;
      }
      await db.query('BEGIN');
      try {
        await db.query(m.sql);
        await db.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, sums[i]]);
        await db.query('COMMIT');
      } catch (err) {
        await db.query('ROLLBACK').catch(() => {});
        throw err;
      }
      report.applied.push(`${m.version} ${m.name}`);
    }
    return report;
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
}

/**
 * Schema migrations: plain SQL files `db/migrations/NNNN_name.sql`, applied in version order, each in its
 * own transaction together with its record in `schema_migrations` (version, name, SHA-256 of the text,
 * time). Applying again is a no-op; a recorded migration whose text has since changed is refused, because
 * the database no longer matches the files. A transaction-level advisory lock keeps two migrators apart.
 */
import type { SqlClient } from './client.ts';

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
const MIGRATION_LOCK = 720_530_001;

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
export async function checksum(sql: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(sql));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Applies every migration not yet recorded, in order. The client must hold one connection (statements of a
 * transaction go to the same session).
 * @throws {Error} when a recorded migration's checksum differs from its file (nothing is applied then)
 */
export async function migrate(db: SqlClient, migrations: readonly Migration[]): Promise<MigrationReport> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())`);
  const report: MigrationReport = { applied: [], alreadyApplied: [] };
  for (const m of migrations) {
    const sum = await checksum(m.sql);
    await db.query('BEGIN');
    try {
      await db.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows } = await db.query<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows[0]) {
        if (rows[0].checksum !== sum) throw new Error(`Migration ${m.version} (${m.name}) was applied with different text; add a new migration instead of editing it.`);
        report.alreadyApplied.push(`${m.version} ${m.name}`);
        await db.query('COMMIT');
        continue;
      }
      await db.query(m.sql);
      await db.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, sum]);
      await db.query('COMMIT');
      report.applied.push(`${m.version} ${m.name}`);
    } catch (err) {
      await db.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }
  return report;
}

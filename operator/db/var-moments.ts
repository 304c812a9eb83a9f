/**
 * VaR's stored moments (db/migrations/0004_var_moments.sql), made by the importer and the seeder in their
 * own transaction after their writes: for the fund's latest usable run (the run `get_value_at_risk` reads),
 * both methods and every window the tool accepts, from the series the Postgres store reads for the largest
 * window (`varSeries`), with the analytics' own arithmetic (`varMomentsOfWindows`, the same bits as a
 * request's `varMomentsOfSeries`). A request then reads one row instead of every held asset's closes.
 */
import type { SqlClient } from '../../lib/db/sql.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { latestUsableRun } from '../../lib/fund/analytics/runs.ts';
import { VAR_WINDOW, varMomentsOfWindows } from '../../lib/fund/analytics/var.ts';
import { VAR_MOMENTS_BASIS, varSeries } from '../../lib/fund/postgres-var.ts';
import type { NavRunRow } from '../../lib/fund/rows.ts';
import { NAV_RUNS, jsonFields } from '../../lib/fund/tables.ts';

/** What {@link storeVarMoments} did. */
export interface VarMomentsReport {
  /** The run they are of; null when the fund has no usable run (nothing stored). */
  navDate: string | null;
  /** Rows written: 0 when the stored ones were still those of the run (no trigger deleted them). */
  rows: number;
  /** Milliseconds reading the series, computing, and writing. */
  readMs: number;
  computeMs: number;
  writeMs: number;
}

/** Rows per INSERT statement (each row holds a text per held asset: about 16 kB at 500 assets). */
const ROWS_PER_INSERT = 100;

const METHODS = ['sample', 'ewma'] as const;

/**
 * Makes fund `fundId`'s VaR moments current for its latest usable run, in the caller's transaction (which
 * then holds the fund's writer lock until it ends). Kept
 * when every row is there for that run and basis (any write to positions, prices or runs since would have
 * deleted them); otherwise the fund's rows are deleted and every window of both methods written.
 * @throws {Error} on a database failure (the caller's transaction is then not committed)
 */
export async function storeVarMoments(db: SqlClient, fundId: string): Promise<VarMomentsReport> {
  const report: VarMomentsReport = { navDate: null, rows: 0, readMs: 0, computeMs: 0, writeMs: 0 };
  // The fund's writer lock (the importer's, held already by an import): a concurrent write to positions,
  // prices or runs of the fund waits for this transaction before its trigger deletes the moments, so it
  // deletes these, or this one reads after that write (db/migrations/0004_var_moments.sql).
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('fund-edge import ' || $1, 0))`, [fundId]);
  const { rows: runRows } = await db.query<{ runs: NavRunRow[] | null }>(
    `SELECT json_agg(json_build_object(${jsonFields(NAV_RUNS, 'r')}) ORDER BY r.nav_date) AS runs FROM nav_runs r WHERE r.fund_id = $1`,
    [fundId],
  );
  let navDate: string;
  try {
    navDate = latestUsableRun(runRows[0]?.runs ?? []).navDate;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    await db.query('DELETE FROM var_moments WHERE fund_id = $1', [fundId]);
    return report;
  }
  report.navDate = navDate;
  const windows = VAR_WINDOW.max - VAR_WINDOW.min + 1;
  const { rows: kept } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM var_moments WHERE fund_id = $1 AND nav_date = $2::date AND basis = $3',
    [fundId, navDate, VAR_MOMENTS_BASIS],
  );
  if (kept[0]?.n === METHODS.length * windows) return report;
  await db.query('DELETE FROM var_moments WHERE fund_id = $1', [fundId]);

  let t = performance.now();
  const series = await varSeries(db, fundId, { heldAt: navDate, through: navDate, returns: VAR_WINDOW.max });
  report.readMs = performance.now() - t;
  for (const method of METHODS) {
    t = performance.now();
    const { assets, windows: moments } = varMomentsOfWindows(series, method);
    report.computeMs += performance.now() - t;
    t = performance.now();
    for (let k = 0; k < moments.length; k += ROWS_PER_INSERT) {
      const chunk = moments
        .slice(k, k + ROWS_PER_INSERT)
        .map((m) => ({ w: m.windowDays, n: m.observations, v: m.variance, c: m.covariances }));
      await db.query(
        `INSERT INTO var_moments (fund_id, method, window_days, nav_date, basis, observations, variance, assets, covariances)
         SELECT $1, $2, x.w, $3::date, $4, x.n, x.v, $5::text[], x.c FROM json_to_recordset($6::json) AS x(w int, n int, v text, c text[])`,
        [fundId, method, navDate, VAR_MOMENTS_BASIS, assets, JSON.stringify(chunk)],
      );
      report.rows += chunk.length;
    }
    report.writeMs += performance.now() - t;
  }
  return report;
}

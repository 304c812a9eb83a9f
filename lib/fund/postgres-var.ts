/**
 * The Postgres store's statements for VaR (lib/fund/postgres-store.ts builds every other part of a read):
 * the held risky assets' closes and VaR's moments, read as the moments stored at import
 * (db/migrations/0004_var_moments.sql) when there are some for the request, else as each asset's series of
 * closes, from the assets' arrays of closes made at import or from the closes themselves, turned into the
 * moments with the analytics' own code (`varMomentsOfSeries`), so both stores give the same bits.
 */
import type { SqlClient } from '../db/sql.ts';
import type { FundReadRequest } from './store.ts';
import { CASH_CLASSES } from './analytics/holdings.ts';
import { EWMA_LAMBDA, type VarSeries, varMomentsOfSeries } from './analytics/var.ts';
import type { VarMomentRow } from './rows.ts';
import { jsonFields, PRICES } from './tables.ts';

/** Adds a value to a statement's parameters and returns its typed placeholder (`$n::type`). */
export type SqlParam = (value: unknown, type: string) => string;

/**
 * The CTEs that find the held risky assets' closes (`held`, then `candidates` and `dates`: the last `closes`
 * dates on which all of them have one). Each asset's newest `scan` (= `closes`) closes are read backwards
 * along the primary key, which is exact when the assets share a price calendar (daily or weekdays); only
 * when they hold too few complete dates (calendars that differ) and some asset had more (a young fund's
 * whole history is read at once) is the whole history read instead. `held` has one row per asset and its
 * exposure `e`: the sum of its live market values as the nearest double.
 */
const CLOSES_CTES = (heldAt: string, through: string, closes: string, scan: string, cash: string) => `
  held AS (
    SELECT p.asset, SUM(p.market_value)::float8 AS e FROM positions p
    WHERE p.fund_id = $1 AND p.book = 'live' AND p.nav_date = ${heldAt} AND p.asset_class <> ALL(${cash})
    GROUP BY p.asset),
  recent AS (
    SELECT h.asset, y.price_date, y.price FROM held h CROSS JOIN LATERAL (
      SELECT z.price_date, z.price FROM prices z
      WHERE z.fund_id = $1 AND z.asset = h.asset AND z.price_date <= ${through}
      ORDER BY z.price_date DESC LIMIT ${scan}) y),
  recent_dates AS (
    SELECT r.price_date FROM recent r GROUP BY r.price_date HAVING count(*) = (SELECT count(*) FROM held)
    ORDER BY r.price_date DESC LIMIT ${closes}),
  again AS (
    SELECT CASE WHEN (SELECT count(*) FROM recent_dates) >= ${closes} THEN false
      ELSE EXISTS (SELECT 1 FROM recent GROUP BY asset HAVING count(*) = ${scan}) END AS whole),
  candidates AS (
    SELECT r.asset, r.price_date, r.price FROM recent r WHERE NOT (SELECT whole FROM again)
    UNION ALL
    SELECT z.asset, z.price_date, z.price FROM prices z JOIN held h ON h.asset = z.asset
    WHERE (SELECT whole FROM again) AND z.fund_id = $1 AND z.price_date <= ${through}),
  dates AS (
    SELECT d.price_date FROM recent_dates d WHERE NOT (SELECT whole FROM again)
    UNION ALL (
      SELECT c.price_date FROM candidates c WHERE (SELECT whole FROM again)
      GROUP BY c.price_date HAVING count(*) = (SELECT count(*) FROM held)
      ORDER BY c.price_date DESC LIMIT ${closes}))`;

/** The held risky assets' closes on the last `closes` dates on which all of them have one ({@link CLOSES_CTES}). */
const PRICES_SQL = (ctes: string) => `
  WITH ${ctes}
  SELECT json_agg(json_build_object(${jsonFields(PRICES, 'x')})
    ORDER BY x.asset, x.price_date)
  FROM candidates x
  WHERE x.price_date IN (SELECT d.price_date FROM dates d)`;

/**
 * What VaR's moments are computed from, compactly: per held risky asset, its exposure (the nearest double of
 * its exact sum) and its closes as doubles on the common dates, oldest first, as one JSON array (a twelfth
 * of the bytes of a row per close). `read` turns them into `varMoments` rows with the analytics' own code
 * (`varMomentsOfSeries`), so both stores give the same bits. Every held asset has its row: with no common
 * date (an asset that has no close at all), each with no closes, so that VaR is refused as in the embedded
 * store rather than computed without it.
 */
const VAR_SERIES_SQL = (ctes: string) => `
  WITH ${ctes}
  SELECT json_agg(json_build_object('asset', h.asset, 'exposure', h.e, 'closes', COALESCE(g.closes, '[]'::json)) ORDER BY h.asset)
  FROM held h LEFT JOIN (
    SELECT c.asset, json_agg(c.price::float8 ORDER BY c.price_date) AS closes FROM candidates c
    WHERE c.price_date IN (SELECT d.price_date FROM dates d) GROUP BY c.asset) g ON g.asset = h.asset`;

/**
 * VaR's series from the assets' arrays of closes (`asset_closes`, db/migrations/0002_derived_data.sql), one
 * row per held asset: each one's newest `closes` closes sliced off its array, the same doubles in the same
 * shape as {@link VAR_SERIES_SQL}, each slice ending at the close dated `through`. Exact, and sent, only when
 * every held asset has a close on `through` and at least `closes` closes up to it, and the same dates in its slice: then those dates are the last `closes` dates on
 * which all of them have a close (any later common date would be in every slice). Otherwise null, and the
 * caller reads the closes themselves.
 */
const VAR_ARRAYS_SQL = (heldAt: string, through: string, closes: string, cash: string) => `
  WITH held AS (
    SELECT p.asset, SUM(p.market_value)::float8 AS e FROM positions p
    WHERE p.fund_id = $1 AND p.book = 'live' AND p.nav_date = ${heldAt} AND p.asset_class <> ALL(${cash})
    GROUP BY p.asset),
  ends AS (
    SELECT h.asset, h.e, a.dates, a.closes, array_position(a.dates, ${through}) AS k
    FROM held h JOIN asset_closes a ON a.fund_id = $1 AND a.asset = h.asset),
  tails AS (
    SELECT x.asset, x.e, x.dates[x.k - ${closes} + 1 : x.k] AS dates, x.closes[x.k - ${closes} + 1 : x.k] AS closes,
      COALESCE(x.k >= ${closes}, false) AS whole
    FROM ends x),
  usable AS (
    SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM held) AND bool_and(t.whole) AND count(DISTINCT t.dates) = 1 AS ok
    FROM tails t)
  SELECT json_agg(json_build_object('asset', t.asset, 'exposure', t.e, 'closes', t.closes) ORDER BY t.asset)
  FROM tails t WHERE (SELECT ok FROM usable)`;

/**
 * What VaR's stored moments (db/migrations/0004_var_moments.sql) were computed with besides the rows: the
 * EWMA decay, the asset classes without price risk and the arithmetic's edition (raise it whenever
 * lib/fund/analytics/var.ts computes the moments differently). Rows made with another basis are not read.
 */
export const VAR_MOMENTS_BASIS = `moments 1; lambda ${EWMA_LAMBDA}; cash ${[...CASH_CLASSES].sort().join(',')}`;

/**
 * VaR's stored moments of the window and method, one row as JSON, when they were made for the run dated
 * `through` from that run's own positions (`heldAt` = `through`) on the store's basis; null otherwise. The
 * triggers of db/migrations/0004_var_moments.sql delete them whenever positions, prices or runs are written.
 */
const VAR_STORED_SQL = (heldAt: string, through: string, returns: string, method: string, basis: string) => `
  SELECT json_build_object('observations', m.observations, 'variance', m.variance, 'assets', m.assets, 'covariances', m.covariances)
  FROM var_moments m
  WHERE m.fund_id = $1 AND m.method = ${method} AND m.window_days = ${returns} AND m.nav_date = ${through}
    AND ${heldAt} = ${through} AND m.basis = ${basis}`;

/** A row of {@link VAR_STORED_SQL}. */
export interface StoredMoments {
  observations: number;
  variance: string;
  assets: string[];
  covariances: string[];
}

/**
 * The `prices` part of a read: the held risky assets' closes on the last `closes` dates on which all of them
 * have one, by asset then date, as a JSON array (null when there are none).
 */
export function pricesSql(param: SqlParam, prices: NonNullable<FundReadRequest['prices']>): string {
  const ctes = CLOSES_CTES(
    param(prices.heldAt, 'date'),
    param(prices.through, 'date'),
    param(prices.closes, 'int'),
    param(prices.closes, 'int'),
    param([...CASH_CLASSES], 'text[]'),
  );
  return PRICES_SQL(ctes);
}

/**
 * The `varMoments` part of a read, a JSON value: the stored moments of the request when there are some (an
 * object), else the series from the assets' arrays of closes (an array), null when these do not serve the
 * window; with `varFrom`, only the series from the arrays (`arrays`: null when they do not serve) or from the
 * closes themselves (`closes`: an array, empty for none).
 */
export function varMomentsSql(param: SqlParam, v: NonNullable<FundReadRequest['varMoments']>, varFrom?: 'arrays' | 'closes'): string {
  const [heldAt, through, closes, cash] = [
    param(v.heldAt, 'date'),
    param(v.through, 'date'),
    param(v.returns + 1, 'int'),
    param([...CASH_CLASSES], 'text[]'),
  ];
  // The series from the arrays when they serve (null otherwise: `varSeries` reads the closes in a second
  // statement). Not one COALESCE of both: PostgreSQL then took 0.5 s more for a 1,000-return window, though
  // it never ran the second. The stored row and the arrays' part do share one: its second part is not run
  // when the row is there (EXPLAIN ANALYZE: "never executed").
  if (varFrom === 'closes') return `COALESCE((${VAR_SERIES_SQL(CLOSES_CTES(heldAt, through, closes, closes, cash))}), '[]'::json)`;
  const arrays = VAR_ARRAYS_SQL(heldAt, through, closes, cash);
  if (varFrom === 'arrays') return `(${arrays})`;
  const stored = VAR_STORED_SQL(heldAt, through, param(v.returns, 'int'), param(v.method, 'text'), param(VAR_MOMENTS_BASIS, 'text'));
  return `COALESCE((${stored}), (${arrays}))`;
}

/**
 * The series VaR's moments are computed from (`varMomentsOfSeries`): per held risky asset, its exposure and
 * its closes on the last `returns + 1` dates on which all of them have one (fewer when there are fewer),
 * oldest first. From the assets' arrays of closes when they serve, else from the closes: one or two round
 * trips (`from` = 'closes': the second only). The importer and the seeder compute the stored moments of
 * every window from these, read for the largest window: a smaller window's series is its tail.
 * @throws {import('../errors.ts').UpstreamUnavailableError} 503 from the client
 */
export async function varSeries(
  db: SqlClient,
  fundId: string,
  request: { heldAt: string; through: string; returns: number },
  from: 'arrays' | 'closes' = 'arrays',
): Promise<VarSeries[]> {
  const varMoments = { ...request, method: 'ewma' as const };
  for (const varFrom of from === 'arrays' ? (['arrays', 'closes'] as const) : (['closes'] as const)) {
    const params: unknown[] = [fundId];
    const param: SqlParam = (value, type) => `$${params.push(value)}::${type}`;
    const text = `SELECT json_build_object('varMoments', ${varMomentsSql(param, varMoments, varFrom)}) AS result`;
    const { rows } = await db.query<{ result: { varMoments: VarSeries[] | null } }>(text, params);
    const series = rows[0]?.result.varMoments;
    if (series) return series;
  }
  return [];
}

/**
 * VaR's rows out of its part of a read ({@link varMomentsSql}): the stored moments as they are, else computed from the series (read
 * from the closes in a second statement when the part is null).
 */
export async function varMomentsOf(
  db: SqlClient,
  fundId: string,
  request: NonNullable<FundReadRequest['varMoments']>,
  part: StoredMoments | VarSeries[] | null,
): Promise<VarMomentRow[]> {
  if (part !== null && !Array.isArray(part)) {
    const { observations, variance, assets, covariances } = part;
    return assets.map((asset, i) => ({ asset, observations, variance, covariance: covariances[i]! }));
  }
  // Null: neither stored moments nor arrays that serve this window (calendars differ, or too few closes).
  const series = part ?? (await varSeries(db, fundId, request, 'closes'));
  return varMomentsOfSeries(series, request.returns, request.method);
}

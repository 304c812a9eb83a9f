/**
 * The Postgres fund store: the tables of `db/migrations/`, read through `@neondatabase/serverless`.
 *
 * Each method is one parameterised statement, so one round trip: `index` returns the fund, its share classes
 * with fee terms, and its runs (only their version when the isolate holds that index already); `read` returns every part of a batched request in one JSON document built
 * by subqueries. Columns are named one by one (no `SELECT *`); paper-book positions, ledger memos and the
 * investors' personal data are never selected, except investors' identity columns on a capital read and in
 * the fund's identity set (`identities`), which the redaction step needs in order to scan the response for them. NUMERIC values leave the database as
 * text, so no amount passes through a float; identifier columns sort in the "C" collation, as the embedded
 * store does. Rows come back in the field names of `lib/fund/rows.ts` and are checked by `guardedStore`; the
 * select lists are built from the table descriptors of `lib/fund/tables.ts`, so a column is named there only.
 */
import type { SqlClient } from '../db/sql.ts';
import type { FundIdentities, FundIndex, FundReadRequest, FundReadResult, FundStore } from './store.ts';
import { emptyRead } from './store.ts';
import { keptIdentityVersions } from './identities.ts';
import { CASH_CLASSES } from './analytics/holdings.ts';
import { EWMA_LAMBDA, type VarSeries, varMomentsOfSeries } from './analytics/var.ts';
import type { VarMomentRow } from './rows.ts';
import {
  ACCOUNT_BALANCES,
  ACCOUNTS,
  CAPITAL_ACCOUNTS,
  columnList,
  EXPENSES,
  FEE_TERMS,
  FUNDS,
  INVESTORS,
  jsonFields,
  LEDGER_LINES,
  NAV_RUNS,
  POSITION_SUMS,
  POSITIONS,
  PRICES,
  SHARE_CLASSES,
} from './tables.ts';

/** Every investor of the fund (`$1`), identity columns included: what the fund's identity set is made of. */
const INVESTORS_SQL = `
  SELECT json_agg(json_build_object(${jsonFields(INVESTORS, 'i')})
    ORDER BY i.investor_id)
  FROM investors i WHERE i.fund_id = $1`;

/**
 * The index's version and, unless the caller holds that version (`$2`), the index itself; the identity
 * set's version and, unless the isolate holds a set of that version (`$3`, the versions it holds), every
 * investor, so that an isolate's first request loads both in one round trip. Both versions are one row of
 * `fund_versions`, which the database keeps current whenever the fund, a share class, its fee terms, a run or
 * an investor is written (db/migrations/0003_fund_versions.sql): an MD5 of those rows, made once when they
 * are written, so a request reads a key, never the fund's history.
 */
const INDEX_SQL = `
SELECT v.version AS index_version, CASE WHEN v.version IS DISTINCT FROM $2::text THEN json_build_object(
  'fund', json_build_object(${jsonFields(FUNDS, 'f')}),
  'shareClasses', COALESCE((
    SELECT json_agg(json_build_object(${jsonFields(SHARE_CLASSES, 's')}, ${jsonFields(FEE_TERMS, 't', ['shareClassId'])})
      ORDER BY s.share_class_id)
    FROM share_classes s JOIN fee_terms t USING (fund_id, share_class_id)
    WHERE s.fund_id = f.fund_id), '[]'::json),
  'runs', COALESCE((
    SELECT json_agg(json_build_object(${jsonFields(NAV_RUNS, 'r')})
      ORDER BY r.nav_date)
    FROM nav_runs r WHERE r.fund_id = f.fund_id), '[]'::json)
) END AS index,
v.identity_version,
CASE WHEN v.identity_version <> ALL($3::text[]) THEN COALESCE((${INVESTORS_SQL}), '[]'::json) END AS investors
FROM funds f JOIN fund_versions v (fund_id, version, identity_version) USING (fund_id)
WHERE f.fund_id = $1`;

/** Funds whose index an isolate keeps at most. */
const KEPT_INDEXES = 8;

/**
 * The index last read of each fund, by its version: plain data, shared by the isolate's requests (never a
 * pending read), so that a request whose fund has not changed reads its version only, not 1,826 runs again.
 */
const keptIndexes = new Map<string, { version: string; index: FundIndex }>();

/** A copy of a kept index a request may use as its own (the rows are not changed by anyone, the lists may be). */
function copyOf(index: FundIndex): FundIndex {
  return { fund: { ...index.fund }, shareClasses: index.shareClasses.map((c) => ({ ...c })), runs: index.runs.slice() };
}

const POSITIONS_SQL = (dates: string) => `
  SELECT json_agg(json_build_object(${jsonFields(POSITIONS, 'p')})
    ORDER BY array_position(${dates}, p.nav_date), p.asset, p.venue)
  FROM positions p
  WHERE p.fund_id = $1 AND p.book = 'live' AND p.nav_date = ANY(${dates})`;

const POSITION_SUMS_SQL = (dates: string) => `
  SELECT json_agg(json_build_object(${jsonFields(POSITION_SUMS, 's')}) ORDER BY s.nav_date, s.asset_class, s.market_value)
  FROM position_sums s
  WHERE s.fund_id = $1 AND s.nav_date = ANY(${dates})`;

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
interface StoredMoments {
  observations: number;
  variance: string;
  assets: string[];
  covariances: string[];
}

const ACCOUNTS_SQL = `
  SELECT json_agg(json_build_object(${jsonFields(ACCOUNTS, 'a')}) ORDER BY a.code)
  FROM accounts a WHERE a.fund_id = $1`;

const LEDGER_SQL = (after: string, through: string) => `
  SELECT json_agg(json_build_object(${jsonFields(LEDGER_LINES, 'l')})
    ORDER BY l.entry_date, l.entry_id, l.line_no)
  FROM ledger_lines l
  WHERE l.fund_id = $1 AND (${after}::date IS NULL OR l.entry_date > ${after}) AND l.entry_date <= ${through}`;

/** Per account, its latest running balance on or before `through`: one row per account, read along the key. */
const BALANCES_SQL = (through: string) => `
  SELECT json_agg(json_build_object(${jsonFields(ACCOUNT_BALANCES, 'b')}) ORDER BY b.account_code)
  FROM accounts a CROSS JOIN LATERAL (
    SELECT x.account_code, x.debit, x.credit FROM ledger_balances x
    WHERE x.fund_id = a.fund_id AND x.account_code = a.code AND x.entry_date <= ${through}
    ORDER BY x.entry_date DESC LIMIT 1) b
  WHERE a.fund_id = $1`;

const CAPITAL_SQL = (dates: string) => `
  SELECT json_agg(json_build_object(${jsonFields(CAPITAL_ACCOUNTS, 'c')})
    ORDER BY array_position(${dates}, c.nav_date), c.investor_id)
  FROM capital_accounts c
  WHERE c.fund_id = $1 AND c.nav_date = ANY(${dates})`;

const EXPENSES_SQL = (limit: string) => `
  SELECT json_agg(json_build_object(${jsonFields(EXPENSES, 'e')})
    ORDER BY e.expense_date DESC, e.expense_id DESC)
  FROM (
    SELECT ${columnList(EXPENSES)} FROM expenses
    WHERE fund_id = $1 ORDER BY expense_date DESC, expense_id DESC LIMIT ${limit}) e`;

/** The identity set's version and, unless the caller holds that version (`$2`, versions held), every investor. */
const IDENTITIES_SQL = `
  WITH v (version) AS (
    SELECT COALESCE((SELECT identity_version FROM fund_versions WHERE fund_id = $1), 'md5:' || md5('')))
  SELECT v.version, CASE WHEN v.version <> ALL($2::text[]) THEN COALESCE((${INVESTORS_SQL}), '[]'::json) END AS investors
  FROM v`;

/**
 * Builds the one statement of a batched read: a JSON object with a member per requested part. Only fixed
 * SQL fragments are concatenated; every value is a `$n` parameter. VaR's part is its stored moments when
 * there are some for the request (an object), else the series read from the assets' arrays of closes (an
 * array), null when these do not serve the window; with `varFrom`, only the series from the arrays or from
 * the closes themselves.
 * @returns the SQL text and its parameters (`$1` is the fund id)
 */
export function readStatement(
  fundId: string,
  request: FundReadRequest,
  options: { varFrom?: 'arrays' | 'closes' } = {},
): { text: string; params: unknown[] } {
  const params: unknown[] = [fundId];
  const param = (value: unknown, type: string) => {
    params.push(value);
    return `$${params.length}::${type}`;
  };
  const parts: string[] = [];
  const part = (name: keyof FundReadResult, sql: string) => parts.push(`'${name}', COALESCE((${sql}), '[]'::json)`);

  if (request.positions) part('positions', POSITIONS_SQL(param(request.positions.navDates, 'date[]')));
  if (request.positionSums) part('positionSums', POSITION_SUMS_SQL(param(request.positionSums.navDates, 'date[]')));
  const closesCtes = ({ heldAt, through }: { heldAt: string; through: string }, closes: number) =>
    CLOSES_CTES(
      param(heldAt, 'date'),
      param(through, 'date'),
      param(closes, 'int'),
      param(closes, 'int'),
      param([...CASH_CLASSES], 'text[]'),
    );
  if (request.prices) part('prices', PRICES_SQL(closesCtes(request.prices, request.prices.closes)));
  if (request.varMoments) {
    const v = request.varMoments;
    const [heldAt, through, closes, cash] = [
      param(v.heldAt, 'date'),
      param(v.through, 'date'),
      param(v.returns + 1, 'int'),
      param([...CASH_CLASSES], 'text[]'),
    ];
    const arrays = VAR_ARRAYS_SQL(heldAt, through, closes, cash);
    // The series from the arrays when they serve (null otherwise: `varSeries` reads the closes in a second
    // statement). Not one COALESCE of both: PostgreSQL then took 0.5 s more for a 1,000-return window, though
    // it never ran the second. The stored row and the arrays' part do share one: its second part is not run
    // when the row is there (EXPLAIN ANALYZE: "never executed").
    if (options.varFrom === 'closes') part('varMoments', VAR_SERIES_SQL(CLOSES_CTES(heldAt, through, closes, closes, cash)));
    else if (options.varFrom === 'arrays') parts.push(`'varMoments', (${arrays})`);
    else {
      const stored = VAR_STORED_SQL(heldAt, through, param(v.returns, 'int'), param(v.method, 'text'), param(VAR_MOMENTS_BASIS, 'text'));
      parts.push(`'varMoments', COALESCE((${stored}), (${arrays}))`);
    }
  }
  if (request.ledger || request.balances) part('accounts', ACCOUNTS_SQL);
  if (request.ledger) part('ledger', LEDGER_SQL(param(request.ledger.after, 'date'), param(request.ledger.through, 'date')));
  if (request.balances) part('balances', BALANCES_SQL(param(request.balances.through, 'date')));
  if (request.capital) {
    part('investors', INVESTORS_SQL);
    part('capital', CAPITAL_SQL(param(request.capital.navDates, 'date[]')));
  }
  if (request.expenses) part('expenses', EXPENSES_SQL(param(request.expenses.limit, 'int')));
  return { text: `SELECT json_build_object(${parts.join(', ')}) AS result`, params };
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
    const { text, params } = readStatement(fundId, { varMoments }, { varFrom });
    const { rows } = await db.query<{ result: { varMoments: VarSeries[] | null } }>(text, params);
    const series = rows[0]?.result.varMoments;
    if (series) return series;
  }
  return [];
}

/**
 * VaR's rows out of its part of a read: the stored moments as they are, else computed from the series (read
 * from the closes in a second statement when the part is null).
 */
async function varMomentsOf(
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

/**
 * A store over the fund tables.
 * @param db the request's connection (one round trip per method call)
 * @throws from any method: {@link import('../errors.ts').UpstreamUnavailableError} 503
 */
export function postgresStore(db: SqlClient): FundStore {
  /**
   * The identity set by fund as the last index read gave it: its version, and its investors when the
   * isolate held no set of that version then (handed to the first `identities` call that needs them).
   */
  const identitiesRead = new Map<string, FundIdentities>();
  return {
    async index(fundId) {
      const kept = keptIndexes.get(fundId);
      const { rows } = await db.query<{
        index: FundIndex | null;
        index_version: string;
        identity_version: string;
        investors: FundIdentities['investors'];
      }>(INDEX_SQL, [fundId, kept?.version ?? null, keptIdentityVersions()]);
      const row = rows[0];
      if (!row) return null;
      identitiesRead.set(fundId, { version: row.identity_version, investors: row.investors });
      // No index in the answer: the kept one is current (the statement sends it whenever versions differ).
      if (row.index === null) return copyOf(kept!.index);
      keptIndexes.delete(fundId);
      if (keptIndexes.size >= KEPT_INDEXES) keptIndexes.delete(keptIndexes.keys().next().value!);
      keptIndexes.set(fundId, { version: row.index_version, index: row.index });
      return copyOf(row.index);
    },
    async read(fundId, request) {
      const out = emptyRead();
      const { text, params } = readStatement(fundId, request);
      if (params.length === 1) return out;
      const { rows } = await db.query<{ result: Partial<FundReadResult> }>(text, params);
      const result = { ...out, ...rows[0]?.result };
      if (request.varMoments) {
        const part = result.varMoments as unknown as StoredMoments | VarSeries[] | null;
        result.varMoments = await varMomentsOf(db, fundId, request.varMoments, part);
      }
      return result;
    },
    async identities(fundId, known = []) {
      // What the index statement read: its version when the caller holds that set, else its investors when
      // it sent them (once: a later call reads them again). Either way no round trip.
      const read = identitiesRead.get(fundId);
      if (read !== undefined && known.includes(read.version)) return { version: read.version, investors: null };
      if (read?.investors) {
        identitiesRead.set(fundId, { version: read.version, investors: null });
        return read;
      }
      const { rows } = await db.query<FundIdentities>(IDENTITIES_SQL, [fundId, known]);
      return rows[0]!;
    },
  };
}

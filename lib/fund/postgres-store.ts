/**
 * The Postgres fund store: the tables of `db/migrations/`, read through a `SqlClient` (lib/db/sql.ts): SQL
 * over HTTP in the Worker (lib/db/http.ts), a WebSocket session in the operator's tools and the tests.
 *
 * Each method is one parameterised statement, so one round trip: `index` returns the fund, its share classes
 * with fee terms and its runs of the last year (only their version when the isolate holds that index already)
 * and, unless the isolate holds the identity set of its version, the fund's investors and the set stored
 * compiled from them; `read` returns every part of a batched request in one JSON document built by
 * subqueries (VaR's and the closes' parts: lib/fund/postgres-var.ts).
 * Columns are named one by one (no `SELECT *`); paper-book positions, ledger memos and the investors'
 * personal data are never selected, except investors' identity columns with the fund's index (when the
 * isolate holds no identity set of their version), which the redaction step needs in order to scan the
 * response for them; a capital read selects each investor's id and share class only. NUMERIC values leave
 * the database as text, so no amount passes through a float; identifier columns sort in the "C" collation,
 * as the embedded store does. Rows come back in the field names of `lib/fund/rows.ts` and are checked by
 * `guardedStore`; the select lists are built from the table descriptors of `lib/fund/tables.ts`, so a column
 * is named there only.
 */
import type { SqlClient } from '../db/sql.ts';
import {
  emptyRead,
  StaleIndexError,
  type FundIdentities,
  type FundIndex,
  type FundReadRequest,
  type FundReadResult,
  type FundStore,
} from './store.ts';
import type { NavRunRow } from './rows.ts';
import { keptIdentityVersions } from './identities.ts';
import { IDENTITY_SET_FORMAT } from '../identity-set-form.ts';
import type { VarSeries } from './analytics/var.ts';
import { INDEX_RUN_DAYS, runsFrom } from './analytics/runs.ts';
import { pricesSql, type SqlParam, type StoredMoments, varMomentsOf, varMomentsSql } from './postgres-var.ts';
import {
  ACCOUNT_BALANCES,
  ACCOUNTS,
  CAPITAL_ACCOUNTS,
  columnList,
  EXPENSES,
  FEE_TERMS,
  FUNDS,
  INVESTOR_CLASSES,
  INVESTORS,
  jsonFields,
  LEDGER_SUMS,
  NAV_RUNS,
  POSITION_SUMS,
  POSITIONS,
  SHARE_CLASSES,
  type Table,
} from './tables.ts';

/** Every investor of the fund (`$1`), by id, as the columns of `table` (one of the investors table's selections). */
const INVESTORS_AS = (table: Table) => `
  SELECT json_agg(json_build_object(${jsonFields(table, 'i')}) ORDER BY i.investor_id)
  FROM investors i WHERE i.fund_id = $1`;

/** Every investor of the fund (`$1`), identity columns included: what the fund's identity set is made of. */
export const INVESTORS_SQL = INVESTORS_AS(INVESTORS);

/** A run of the fund `$1` that is usable (lib/fund/analytics/runs.ts's `isUsable`), as alias `u`. */
const USABLE_RUN = `u.fund_id = $1 AND u.status = 'complete' AND u.recon_status = 'matched' AND u.shadow_nav IS NOT NULL`;

/**
 * Every run of the fund on or after the latest usable run dated before `from` (every run when none is),
 * oldest first: lib/fund/analytics/runs.ts's `runsFrom`. Both bounds are read backwards along the key.
 */
const RUNS_FROM_SQL = (from: string) => `
  SELECT json_agg(json_build_object(${jsonFields(NAV_RUNS, 'r')}) ORDER BY r.nav_date)
  FROM nav_runs r
  WHERE r.fund_id = $1 AND r.nav_date >= COALESCE(
    (SELECT max(u.nav_date) FROM nav_runs u WHERE ${USABLE_RUN} AND u.nav_date < ${from}), '-infinity'::date)`;

/**
 * Where the index starts its runs (`runs_from`): `INDEX_RUN_DAYS` before the latest usable run, or NULL
 * (every run) when no usable run precedes that day: lib/fund/analytics/runs.ts's `indexRunsFrom`. One row,
 * computed once per index sent (none when the caller holds the current index).
 */
const INDEX_RUNS_FROM_SQL = `
  SELECT CASE WHEN EXISTS (SELECT 1 FROM nav_runs u WHERE ${USABLE_RUN} AND u.nav_date < y.start) THEN y.start END AS runs_from
  FROM (SELECT max(u.nav_date) - ${INDEX_RUN_DAYS} AS start FROM nav_runs u WHERE ${USABLE_RUN}) y`;

/**
 * The fund's identity set as stored compiled from the investors of identity version `version`, in format
 * `format` (db/migrations/0005_identity_sets.sql): none when the stored one is of another version (an
 * investor written since) or another compiler (lib/identity-set-form.ts).
 */
const COMPILED_SQL = (version: string, format: string) => `
  SELECT s.compiled FROM identity_sets s
  WHERE s.fund_id = $1 AND s.identity_version = ${version} AND s.format = ${format}`;

/**
 * The index's version and, unless the caller holds that version (`$2`), the index itself; the identity
 * set's version and, unless the isolate holds a set of that version (`$3`, the versions it holds), every
 * investor and the set stored compiled from them in the reader's format (`$4`), so that an isolate's first
 * request loads both in one round trip. Both versions are one row of
 * `fund_versions`, which the database keeps current whenever the fund, a share class, its fee terms, a run or
 * an investor is written (db/migrations/0003_fund_versions.sql): an MD5 of those rows, made once when they
 * are written, so a request reads a key, never the fund's history.
 */
const INDEX_SQL = `
SELECT v.version AS index_version, CASE WHEN v.version IS DISTINCT FROM $2::text THEN (
  SELECT json_build_object(
    'fund', json_build_object(${jsonFields(FUNDS, 'f')}),
    'shareClasses', COALESCE((
      SELECT json_agg(json_build_object(${jsonFields(SHARE_CLASSES, 's')}, ${jsonFields(FEE_TERMS, 't', ['shareClassId'])})
        ORDER BY s.share_class_id)
      FROM share_classes s JOIN fee_terms t USING (fund_id, share_class_id)
      WHERE s.fund_id = f.fund_id), '[]'::json),
    'runs', COALESCE((${RUNS_FROM_SQL('w.runs_from')}), '[]'::json),
    'runsFrom', w.runs_from,
    'firstRunDate', (SELECT min(r.nav_date) FROM nav_runs r WHERE r.fund_id = $1))
  FROM (${INDEX_RUNS_FROM_SQL}) w
) END AS index,
v.identity_version,
CASE WHEN v.identity_version <> ALL($3::text[]) THEN COALESCE((${INVESTORS_SQL}), '[]'::json) END AS investors,
CASE WHEN v.identity_version <> ALL($3::text[]) THEN (${COMPILED_SQL('v.identity_version', '$4')}) END AS compiled
FROM funds f JOIN fund_versions v (fund_id, version, identity_version) USING (fund_id)
WHERE f.fund_id = $1`;

/**
 * The fund's index and identity set versions (no row: no fund), to check an index answered from what the
 * isolate keeps: alone ({@link VERSIONS_SQL}) or beside a read's rows, in the same snapshot.
 */
const VERSIONS_OF_FUND = `v.index_version, v.identity_version FROM fund_versions v WHERE v.fund_id = $1`;
const VERSIONS_SQL = `SELECT ${VERSIONS_OF_FUND}`;

/** Funds whose index an isolate keeps at most. */
const KEPT_INDEXES = 8;

/**
 * The index last read of each fund, by its version, with the identity set's version read with it, and the
 * earliest runs read since at that version (`earlier`: a 10-year NAV history's): plain data, shared by the
 * isolate's requests (never a pending read), so that a request whose fund has not changed reads no index,
 * and checks the versions in the same statement as its rows.
 */
const keptIndexes = new Map<string, KeptIndex>();

/** A kept index ({@link keptIndexes}). */
interface KeptIndex {
  version: string;
  identityVersion: string;
  index: FundIndex;
  earlier?: { from: string; runs: NavRunRow[] };
}

/**
 * The versions each index a store answered from the kept one without a statement was answered on (each call
 * gets its own copy: the key), and what a check found: not checked yet (`assumed`), `current` or `stale`. Per
 * call, so that the calls of one request (an MCP batch) each check their own.
 */
const assumedOf = new WeakMap<FundIndex, { version: string; identityVersion: string; state: 'assumed' | 'current' | 'stale' }>();

/** Forgets every kept index, so that the next request of each fund reads its index (for tests and benchmarks). */
export function clearKeptIndexes(): void {
  keptIndexes.clear();
}

/** A copy of a kept index a request may use as its own (the rows are not changed by anyone, the lists may be). */
function copyOf(index: FundIndex): FundIndex {
  return { ...index, fund: { ...index.fund }, shareClasses: index.shareClasses.map((c) => ({ ...c })), runs: index.runs.slice() };
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

const ACCOUNTS_SQL = `
  SELECT json_agg(json_build_object(${jsonFields(ACCOUNTS, 'a')}) ORDER BY a.code)
  FROM accounts a WHERE a.fund_id = $1`;

/** The span's lines summed per account, asset and venue (the embedded store's order: NULLs last, as ASC puts them). */
const LEDGER_SQL = (after: string, through: string) => `
  SELECT json_agg(json_build_object(${jsonFields(LEDGER_SUMS, 's')}) ORDER BY s.account_code, s.asset, s.venue)
  FROM (
    SELECT l.account_code, l.asset, l.venue, sum(l.debit) AS debit, sum(l.credit) AS credit
    FROM ledger_lines l
    WHERE l.fund_id = $1 AND (${after}::date IS NULL OR l.entry_date > ${after}) AND l.entry_date <= ${through}
    GROUP BY l.account_code, l.asset, l.venue) s`;

/** Per account, its latest running balance on or before `through`: one row per account, read along the key. */
const BALANCES_SQL = (through: string) => `
  SELECT json_agg(json_build_object(${jsonFields(ACCOUNT_BALANCES, 'b')}) ORDER BY b.account_code)
  FROM accounts a CROSS JOIN LATERAL (
    SELECT x.account_code, x.debit, x.credit FROM ledger_balances x
    WHERE x.fund_id = a.fund_id AND x.account_code = a.code AND x.entry_date <= ${through}
    ORDER BY x.entry_date DESC LIMIT 1) b
  WHERE a.fund_id = $1`;

/** Each investor's id and share class, by id (no identity column: a capital read needs no more). */
const INVESTOR_CLASSES_SQL = INVESTORS_AS(INVESTOR_CLASSES);

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

/**
 * The identity set's version and, unless the caller holds that version (`$2`, versions held), every investor
 * and the set stored compiled from them in the reader's format (`$3`).
 */
const IDENTITIES_SQL = `
  WITH v (version) AS (
    SELECT COALESCE((SELECT identity_version FROM fund_versions WHERE fund_id = $1), 'md5:' || md5('')))
  SELECT v.version, CASE WHEN v.version <> ALL($2::text[]) THEN COALESCE((${INVESTORS_SQL}), '[]'::json) END AS investors,
    CASE WHEN v.version <> ALL($2::text[]) THEN (${COMPILED_SQL('v.version', '$3')}) END AS compiled
  FROM v`;

/**
 * Builds the one statement of a batched read: a JSON object with a member per requested part. Only fixed
 * SQL fragments are concatenated; every value is a `$n` parameter. VaR's and the closes' parts are made by
 * lib/fund/postgres-var.ts (`varFrom`: see {@link varMomentsSql}).
 * @returns the SQL text and its parameters (`$1` is the fund id)
 */
export function readStatement(
  fundId: string,
  request: FundReadRequest,
  options: { varFrom?: 'arrays' | 'closes'; versions?: boolean } = {},
): { text: string; params: unknown[] } {
  const params: unknown[] = [fundId];
  const param: SqlParam = (value, type) => `$${params.push(value)}::${type}`;
  const parts: string[] = [];
  const part = (name: keyof FundReadResult, sql: string) => parts.push(`'${name}', COALESCE((${sql}), '[]'::json)`);

  if (request.runs) part('runs', RUNS_FROM_SQL(param(request.runs.from, 'date')));
  if (request.positions) part('positions', POSITIONS_SQL(param(request.positions.navDates, 'date[]')));
  if (request.positionSums) part('positionSums', POSITION_SUMS_SQL(param(request.positionSums.navDates, 'date[]')));
  if (request.prices) part('prices', pricesSql(param, request.prices));
  if (request.varMoments) parts.push(`'varMoments', ${varMomentsSql(param, request.varMoments, options.varFrom)}`);
  if (request.ledger || request.balances) part('accounts', ACCOUNTS_SQL);
  if (request.ledger) part('ledger', LEDGER_SQL(param(request.ledger.after, 'date'), param(request.ledger.through, 'date')));
  if (request.balances) part('balances', BALANCES_SQL(param(request.balances.through, 'date')));
  if (request.capital) {
    part('investorClasses', INVESTOR_CLASSES_SQL);
    part('capital', CAPITAL_SQL(param(request.capital.navDates, 'date[]')));
  }
  if (request.expenses) part('expenses', EXPENSES_SQL(param(request.expenses.limit, 'int')));
  const versions = options.versions ? `, ${VERSIONS_OF_FUND}` : '';
  return { text: `SELECT json_build_object(${parts.join(', ')}) AS result${versions}`, params };
}

/** The index statement's row ({@link INDEX_SQL}). */
interface IndexRow {
  index: FundIndex | null;
  index_version: string;
  identity_version: string;
  investors: FundIdentities['investors'];
  compiled: string | null;
}

/** Keeps the index a statement sent for `fundId`, the least recently read fund's dropped past {@link KEPT_INDEXES}. */
function keepIndex(fundId: string, kept: KeptIndex): void {
  keptIndexes.delete(fundId);
  if (keptIndexes.size >= KEPT_INDEXES) keptIndexes.delete(keptIndexes.keys().next().value!);
  keptIndexes.set(fundId, kept);
}

/** A copy of a kept index for one call that is answered from it without a statement, with the versions it assumes. */
function assumedCopy(kept: KeptIndex): FundIndex {
  const index = copyOf(kept.index);
  assumedOf.set(index, { version: kept.version, identityVersion: kept.identityVersion, state: 'assumed' });
  return index;
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
  /** The index version this request's index read found (or, answered from the kept index, assumed), by fund. */
  const versionRead = new Map<string, string>();
  /** False once a check found a kept index stale: this store's later calls read the index. */
  let speculate = true;
  /**
   * Compares the versions a statement read with those `index` was answered on, and records the outcome.
   * @throws {StaleIndexError} when they differ (or the fund has no versions row)
   */
  const check = (index: FundIndex, row: { index_version?: string; identity_version?: string } | undefined) => {
    const was = assumedOf.get(index)!;
    if (row?.index_version === was.version && row?.identity_version === was.identityVersion) {
      was.state = 'current';
      return;
    }
    // The call is made again; this store's later calls read the index, which resets what it read.
    was.state = 'stale';
    speculate = false;
    throw new StaleIndexError();
  };
  /** The fund's kept index and runs, when they are of the version this request read. */
  const keptNow = (fundId: string) => {
    const kept = keptIndexes.get(fundId);
    return kept && kept.version === versionRead.get(fundId) ? kept : undefined;
  };
  return {
    async index(fundId) {
      const kept = keptIndexes.get(fundId);
      // The kept index and the identity set it was read with, both still held: answered without a statement,
      // the versions checked with the call's first read (or by verify) before anything leaves.
      if (speculate && kept && keptIdentityVersions().includes(kept.identityVersion)) {
        versionRead.set(fundId, kept.version);
        identitiesRead.set(fundId, { version: kept.identityVersion, investors: null });
        return assumedCopy(kept);
      }
      const { rows } = await db.query<IndexRow>(INDEX_SQL, [fundId, kept?.version ?? null, keptIdentityVersions(), IDENTITY_SET_FORMAT]);
      const row = rows[0];
      if (!row) return null;
      versionRead.set(fundId, row.index_version);
      identitiesRead.set(fundId, { version: row.identity_version, investors: row.investors, compiled: row.compiled });
      // No index in the answer: the kept one is current (the statement sends it whenever versions differ).
      if (row.index === null) {
        kept!.identityVersion = row.identity_version;
        return copyOf(kept!.index);
      }
      keepIndex(fundId, { version: row.index_version, identityVersion: row.identity_version, index: row.index });
      return copyOf(row.index);
    },
    async verify(fundId, index) {
      const state = assumedOf.get(index)?.state;
      if (state === 'stale') throw new StaleIndexError();
      if (state !== 'assumed') return;
      const { rows } = await db.query<{ index_version: string; identity_version: string }>(VERSIONS_SQL, [fundId]);
      check(index, rows[0]);
    },
    async read(fundId, asked, against) {
      const out = emptyRead();
      // Earlier runs of the version this request's index read are read once per isolate: the version is a
      // digest of every run, so they are the same runs (runsFrom of a later day is a part of them).
      const kept = keptNow(fundId);
      const earlier = asked.runs && kept?.earlier && kept.earlier.from <= asked.runs.from ? kept.earlier : undefined;
      const request = earlier ? { ...asked, runs: undefined } : asked;
      if (earlier) out.runs = runsFrom(earlier.runs, asked.runs!.from);
      const versions = against !== undefined && assumedOf.get(against)?.state === 'assumed';
      const { text, params } = readStatement(fundId, request, { versions });
      if (params.length === 1) return out;
      const { rows } = await db.query<{ result: Partial<FundReadResult>; index_version?: string; identity_version?: string }>(text, params);
      if (versions) check(against, rows[0]);
      const result = { ...out, ...rows[0]?.result };
      if (request.runs && kept && (!kept.earlier || request.runs.from < kept.earlier.from)) {
        kept.earlier = { from: request.runs.from, runs: result.runs };
      }
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
      const { rows } = await db.query<FundIdentities>(IDENTITIES_SQL, [fundId, known, IDENTITY_SET_FORMAT]);
      return rows[0]!;
    },
  };
}

/**
 * The fund store: the narrow interface every source of fund data implements (the embedded synthetic funds
 * and Postgres), and the guard that checks what a store returns before anything is computed from it.
 *
 * A store returns raw rows, and plain sums of them where the rows would be too many to send (a ledger since
 * inception, a year of positions: `balances`, `positionSums`), grouped by stored columns only and exact
 * (NUMERIC, or cents); every figure is computed from them in `lib/fund/analytics/`, so all stores give the
 * same answers. An endpoint makes at most two calls: {@link FundStore.index} (the fund, its share
 * classes and its NAV runs of the last year, from which the dates of interest follow) and one batched
 * {@link FundStore.read}; one more, of the runs from an earlier day, when it answers about days before the
 * index's runs (a P&L attribution of an older day).
 */
import type {
  AccountBalanceRow,
  AccountRow,
  CapitalRow,
  ExpenseRow,
  FundRow,
  InvestorClassRow,
  InvestorRow,
  LedgerSumRow,
  NavRunRow,
  PositionRow,
  PositionSumRow,
  PriceRow,
  ShareClassRow,
  VarMomentRow,
} from './rows.ts';
import { guardRows } from './rows.ts';
import { RedactionFailedError } from '../errors.ts';

/**
 * The fund, its share classes (with fee terms) and its recent NAV runs, oldest first: those an answer about
 * the latest runs reads, not the fund's whole history (an answer about earlier days reads their runs with
 * {@link FundReadRequest.runs}).
 */
export interface FundIndex {
  fund: FundRow;
  shareClasses: ShareClassRow[];
  /**
   * Every run dated on or after the latest usable run before {@link runsFrom}, through the fund's last run
   * (`runsFrom` of lib/fund/analytics/runs.ts); every run of the fund when `runsFrom` is null.
   */
  runs: NavRunRow[];
  /** A year and a day before the latest usable run (`indexRunsFrom`); null when `runs` holds every run. */
  runsFrom: string | null;
  /** The date of the fund's first run (null: none), which `runs` may start after. */
  firstRunDate: string | null;
}

/** What one batched read asks for; each part is optional. Dates are `YYYY-MM-DD`. */
export interface FundReadRequest {
  /**
   * The runs an answer about the days from `from` on reads: every run dated on or after the latest usable
   * run before `from` (every run when none is), oldest first (`runsFrom` of lib/fund/analytics/runs.ts).
   */
  runs?: { from: string };
  /** Live positions of the runs on these dates (never the paper book). */
  positions?: { navDates: string[] };
  /**
   * The live positions of the runs on these dates summed per run, asset class and sign: one row per
   * (date, class, negative or not) with positions, in no particular order.
   */
  positionSums?: { navDates: string[] };
  /**
   * The closes of the assets with price risk held at the run on `heldAt` (those with a live position of a
   * class other than fiat and stablecoin): every one of them on each of the last `closes` dates, on or
   * before `through`, on which all of them have a close (so `closes` dates give `closes − 1` returns, however
   * sparse the price calendar), by asset then date. Fewer dates when the history holds fewer.
   */
  prices?: { heldAt: string; through: string; closes: number };
  /**
   * VaR's moments over the last `returns` daily returns of the same closes as `prices` (the dates every held
   * risky asset has a close), by `method` (lib/fund/analytics/var.ts): one row per held risky asset, by
   * asset. What VaR reads instead of the closes themselves (a year of 500 assets' closes is 10 MB of rows).
   */
  varMoments?: { heldAt: string; through: string; returns: number; method: 'sample' | 'ewma' };
  /**
   * The chart of accounts and the ledger lines dated after `after` (exclusive; null: from the start) through
   * `through`, summed per account, asset and venue: one row per key with lines in the span, by account code,
   * asset and venue (code-unit order, no asset or venue last).
   */
  ledger?: { after: string | null; through: string };
  /**
   * The chart of accounts and, per account with lines dated on or before `through`, their debits and credits
   * summed (every line since inception, which only a sum keeps small), by account code.
   */
  balances?: { through: string };
  /**
   * The fund's investors (each one's id and share class, none of the identity data: the identity set is read
   * with the index) and their capital rows at these run dates.
   */
  capital?: { navDates: string[] };
  /** The newest `limit` expenses, newest first (by date, then id). */
  expenses?: { limit: number };
}

/** Rows of a batched read; a part not asked for is empty. */
export interface FundReadResult {
  runs: NavRunRow[];
  positions: PositionRow[];
  positionSums: PositionSumRow[];
  prices: PriceRow[];
  varMoments: VarMomentRow[];
  accounts: AccountRow[];
  ledger: LedgerSumRow[];
  balances: AccountBalanceRow[];
  investorClasses: InvestorClassRow[];
  capital: CapitalRow[];
  expenses: ExpenseRow[];
}

/**
 * Every investor of a fund with the identity values the redaction scans each answer for
 * (docs/fund-data.md#redaction-fail-closed), and the version of that set.
 */
export interface FundIdentities {
  /**
   * Names this exact set: a digest of every investor's identity columns (equal versions, equal sets), so a
   * corrected investor row gives a new version even without a new NAV run.
   */
  version: string;
  /** Every investor of the fund (none for a fund with no investors); null when `known` holds the current version. */
  investors: InvestorRow[] | null;
  /**
   * The set compiled from exactly these investors, as the store holds it (lib/identity-set-form.ts's text, in
   * the reader's own format), which the reader loads instead of compiling; absent or null when the store
   * holds none that is current (the reader compiles the investors).
   */
  compiled?: string | null;
}

/**
 * Thrown by a store whose {@link FundStore.index} answered from the index it keeps, without a statement, once
 * it finds that index (or the identity set it assumed) no longer current: whatever was computed from it is
 * dropped, and the call is made again (lib/fund/definition.ts), when the store reads the index first.
 */
export class StaleIndexError extends Error {
  constructor() {
    super('The kept fund index is not current.');
    this.name = 'StaleIndexError';
  }
}

/** A source of fund data. Implementations select only the columns of the row types, and only live positions. */
export interface FundStore {
  /**
   * The fund's index. A store may answer from an index it keeps without asking whether it is current; the
   * call then hands that index to its reads and to {@link verify}, which check it.
   * @returns null when the store holds no fund with this id
   */
  index(fundId: string): Promise<FundIndex | null>;
  /**
   * @param against the index the call was given: a read checks it is current when the store answered it
   *   without a statement (and has not found it current yet)
   * @throws {StaleIndexError} when it is not
   */
  read(fundId: string, request: FundReadRequest, against?: FundIndex): Promise<FundReadResult>;
  /**
   * Checks that `index` (and the identity set read with it) is current, unless a read of the call already
   * has: an answer leaves only after it (lib/fund/definition.ts). Absent: the store's index is always read.
   * @throws {StaleIndexError} when it is not
   */
  verify?(fundId: string, index: FundIndex): Promise<void>;
  /**
   * The fund's identity set: every investor's legal name, e-mail, tax id, bank account and internal id.
   * @param known the versions the caller already holds: when one is current, `investors` is null and nothing
   *   else is sent
   */
  identities(fundId: string, known?: readonly string[]): Promise<FundIdentities>;
}

/**
 * The rows of the last `closes` dates on which every series has a close, by series then date: the selection
 * of a {@link FundReadRequest.prices} read, for a store that holds each asset's closes itself.
 * @param series each risky asset's closes, oldest first, one per date at most
 * @param closes how many dates to keep (the newest)
 */
export function completeCloses(series: ReadonlyMap<string, readonly PriceRow[]>, closes: number): PriceRow[] {
  const count = new Map<string, number>();
  for (const rows of series.values()) for (const { priceDate } of rows) count.set(priceDate, (count.get(priceDate) ?? 0) + 1);
  const complete = [...count].filter(([, n]) => n === series.size).map(([date]) => date);
  const kept = new Set(complete.sort().slice(-closes));
  const out: PriceRow[] = [];
  for (const asset of [...series.keys()].sort()) for (const row of series.get(asset)!) if (kept.has(row.priceDate)) out.push(row);
  return out;
}

/** An empty read result. */
export function emptyRead(): FundReadResult {
  return {
    runs: [],
    positions: [],
    positionSums: [],
    prices: [],
    varMoments: [],
    accounts: [],
    ledger: [],
    balances: [],
    investorClasses: [],
    capital: [],
    expenses: [],
  };
}

/**
 * Wraps a store so that every row it returns passes {@link guardRows}: exactly its kind's fields, and no
 * paper-book position. A store that returns more than its interface allows fails closed.
 * @throws {RedactionFailedError} from any method when a row fails the guard (or an identity set has no version)
 */
export function guardedStore(store: FundStore): FundStore {
  return {
    async index(fundId) {
      const index = await store.index(fundId);
      if (index === null) return null;
      guardRows('fund', [index.fund]);
      guardRows('shareClasses', index.shareClasses);
      guardRows('runs', index.runs);
      const dates = [index.runsFrom, index.firstRunDate];
      if (!dates.every((d) => d === null || (typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d)))) {
        throw new RedactionFailedError('store_row');
      }
      return index;
    },
    async read(fundId, request, against) {
      const result = await store.read(fundId, request, against);
      guardRows('runs', result.runs);
      guardRows('positions', result.positions);
      guardRows('positionSums', result.positionSums);
      guardRows('prices', result.prices);
      guardRows('varMoments', result.varMoments);
      guardRows('accounts', result.accounts);
      guardRows('ledger', result.ledger);
      guardRows('balances', result.balances);
      guardRows('investorClasses', result.investorClasses);
      guardRows('capital', result.capital);
      guardRows('expenses', result.expenses);
      return result;
    },
    ...(store.verify ? { verify: (fundId: string, index: FundIndex) => store.verify!(fundId, index) } : {}),
    async identities(fundId, known) {
      const result = await store.identities(fundId, known);
      if (typeof result.version !== 'string' || result.version === '') throw new RedactionFailedError('store_row');
      if (result.investors !== null) {
        if (!Array.isArray(result.investors)) throw new RedactionFailedError('store_row');
        guardRows('investors', result.investors);
      }
      if (result.compiled !== undefined && result.compiled !== null && typeof result.compiled !== 'string') {
        throw new RedactionFailedError('store_row');
      }
      return result;
    },
  };
}

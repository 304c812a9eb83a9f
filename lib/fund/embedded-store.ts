/**
 * The embedded store: the synthetic funds the Worker holds itself (no database). Each fund is loaded on first
 * use and kept for the life of the isolate: from its build-time asset (`/_fund/<fundId>.bin` through the
 * `ASSETS` binding, lib/fund/synthetic/codec.ts), which costs I/O and decoding 0.8 MB, and its capital
 * snapshots from an asset of their own (`/_fund/<fundId>.capital.bin`, 0.65 MB) by the first read of capital
 * accounts; or, without the binding (tests, scripts) or when an asset is missing or from another build, by
 * simulating it (`simulateFund`, tens of milliseconds of CPU). Both give the same rows. Rows are made only
 * when a read asks for them (per date, per price window, per ledger line) and kept. Reads select like the
 * SQL store (explicit columns, live positions only, ledger memos never returned).
 *
 * Loading, as the Worker's requests share it (docs/fund-data.md#the-embedded-funds-in-the-isolate):
 * - within one request (one {@link EmbeddedFunds.forRequest} view: a REST call, or every `tools/call` of an
 *   MCP batch), every read shares that request's one load of a fund;
 * - across requests, what is shared is the decoded fund, a plain value kept once any request has loaded it,
 *   never a pending load: workerd ties I/O to the request that started it, so a request awaiting another's
 *   load could hang when that request is cancelled. A request that finds another's load begun less than
 *   {@link LOAD_CLAIM_MS} ago waits for its result on its own timer (so concurrent first requests decode the
 *   fund once), and loads the fund itself once the fund is still not kept after that.
 */
import type { FundIndex, FundReadRequest, FundReadResult, FundStore } from './store.ts';
import { completeCloses, emptyRead } from './store.ts';
import type { PositionRow, PositionSumRow } from './rows.ts';
import { centsOf, moneyOfCents } from '../decimal.ts';
import { CASH_CLASSES } from './analytics/holdings.ts';
import { addDays, indexRunsFrom, runsFrom } from './analytics/runs.ts';
import { exposureByAsset, varMomentsOfSeries } from './analytics/var.ts';
import { SyntheticFund, simulateFund, type SyntheticFundSpec } from './synthetic.ts';
import { simulateParts } from './synthetic/simulate.ts';
import { FundAssetError, capitalAssetPath, decodeCapital, decodeFund, fundAssetPath } from './synthetic/codec.ts';
import { logFault } from '../log.ts';
import { fetchAsset } from '../assets.ts';

/** Where the embedded funds' build-time assets are, and the fingerprint each must carry to be used. */
export interface FundAssets {
  /** The Worker's `ASSETS` binding; without it the funds are simulated. */
  binding: Fetcher | undefined;
  /** The fingerprint of each fund's asset as this build wrote it, by fund id (handed in by the composition root). */
  fingerprints: Readonly<Record<string, string>>;
}

/**
 * How long a request waits for a fund another request began loading before it loads the fund itself, ms.
 * A load (the asset's fetch and decoding) takes tens of milliseconds; a load whose request was cancelled
 * never finishes, and this bounds what it costs the others.
 */
export const LOAD_CLAIM_MS = 2_000;
/** How often a waiting request looks for the fund another request is loading, ms (on its own timer). */
const LOAD_POLL_MS = 10;

/**
 * A fund from its build-time asset, or simulated when there is none to use. With a binding, a missing or
 * unusable asset is a deployment fault (`npm run build` writes it before every deploy): logged as
 * `fund_asset_unusable` with the reason, then the fund is simulated, so answers never depend on it.
 * @param spec the fund
 * @param assets the assets and their fingerprints, if any
 * @returns the fund, decoded from its asset (without its capital snapshots: {@link loadCapital}) or
 *   simulated (the same rows either way)
 * @throws {Error} only from simulating (a generator bug; never for the two bundled specs, which the tests
 *   simulate); an unusable asset is logged, not thrown
 */
export async function loadFund(spec: SyntheticFundSpec, assets: FundAssets | undefined): Promise<SyntheticFund> {
  if (assets?.binding) {
    const fingerprint = assets.fingerprints[spec.fundId] ?? '';
    const fund = await fromAsset(
      assets.binding,
      spec,
      fundAssetPath(spec.fundId),
      (bytes) => new SyntheticFund(decodeFund(bytes, spec, fingerprint)),
    );
    if (fund) return fund;
  }
  return simulateFund(spec);
}

/**
 * Gives a fund its capital snapshots, when it has none yet: from the fund's capital asset, or, when that is
 * missing or unusable (logged as `fund_asset_unusable`, as {@link loadFund} logs the fund's), by simulating
 * the fund again. A fund simulated or already given them is left as it is.
 * @param spec the fund's spec
 * @param fund the fund, as {@link loadFund} gave it
 * @param assets the assets and their fingerprints, if any (without them the snapshots are simulated)
 * @throws {Error} only from simulating, as {@link loadFund}
 */
export async function loadCapital(spec: SyntheticFundSpec, fund: SyntheticFund, assets: FundAssets | undefined): Promise<void> {
  if (fund.hasCapital) return;
  if (assets?.binding) {
    const fingerprint = assets.fingerprints[spec.fundId] ?? '';
    const capital = await fromAsset(assets.binding, spec, capitalAssetPath(spec.fundId), (bytes) =>
      decodeCapital(bytes, spec, fingerprint, fund.calendar),
    );
    if (capital) return fund.addCapital(capital);
  }
  fund.addCapital(simulateParts(spec).capital!);
}

/**
 * One of a fund's assets, decoded; null (and the deployment fault logged, with the asset's path when it is
 * not the fund's main one) when it is missing or `decode` refuses it.
 */
async function fromAsset<T>(binding: Fetcher, spec: SyntheticFundSpec, path: string, decode: (bytes: ArrayBuffer) => T): Promise<T | null> {
  let reason: string;
  try {
    const res = await fetchAsset(binding, path);
    if (res.ok) return decode(await res.arrayBuffer());
    reason = `status ${res.status}`;
  } catch (err) {
    reason = err instanceof FundAssetError ? err.reason : err instanceof Error ? err.name : 'unknown';
  }
  logFault('fund_asset_unusable', { fundId: spec.fundId, ...(path === fundAssetPath(spec.fundId) ? {} : { asset: path }), reason });
  return null;
}

/** A simulated fund and the store's views of it, each made on first use. */
interface Prepared {
  spec: SyntheticFundSpec;
  fund: SyntheticFund;
  livePositions: Map<string, PositionRow[]>;
  /** The version of the fund's identity set (a digest of its investors' rows), made on first use. */
  identityVersion?: string;
}

/**
 * A digest of the investors' rows, as the version of an embedded fund's identity set: FNV-1a over their
 * fields in two 32-bit lanes (a cache key within one isolate, not a secret; the fund id and the count make
 * two funds' versions differ whatever their rows).
 */
function identityVersion(p: Prepared): string {
  if (p.identityVersion === undefined) {
    let a = 0x811c9dc5;
    let b = 0x01000193;
    for (const row of p.fund.head.investors) {
      for (const value of Object.values(row)) {
        const text = `${String(value)}\u0000`;
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          a = Math.imul(a ^ c, 0x01000193);
          b = Math.imul(b ^ c, 0x5bd1e995);
        }
      }
    }
    p.identityVersion = `embedded:${p.spec.fundId}:${p.fund.head.investors.length}:${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}`;
  }
  return p.identityVersion;
}

/** The live positions of the run on `date`, made once per fund and date. */
function livePositions(p: Prepared, date: string): PositionRow[] {
  let rows = p.livePositions.get(date);
  if (!rows) {
    rows = p.fund.positionsOn(date).filter((row) => row.book === 'live');
    p.livePositions.set(date, rows);
  }
  return rows;
}

/**
 * One run's live positions summed per asset class and sign, as the SQL store's `GROUP BY` gives them: exact,
 * in cents (every synthetic amount is a safe integer of cents, and so is every sum of them).
 */
function positionSums(rows: readonly PositionRow[]): PositionSumRow[] {
  const sums = new Map<string, { navDate: string; assetClass: PositionRow['assetClass']; cents: number }>();
  for (const { navDate, assetClass, marketValue } of rows) {
    const cents = centsOf(marketValue)!;
    const key = `${assetClass}\u0000${cents < 0}`;
    const sum = sums.get(key);
    if (sum) sum.cents += cents;
    else sums.set(key, { navDate, assetClass, cents });
  }
  return [...sums.values()].map(({ navDate, assetClass, cents }) => ({ navDate, assetClass, marketValue: moneyOfCents(cents) }));
}

/** Calendar days a price read looks back first, per close asked for: a weekday calendar needs 7/5; a third more for holidays. */
const DAYS_PER_CLOSE = 1.5;

/**
 * The store's `prices` read ({@link FundReadRequest.prices}): the held risky assets' closes on the last
 * `closes` dates on which all of them have one. It looks back {@link DAYS_PER_CLOSE} calendar days per close
 * first and reads the whole history only when that span holds too few complete dates.
 */
function riskyCloses(p: Prepared, { heldAt, through, closes }: NonNullable<FundReadRequest['prices']>) {
  const assets = new Set(livePositions(p, heldAt).flatMap((row) => (CASH_CLASSES.has(row.assetClass) ? [] : [row.asset])));
  const select = (from: string) => completeCloses(new Map([...assets].map((a) => [a, p.fund.pricesOf(a, from, through)])), closes);
  const recent = select(addDays(through, -Math.ceil(closes * DAYS_PER_CLOSE) - 10));
  return recent.length >= closes * assets.size ? recent : select('0000-01-01');
}

/**
 * The store's `varMoments` read ({@link FundReadRequest.varMoments}): the moments the analytics make from the
 * held risky assets' closes on the last `returns + 1` dates all of them have one (`varMoments` of
 * lib/fund/analytics/var.ts), made from their series as the database store makes them when it has no stored
 * moments (`varMomentsOfSeries`): a synthetic fund prices every asset on every day, so those dates are the
 * last `returns + 1` days through `through`, and each close is read as a number without a price row or text
 * made (at the demo fund an isolate's first VaR request made and read back about 7,700 of each: 20 assets ×
 * 387 days; first request in workerd 20.8 → 13.7 ms, A/B in turn). The same bits as `varMoments` over the
 * price rows (test/fund/embedded-var.test.ts).
 */
function varMomentsOf(p: Prepared, { heldAt, through, returns, method }: NonNullable<FundReadRequest['varMoments']>) {
  const exposure = exposureByAsset(livePositions(p, heldAt));
  const series = [...exposure].map(([asset, e]) => ({ asset, exposure: e, closes: p.fund.closesOf(asset, through, returns + 1) }));
  return varMomentsOfSeries(series, returns, method);
}

/** The synthetic funds of an isolate: each decoded fund kept once loaded, and a store per request over them. */
export interface EmbeddedFunds {
  /**
   * A store for one request: its reads share one load of each fund (a promise of this request only), and it
   * awaits no other request's load (see the module comment).
   * @param assets where the funds' build-time assets are (the Worker's `ASSETS` binding) and their
   *   fingerprints; without them the funds are simulated
   */
  forRequest(assets?: FundAssets): FundStore;
}

/**
 * The funds of `specs`, loaded lazily by id ({@link loadFund}) and kept once loaded; a failed load is not
 * kept. The isolate makes one per store and serves every request from views of it ({@link EmbeddedFunds.forRequest}).
 */
export function embeddedFunds(specs: readonly SyntheticFundSpec[]): EmbeddedFunds {
  const prepared = new Map<string, Prepared>();
  /** `performance.now()` when a request began loading a fund: plain data, expiring after {@link LOAD_CLAIM_MS}. */
  const claimedAt = new Map<string, number>();
  const keep = (spec: SyntheticFundSpec, fund: SyntheticFund): Prepared => {
    // Another request may have finished loading meanwhile: keep the first (its made rows are shared).
    if (!prepared.has(spec.fundId)) prepared.set(spec.fundId, { spec, fund, livePositions: new Map() });
    return prepared.get(spec.fundId)!;
  };
  /** One request's load of a fund: another request's result if it lands while that load's claim is fresh, else its own. */
  const loadFor = async (spec: SyntheticFundSpec, assets: FundAssets | undefined): Promise<Prepared> => {
    for (;;) {
      const kept = prepared.get(spec.fundId);
      if (kept) return kept;
      const since = performance.now() - (claimedAt.get(spec.fundId) ?? -Infinity);
      if (since >= LOAD_CLAIM_MS) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(LOAD_POLL_MS, LOAD_CLAIM_MS - since)));
    }
    const claim = performance.now();
    claimedAt.set(spec.fundId, claim);
    try {
      return keep(spec, await loadFund(spec, assets));
    } finally {
      if (claimedAt.get(spec.fundId) === claim) claimedAt.delete(spec.fundId);
    }
  };
  return {
    forRequest(assets) {
      const loading = new Map<string, Promise<Prepared>>();
      const loadingCapital = new Map<string, Promise<void>>();
      const load = (fundId: string): Promise<Prepared | null> | Prepared | null => {
        const kept = prepared.get(fundId);
        if (kept) return kept;
        const spec = specs.find((s) => s.fundId === fundId);
        return spec ? oncePer(loading, fundId, () => loadFor(spec, assets)) : null;
      };
      // A fund's capital snapshots, for this request's reads of capital accounts: one load per request, as
      // the fund's; a fund given them by any request (plain data on the kept fund) loads nothing.
      const capital = (p: Prepared): Promise<void> | void =>
        p.fund.hasCapital ? undefined : oncePer(loadingCapital, p.spec.fundId, () => loadCapital(p.spec, p.fund, assets));
      return storeOver(load, capital);
    },
  };
}

/**
 * The pending promise of `key` in `map` (one request's loads), started by `start` when there is none; a
 * failed one is forgotten, so that a later read of the same request starts again.
 */
function oncePer<T>(map: Map<string, Promise<T>>, key: string, start: () => Promise<T>): Promise<T> {
  let pending = map.get(key);
  if (!pending) {
    pending = start();
    map.set(key, pending);
    pending.catch(() => map.delete(key));
  }
  return pending;
}

/**
 * A store over synthetic funds whose reads all share one load of each fund: one request's view of
 * {@link embeddedFunds}, for tests and scripts that read the funds outside the Worker.
 * @param specs the funds it holds, loaded lazily by id ({@link loadFund}) and kept once loaded
 * @param assets where the funds' build-time assets are (the Worker's `ASSETS` binding) and their fingerprints;
 *   without them the funds are simulated
 */
export function embeddedStore(specs: readonly SyntheticFundSpec[], assets?: FundAssets): FundStore {
  return embeddedFunds(specs).forRequest(assets);
}

/**
 * The store's reads over `load`, which gives a fund's prepared data (null: no such fund), and `capital`,
 * which gives a prepared fund its capital snapshots before a read of them.
 */
function storeOver(
  load: (fundId: string) => Promise<Prepared | null> | Prepared | null,
  capital: (p: Prepared) => Promise<void> | void,
): FundStore {
  return {
    async index(fundId): Promise<FundIndex | null> {
      const p = await load(fundId);
      if (!p) return null;
      const { fund, shareClasses, runs } = p.fund.head;
      const from = indexRunsFrom(runs);
      return {
        fund: { ...fund },
        shareClasses: shareClasses.map((c) => ({ ...c })),
        runs: from === null ? runs.slice() : runsFrom(runs, from),
        runsFrom: from,
        firstRunDate: runs[0]?.navDate ?? null,
      };
    },

    async read(fundId, request: FundReadRequest): Promise<FundReadResult> {
      const out = emptyRead();
      const p = await load(fundId);
      if (!p) return out;
      const head = p.fund.head;
      if (request.runs) out.runs = runsFrom(head.runs, request.runs.from);
      if (request.positions) {
        for (const date of request.positions.navDates) out.positions.push(...livePositions(p, date));
      }
      if (request.positionSums) {
        for (const date of request.positionSums.navDates) out.positionSums.push(...positionSums(livePositions(p, date)));
      }
      if (request.prices) out.prices = riskyCloses(p, request.prices);
      if (request.varMoments) out.varMoments = varMomentsOf(p, request.varMoments);
      if (request.ledger || request.balances) out.accounts = head.accounts.slice();
      if (request.ledger) out.ledger = p.fund.ledgerSumsBetween(request.ledger.after, request.ledger.through);
      if (request.balances) out.balances = p.fund.balancesThrough(request.balances.through);
      if (request.capital) {
        await capital(p);
        out.investorClasses = head.investors.map(({ investorId, shareClassId }) => ({ investorId, shareClassId }));
        for (const date of request.capital.navDates) out.capital.push(...p.fund.capitalOn(date));
      }
      if (request.expenses) {
        out.expenses = head.expenses
          .slice()
          .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1))
          .slice(0, request.expenses.limit);
      }
      return out;
    },

    async identities(fundId, known = []) {
      const p = await load(fundId);
      const version = p ? identityVersion(p) : 'embedded:none';
      if (known.includes(version)) return { version, investors: null };
      return { version, investors: p?.fund.head.investors.slice() ?? [], compiled: p?.fund.compiledIdentitySet ?? null };
    },
  };
}

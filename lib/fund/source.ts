/**
 * Which store and fund a principal reads (docs/api.md#keys-and-scopes): the demo key reads the bundled synthetic fund from
 * its own embedded store, on a path that never touches the database or the real fund store; a real key
 * reads the fund this deployment serves (`FUND_ID`) from the real fund store: Postgres when `DATABASE_URL`
 * is set (SQL over HTTP, one round trip per statement), else the embedded local sample fund.
 */
import type { Context } from 'hono';
import { FundDataNotConfiguredError, InsufficientScopeError } from '../errors.ts';
import type { AppEnv } from '../env.ts';
import { DEFAULT_FUND_ID as CONFIG_DEFAULT_FUND_ID, type Config } from '../config.ts';
import type { Principal } from '../keys.ts';
import { embeddedFunds, type EmbeddedFunds, type FundAssets } from './embedded-store.ts';
import { guardedStore, type FundStore } from './store.ts';
import { DEMO_FUND, SAMPLE_FUND } from './synthetic.ts';

/** The fund a deployment serves when `FUND_ID` is not set: the embedded local sample fund. */
export const DEFAULT_FUND_ID: string = CONFIG_DEFAULT_FUND_ID;
if (DEFAULT_FUND_ID !== SAMPLE_FUND.fundId) throw new Error('lib/config.ts DEFAULT_FUND_ID must name the embedded sample fund.');

/** A store and the fund id to read from it, for one request. */
export interface FundSource {
  store: FundStore;
  fundId: string;
  /**
   * Which embedded store this is, for memoized answers (lib/fund/memo.ts; never shared between scopes).
   * None for the database: rows there can be corrected without a new NAV run, and a fault must answer 503.
   */
  scope?: 'demo' | 'embedded';
  /** Closes what the source opened for this request (its database connection); nothing for embedded data. */
  release(): Promise<void>;
}

/**
 * The isolate's embedded funds (the demo key's and the deployment's, never mixed): plain values, decoded
 * once and shared by every request; each request reads them through a view of its own (one load per
 * request at most, none awaited across requests; lib/fund/embedded-store.ts).
 */
const demoFunds: EmbeddedFunds = embeddedFunds([DEMO_FUND]);
const sampleFunds: EmbeddedFunds = embeddedFunds([SAMPLE_FUND]);
const nothingToRelease = async () => {};

/**
 * The source of a principal's fund data, for one request (call it once per request: an MCP batch's tool
 * calls share it). With `DATABASE_URL`, a real key's source holds a fresh (lazy) database connection:
 * release it with {@link releaseAfterResponse}; an embedded source is a view of the isolate's kept funds.
 *
 * Fails closed without `INVESTOR_REF_KEY` when `DATABASE_URL` is set: investor pseudonyms of real data
 * must be keyed by the deployment's secret, never by the public default the embedded data uses (anyone who
 * knows an internal investor id could recompute its `investorRef`). The demo key and the embedded sample
 * fund need no secret.
 * @throws {InsufficientScopeError} 403 for a `calc` key, or a key scoped to a fund other than the deployment's
 * @param assets the Worker's `ASSETS` binding and the build's fingerprints: the embedded stores read their
 *   funds' build-time assets through it (lib/fund/embedded-store.ts; kept by the store the isolate's first
 *   request makes)
 * @throws {FundDataNotConfiguredError} 500 for a real key when `DATABASE_URL` is set without `INVESTOR_REF_KEY`
 */
export function fundSource(
  principal: Principal,
  config: Pick<Config, 'fundId' | 'databaseUrl' | 'databaseWsProxy' | 'investorRefKey'>,
  assets?: FundAssets,
): FundSource {
  if (principal.kind === 'demo') {
    return { store: guardedStore(demoFunds.forRequest(assets)), fundId: DEMO_FUND.fundId, scope: 'demo', release: nothingToRelease };
  }
  const fundId = config.fundId;
  if (principal.record.scope !== 'fund') {
    throw new InsufficientScopeError('This key is scoped to the calculators; fund data needs a fund key.');
  }
  if (principal.record.fundId !== fundId) throw new InsufficientScopeError('This key is scoped to another fund.');
  if (config.databaseUrl) {
    if (!config.investorRefKey) throw new FundDataNotConfiguredError();
    return postgresSource(fundId, config.databaseUrl, config.databaseWsProxy);
  }
  return { store: guardedStore(sampleFunds.forRequest(assets)), fundId, scope: 'embedded', release: nothingToRelease };
}

/**
 * The database source of one request: its statements go over SQL-over-HTTP (lib/db/http.ts), one round
 * trip each, with no connection to open or close and none of the WebSocket driver's code: on a fresh
 * isolate's first request that driver cost most of the request's CPU (docs/configuration.md#statements-and-round-trips-per-request-hyperdrive).
 * The client and the SQL store are imported on first use, so an isolate serving only the embedded fund
 * (the demo key, or no `DATABASE_URL`) never evaluates them.
 */
function postgresSource(fundId: string, url: string, wsProxy: string | undefined): FundSource {
  const opened = Promise.all([import('../db/http.ts'), import('./postgres-store.ts')]).then(([http, sql]) => {
    const db = http.openHttpDatabase({ url, endpoint: http.neonHttpEndpoint(url, wsProxy) });
    return { db, store: sql.postgresStore(db) };
  });
  const store: FundStore = {
    index: async (id) => (await opened).store.index(id),
    read: async (id, request, against) => (await opened).store.read(id, request, against),
    identities: async (id, known) => (await opened).store.identities(id, known),
    verify: async (id, index) => (await opened).store.verify?.(id, index),
  };
  return { store: guardedStore(store), fundId, release: async () => (await opened).db.release() };
}

/**
 * Releases a source once the response is on its way: through the Worker's `waitUntil`, so closing the
 * connection does not hold the response up; where there is no execution context (tests calling the app
 * directly), at once.
 */
export function releaseAfterResponse(c: Context<AppEnv>, source: FundSource, after: Promise<unknown> = Promise.resolve()): void {
  const done = after.then(source.release, source.release);
  try {
    c.executionCtx.waitUntil(done);
  } catch {
    // No ExecutionContext outside the Worker runtime: `done` runs on its own.
  }
}

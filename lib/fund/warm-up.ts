/**
 * The fund tools run at an isolate's startup (lib/worker.ts), {@link TOOL_ROUNDS} times, on a small synthetic
 * fund simulated for the purpose, so that the code every fund request runs (reading, guarding rows, the
 * analytics, the allow-list writer, the identity scan, pseudonyms) is compiled and has run before the first
 * request.
 *
 * V8 compiles a function on its first call and runs it in its interpreter until it has run enough: an
 * isolate's first fund request paid for that inside its own CPU time, which Cloudflare's free plan limits to
 * 10 ms (docs/performance.md#which-plan-fits). Startup is counted against another limit (1 s), and the
 * isolate starts while the client's TLS handshake is still running. In workerd, A/B in turn: the embedded
 * fund's capital accounts 13.7 → 9.9–10.3 ms, VaR 18.9 → 13.5–14.9, P&L attribution 12.0 → 8.5–9.3,
 * overview 11.3 → 8.2–8.5; through PostgreSQL at a 500-position fund, capital accounts 25.1 → 21.2 and the
 * 3,660-day NAV history 26.7 → 22.6; startup about 23 ms more (36 → 59 ms).
 *
 * What grows with a large fund's answer is made to run at V8's top tier (TurboFan) in the first request, on
 * the objects a request gives it (seen with `--trace-opt --trace-deopt` in workerd):
 * - The identity set is loaded from the stored form ({@link withStoredSet}), as a database's or a built fund
 *   asset's set is, not compiled: a loaded set's objects have other hidden classes than a compiled one's, and
 *   code optimized on a compiled set was thrown away at a request's first scan ("wrong map"). The loader,
 *   which a first request runs on its fund's whole set, runs {@link LOAD_ROUNDS} times.
 * - The scan runs {@link SCAN_ROUNDS} times more ({@link warmUpScan}): the tools' own scans left it at the
 *   middle tier (Maglev), at which a request's scan of a 270 KB answer ran about three times slower than a
 *   warm isolate's. It runs before the tools, not after: V8 compiles for its top tier on a background
 *   thread, and a compilation queued at the end of startup was done inside the first request (the embedded
 *   overview's took 23–26 ms against 18); the tools' run gives it the time to finish at startup.
 * A/B of 11 in turn, on a machine about twice as slow as the one of the figures above: through PostgreSQL
 * at a 500-position fund, the 3,660-day NAV history's first request 57.4 → 44.0 ms (over MCP 69.1 → 58.5),
 * capital accounts 51.9 → 46.4 (MCP 65.3 → 54.7), the overview's the same (25.7 → 26.1); the embedded fund's
 * small answers 1–2.5 ms higher, within their runs' spread (overview 21.7 → 24.3); startup 192 → 197 ms.
 *
 * Nothing a request reads is kept from it: the fund is the warm-up's own (its store is dropped with it), no
 * answer is memoized (the source has no scope), and the identity set it loads is one more entry of the
 * isolate's bounded set cache, which requests' sets push out. It does no I/O and sets no timer (the fund is
 * simulated, not read from the Worker's assets), so it settles within the startup's own microtasks; a
 * failure is ignored: every request does its own work regardless.
 */
import { callFundTool, type FundToolDefinition } from './definition.ts';
import { embeddedStore } from './embedded-store.ts';
import type { SyntheticFundSpec } from './synthetic/spec.ts';
import type { FundStore } from './store.ts';
import { fundIdentities, storedIdentitySet } from './identities.ts';
import { loadIdentitySet } from '../identity-set-form.ts';
import { findIdentitiesInScannable, maskIdentities, scannableText, type IdentitySet } from '../identity-match.ts';

/**
 * Rounds of {@link warmUpScan}: V8 optimizes a function for its top tier only after many calls, and one call,
 * however long, does not get it there; twenty rounds over the warm-up fund's index (about 9 KB of JSON) do.
 */
const SCAN_ROUNDS = 20;

/**
 * Times the warm-up loads its identity set from the stored form before the tools run: an isolate's first
 * request loads its fund's set (for 500 investors, a trie of thousands of nodes): with the set loaded once
 * at startup, the 3,660-day NAV history's first request at a 500-position fund took 54.7 ms, loaded twelve
 * times 46.1 (A/B of 9, on the machine of the figures below).
 */
export const LOAD_ROUNDS = 12;

/**
 * Times every tool runs on the warm-up fund: once compiles each tool's code, but the loops a large fund's
 * answer runs thousands of times (the row guard, the money parser, the analytics, the allow-list writer)
 * were then still in V8's lower tiers and climbed them inside the first request. Nine runs took 4–8 ms off
 * the heaviest first requests at a 500-position fund through PostgreSQL (P&L attribution 43.2 → 35.3 ms, A/B
 * of 31) for about a sixth more startup; four, about half that (CHANGELOG.md, "Tenth pass").
 */
export const TOOL_ROUNDS = 9;

/**
 * `store` handing over `compiled` as its fund's identity set in stored form (lib/identity-set-form.ts), as
 * the database store and a built fund asset hand theirs, so that the warm-up's redaction loads the set
 * instead of compiling it, and runs on the same kind of objects as a request's.
 * @param compiled the stored form of the set of exactly the store's investors ({@link storedIdentitySet})
 */
export function withStoredSet(store: FundStore, compiled: string): FundStore {
  return { ...store, identities: async (fundId, known) => ({ ...(await store.identities(fundId, known)), compiled }) };
}

/**
 * The warm-up's fund: nearly the smallest the simulation makes (60 daily runs, the fewest it allows; 80 days
 * of prices, which ran a first request's loops far enough to save it about 1 ms more than 60 days), ending on
 * the demo fund's last day so that the tools' examples (a P&L attribution date) fall within its runs. Four
 * investors at inception make its NAV (USD 13.4 million) a real fund's size in V8's terms: beyond 2³⁰ cents,
 * the largest small integer, an amount is held as a double, and the money parser's code (`centsOf`)
 * optimized on smaller ones was thrown away ("overflow") at every larger fund's first request. (Three
 * investors, USD 9.2 million: A/B of 9, the embedded overview's first request 20.7 → 18.2 ms with four, the
 * rest within the runs' spread.)
 */
export const WARM_UP_FUND: SyntheticFundSpec = {
  seed: 1,
  fundId: 'startup-warm-up',
  name: 'Startup warm-up fund (synthetic, never served)',
  endDate: '2026-10-31',
  runDays: 60,
  priceDays: 80,
  initialInvestors: 4,
  aumTargetUsd: 1_000_000,
};

/**
 * Runs each tool {@link TOOL_ROUNDS} times on {@link WARM_UP_FUND}, as a REST request with the tool's example
 * query would (its arguments parsed, the read, the analytic, the redaction), with the fund's identity set
 * loaded from its stored form ({@link LOAD_ROUNDS} times before) and the scan warmed ({@link warmUpScan}).
 * @returns each tool's outcome, answered when it answered in every round (for tests), never rejected
 */
export async function warmUpFundTools(tools: readonly FundToolDefinition[]): Promise<{ tool: string; answered: boolean }[]> {
  const fundId = WARM_UP_FUND.fundId;
  const simulated = embeddedStore([WARM_UP_FUND]);
  const compiled = await storedIdentitySet((await simulated.identities(fundId)).investors ?? []);
  for (let round = 0; round < LOAD_ROUNDS; round++) await loadIdentitySet(compiled);
  const store = withStoredSet(simulated, compiled);
  // Loaded once more and kept, before the tools run: each would otherwise load its own.
  const { set } = await fundIdentities(store, fundId);
  warmUpScan(set, scannableText(JSON.stringify(await simulated.index(fundId))));
  const answered = tools.map(() => true);
  for (let round = 0; round < TOOL_ROUNDS; round++) {
    await Promise.all(
      tools.map((def, i) =>
        callFundTool(def, { store, fundId }, {}, def.example, 'query').catch(() => {
          answered[i] = false;
        }),
      ),
    );
  }
  return tools.map((def, i) => ({ tool: def.tool, answered: answered[i]! }));
}

/**
 * The identity scan {@link SCAN_ROUNDS} times over `text`, both as an answer's redaction finds values and as
 * free text's masking replaces them: optimized for one of its two callers only, the scan's code was thrown
 * away at the other's first call ("wrong feedback cell").
 * @param text JSON text as {@link scannableText} leaves it
 */
function warmUpScan(set: IdentitySet, text: string): void {
  for (let round = 0; round < SCAN_ROUNDS; round++) {
    findIdentitiesInScannable(text, set);
    maskIdentities(text, set);
  }
}

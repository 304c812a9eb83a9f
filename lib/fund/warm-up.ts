/**
 * The fund tools run once at an isolate's startup (lib/worker.ts), on a small synthetic fund simulated for
 * the purpose, so that the code every fund request runs (reading, guarding rows, the analytics, the
 * allow-list writer, the identity scan, pseudonyms) is compiled and has run before the first request.
 *
 * V8 compiles a function on its first call and runs it in its interpreter until it has run enough: an
 * isolate's first fund request paid for that inside its own CPU time, which Cloudflare's free plan limits to
 * 10 ms (docs/performance.md#which-plan-fits). Startup is counted against another limit (1 s), and the
 * isolate starts while the client's TLS handshake is still running. In workerd, A/B in turn: the embedded
 * fund's capital accounts 13.7 → 9.9–10.3 ms, VaR 18.9 → 13.5–14.9, P&L attribution 12.0 → 8.5–9.3,
 * overview 11.3 → 8.2–8.5; through PostgreSQL at a 500-position fund, capital accounts 25.1 → 21.2 and the
 * 3,660-day NAV history 26.7 → 22.6; startup about 23 ms more (36 → 59 ms).
 *
 * Nothing a request reads is kept from it: the fund is the warm-up's own (its store is dropped with it), no
 * answer is memoized (the source has no scope), and the identity set it compiles is one more entry of the
 * isolate's bounded set cache, which requests' sets push out. It does no I/O and sets no timer (the fund is
 * simulated, not read from the Worker's assets), so it settles within the startup's own microtasks; a
 * failure is ignored: every request does its own work regardless.
 */
import { callFundTool, type FundToolDefinition } from './definition.ts';
import { embeddedStore } from './embedded-store.ts';
import type { SyntheticFundSpec } from './synthetic/spec.ts';

/**
 * The warm-up's fund: nearly the smallest the simulation makes (60 daily runs, the fewest it allows; 80 days
 * of prices and three investors at inception, which ran a first request's loops far enough to save it about
 * 1 ms more than 60 days and one investor, for 4 ms of startup), ending on the demo fund's last day so that
 * the tools' examples (a P&L attribution date) fall within its runs.
 */
export const WARM_UP_FUND: SyntheticFundSpec = {
  seed: 1,
  fundId: 'startup-warm-up',
  name: 'Startup warm-up fund (synthetic, never served)',
  endDate: '2026-10-31',
  runDays: 60,
  priceDays: 80,
  initialInvestors: 3,
  aumTargetUsd: 1_000_000,
};

/**
 * Runs each tool once on {@link WARM_UP_FUND}, as a REST request with the tool's example query would (its
 * arguments parsed, the read, the analytic, the redaction).
 * @returns each tool's outcome (for tests: every one answers), never rejected
 */
export async function warmUpFundTools(tools: readonly FundToolDefinition[]): Promise<{ tool: string; answered: boolean }[]> {
  const store = embeddedStore([WARM_UP_FUND]);
  return Promise.all(
    tools.map((def) =>
      callFundTool(def, { store, fundId: WARM_UP_FUND.fundId }, {}, def.example, 'query').then(
        () => ({ tool: def.tool, answered: true }),
        () => ({ tool: def.tool, answered: false }),
      ),
    ),
  );
}

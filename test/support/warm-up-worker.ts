/**
 * A test-only Worker entry (never part of the shipped bundle: wrangler.toml's `main` is lib/worker.ts) for
 * test/e2e/startup-warm-up.test.ts: it starts the fund tools' warm-up (lib/fund/warm-up.ts) in its global
 * scope, as lib/worker.ts does, and `GET /` answers `{ settled, outcomes }`: whether the warm-up had settled
 * when the first request arrived (workerd allows no I/O and runs no timer at startup: a warm-up that needed
 * either would still be pending), and each tool's outcome.
 */
import { warmUpFundTools } from '../../lib/fund/warm-up.ts';
import { FUND_TOOLS } from '../../lib/registry.ts';

/**
 * The Worker's Durable Object class, which wrangler.toml binds: from its own module, not the real entry, whose
 * evaluation would run the Worker's startup warm-ups here too.
 */
export { AtomicRecord } from '../../lib/atomic.ts';

let outcomes: Awaited<ReturnType<typeof warmUpFundTools>> | null = null;
void warmUpFundTools(FUND_TOOLS).then((o) => {
  outcomes = o;
});

export default {
  fetch(): Response {
    return Response.json({ settled: outcomes !== null, outcomes });
  },
};

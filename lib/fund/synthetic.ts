/**
 * The synthetic fund: a deterministic multi-venue digital-asset fund generated from a seed, with the raw
 * data a shadow-NAV service holds (NAV runs with reconciliation, position snapshots on a live and a paper
 * book, market prices, a double-entry general ledger, investors with PII, capital accounts, expenses and
 * fee terms). The published demo key reads {@link DEMO_FUND}; {@link SAMPLE_FUND}, from another seed, is the
 * embedded store's local sample fund that locally minted keys read.
 *
 * Consistency holds by construction, in integer arithmetic (money in cents, quantities and prices in units
 * of 1e-8), so it is exact:
 * - NAV = Σ live market values (positions, stablecoins and cash) − liabilities (fees and expenses payable),
 *   checked every day; the investors' capital sums to that NAV.
 * - Every journal entry balances; cash, investment and payable accounts equal the snapshot they describe.
 * - Trade lines carry the position (asset, venue), so P&L per position = ΔMV − net purchases, exactly.
 * - Each investor's fees follow their share class: management fee ACT/365 on opening capital, performance
 *   fee accrued daily over the high-water mark (and hurdle), crystallized at period end or on redemption.
 *
 * Determinism across engines: only + − × ÷, Math.round/floor/sqrt and integer PRNG operations are used (all
 * exactly specified by IEEE 754 and ECMAScript); no Math.exp/log/sin, whose results may differ by engine.
 *
 * The steps live in `lib/fund/synthetic/`: `spec` (parameters and dataset shape), `random` (the seeded
 * source), `arithmetic` (exact integer money), `market` (assets and positions), `accounts` (chart of
 * accounts, share classes), `names` (investor name pools), `prices` (the market price paths), `simulate`
 * (the day-by-day simulation), `lazy` (the rows made on demand) and `codec` (the simulation's results as the
 * build-time asset the Worker reads instead of simulating). This module composes them; import from here.
 */
export { ACCOUNT, ACCOUNTS } from './synthetic/accounts.ts';
export { prorate, scaledProduct } from './synthetic/arithmetic.ts';
export { SyntheticFund } from './synthetic/lazy.ts';
export { generateFund, RECON_TOLERANCE_BPS, simulateFund } from './synthetic/simulate.ts';
export { DEMO_FUND, type FundDataset, type LedgerLineRecord, SAMPLE_FUND, type SyntheticFundSpec } from './synthetic/spec.ts';

/**
 * Deterministic inputs of the CPU benchmarks (bench/cpu.ts): typical request bodies of the seven
 * calculators, and the large synthetic inputs of docs/performance.md — a positions CSV of up to 10,000 rows, a fee
 * projection of up to 50 years, VaR over n assets × 1,000 days of prices, and capital accounts of n
 * investors — generated from a fixed seed (mulberry32), in the row shapes of lib/fund/rows.ts. Nothing here
 * reads the clock or Math.random, so every run measures the same inputs.
 */
import { CALCULATORS } from '../lib/registry.ts';
import type { CapitalRow, InvestorRow, NavRunRow, PositionRow, PriceRow } from '../lib/fund/rows.ts';
import type { VarOptions } from '../lib/fund/analytics/var.ts';

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `date` shifted by `days` calendar days (UTC), `YYYY-MM-DD`. */
export function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const cents = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

// ---------------------------------------------------------------------------------------------------------
// Calculators

const VENUES = ['Binance', 'Coinbase Prime', 'Kraken', 'OKX', 'Deribit', 'Fireblocks', 'Anchorage', 'Aave'];
const CLASSES = ['crypto', 'perpetual', 'stablecoin', 'fiat'];

/**
 * A positions CSV (`Asset,Value,Venue,Class`) of `rows` data rows over up to 700 assets, with shorts.
 * @param seed PRNG seed
 */
export function positionsCsv(rows: number, seed = 6): string {
  const rnd = prng(seed);
  const lines = ['Asset,Value,Venue,Class'];
  for (let i = 0; i < rows; i++) {
    const cls = CLASSES[i % 4]!;
    const sign = cls === 'perpetual' && rnd() < 0.6 ? -1 : 1;
    const value = sign * (1_000 + rnd() * 2_500_000);
    lines.push(`A${i % 700},${value.toFixed(2)},${VENUES[i % VENUES.length]},${cls}`);
  }
  return lines.join('\n');
}

/** An LP rows CSV of `n` investors whose columns tie (closing = opening + flows + P&L − fees − expenses), and the fund totals. */
export function lpRows(n: number, seed = 7) {
  const rnd = prng(seed);
  const header = 'lpId,openingNavUsd,contributionsUsd,withdrawalsUsd,grossPnlUsd,mgmtFeeUsd,perfFeeUsd,otherExpensesUsd,closingNavUsd';
  const totals = { opening: 0, contributions: 0, withdrawals: 0, gross: 0, mgmt: 0, perf: 0, other: 0, closing: 0 };
  const lines = [header];
  for (let i = 0; i < n; i++) {
    const c = (x: number) => Math.round(x * 100); // integer cents, so the sums are exact
    const opening = c(200_000 + rnd() * 2_000_000);
    const contributions = i % 5 === 0 ? c(rnd() * 100_000) : 0;
    const withdrawals = i % 7 === 0 ? c(rnd() * 50_000) : 0;
    const gross = Math.round(opening * 0.03);
    const mgmt = Math.round((opening * 0.02 * 31) / 365);
    const perf = Math.max(0, Math.round((gross - mgmt) * 0.2));
    const other = Math.round(opening * 0.0001);
    const closing = opening + contributions - withdrawals + gross - mgmt - perf - other;
    totals.opening += opening;
    totals.contributions += contributions;
    totals.withdrawals += withdrawals;
    totals.gross += gross;
    totals.mgmt += mgmt;
    totals.perf += perf;
    totals.other += other;
    totals.closing += closing;
    lines.push(
      [`LP${i + 1}`, opening, contributions, withdrawals, gross, mgmt, perf, other, closing]
        .map((v) => (typeof v === 'number' ? (v / 100).toFixed(2) : v))
        .join(','),
    );
  }
  const usd = (v: number) => v / 100;
  return {
    csv: lines.join('\n'),
    totals: {
      openingNavUsd: usd(totals.opening),
      contributionsUsd: usd(totals.contributions),
      withdrawalsUsd: usd(totals.withdrawals),
      grossPnlUsd: usd(totals.gross),
      mgmtFeeUsd: usd(totals.mgmt),
      perfFeeUsd: usd(totals.perf),
      otherExpensesUsd: usd(totals.other),
      reportedClosingNavUsd: usd(totals.closing),
    },
  };
}

/** A quarterly investor letter of about 700 words. */
export function lpReport(): string {
  const paragraphs = [
    'In the third quarter of 2026 the fund returned 4.2% net of fees, against 3.1% for the MSCI World index and 2.4% for the Bitcoin benchmark blend. Since inception the fund has returned 38.5% net, with an annualised volatility of 14.2% and a maximum drawdown of 9.8%.',
    'Performance came mainly from our basis trades on perpetual futures and from the staking of liquid proof-of-stake assets. Directional exposure was kept low: net exposure averaged 18% of NAV and gross exposure 142%. The largest detractor was a short position in a layer-two token that rallied after an exchange listing.',
    'Fees for the quarter were a management fee of 2% per year on opening NAV and a performance fee of 20% above the high-water mark. The fund accrued a performance fee this quarter because the NAV per share closed above the previous high-water mark.',
    'Risk: one-day 95% value at risk was 1.1% of NAV on average and never exceeded 1.9%. Counterparty exposure is spread over five venues and two custodians; no venue held more than 22% of assets. Stablecoin holdings are limited to fully reserved issuers with monthly attestations.',
    'Operations: the administrator struck a NAV every business day, and every daily shadow NAV reconciled within two basis points. The annual audit for 2025 was completed in April with an unqualified opinion. We onboarded a second prime broker to reduce concentration.',
    'Outlook: we expect funding rates to compress as open interest normalises, and we are reducing the basis book accordingly. We will keep net exposure between 10% and 30% of NAV and will report on the new options overlay in the next letter.',
    'Subscriptions and redemptions are dealt monthly at NAV with 30 days notice. Please contact investor relations with any questions about this report or your capital account statement.',
  ];
  return [...paragraphs, ...paragraphs.slice(0, 3)].join('\n\n');
}

/** Each calculator's declared example (a typical request), by slug: the bench's typical calls. */
export function typicalCalculatorArgs(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(CALCULATORS.map((c) => [c.slug, c.example as Record<string, unknown>]));
}

/** Fee calculator body: quarterly crystallization over `years` (50 is the largest the API accepts). */
export function feeArgs(years: number): Record<string, unknown> {
  return { horizonYears: years, crystallization: 'quarterly', hurdlePct: 5, mgmtFeeBasis: 'average' };
}

// ---------------------------------------------------------------------------------------------------------
// Fund analytics

/** The run the large inputs are struck at. */
export const LARGE_RUN: NavRunRow = {
  navDate: '2026-10-31',
  status: 'complete',
  shadowNav: '250000000.00',
  adminNav: '250000125.00',
  reconStatus: 'matched',
  netFlows: '0.00',
};

/**
 * VaR inputs: `assets` risky live positions (a fifth of them perpetual shorts) plus cash, and `days` + 1
 * daily closes of each asset ending at the run (a random walk with 3% daily volatility).
 */
export function varInputs(assets: number, days: number, seed = 11) {
  const rnd = prng(seed);
  const dates = Array.from({ length: days + 1 }, (_, k) => shiftDate(LARGE_RUN.navDate, k - days));
  const positions: PositionRow[] = [];
  const prices: PriceRow[] = [];
  for (let a = 0; a < assets; a++) {
    const asset = `ASSET${String(a).padStart(4, '0')}`;
    let price = 1 + rnd() * 5_000;
    for (const priceDate of dates) {
      price *= 1 + (rnd() - 0.5) * 0.06 * Math.sqrt(3);
      prices.push({ asset, priceDate, price: price.toFixed(8) });
    }
    const short = a % 5 === 4;
    const quantity = ((short ? -1 : 1) * (1_000_000 + rnd() * 4_000_000)) / price;
    positions.push({
      navDate: LARGE_RUN.navDate,
      asset,
      assetClass: short ? 'perpetual' : 'crypto',
      sourceType: short ? 'exchange' : 'custodian',
      venue: VENUES[a % VENUES.length]!,
      book: 'live',
      quantity: quantity.toFixed(8),
      price: price.toFixed(8),
      marketValue: cents(quantity * price),
    });
  }
  positions.push(
    {
      navDate: LARGE_RUN.navDate,
      asset: 'USD',
      assetClass: 'fiat',
      sourceType: 'bank',
      venue: 'Bank',
      book: 'live',
      quantity: '5000000.00',
      price: '1',
      marketValue: '5000000.00',
    },
    {
      navDate: LARGE_RUN.navDate,
      asset: 'USDC',
      assetClass: 'stablecoin',
      sourceType: 'custodian',
      venue: 'Anchorage',
      book: 'live',
      quantity: '3000000',
      price: '1',
      marketValue: '3000000.00',
    },
  );
  const options: VarOptions = { confidence: 0.95, horizonDays: 1, method: 'ewma', windowDays: days };
  return { run: LARGE_RUN, positions, prices, options, currency: 'USD' };
}

/**
 * Capital accounts inputs: `n` investors in two share classes, cumulative capital rows at the opening run
 * (a month earlier) and at the run; one investor in twenty joined during the month (no opening row).
 */
export function capitalInputs(n: number, seed = 13) {
  const rnd = prng(seed);
  const openingDate = '2026-09-30';
  const investors: InvestorRow[] = [];
  const rows: CapitalRow[] = [];
  const refs = new Map<string, string>();
  const hex = () =>
    Math.floor(rnd() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  for (let i = 0; i < n; i++) {
    const investorId = `INV${String(i + 1).padStart(6, '0')}`;
    investors.push({
      investorId,
      shareClassId: i % 3 === 0 ? 'B' : 'A',
      legalName: `Investor ${i + 1} Holdings LLC`,
      email: `ir${i + 1}@investor${i % 97}.example`,
      taxId: `98-${String(1_000_000 + i).slice(-7)}`,
      bankAccount: `GB${String(10 + (i % 89))}BANK${String(10_000_000 + i)}`,
    });
    refs.set(investorId, `inv_${hex()}${hex()}`);
    const contributed = Math.round(100_000 + rnd() * 5_000_000);
    const figures = (scale: number) => {
      const pnl = contributed * 0.12 * scale;
      const mgmt = contributed * 0.02 * scale;
      const perf = Math.max(0, (pnl - mgmt) * 0.2);
      const withdrawals = i % 11 === 0 ? contributed * 0.05 * scale : 0;
      return { contributions: contributed, withdrawals, pnl, mgmt, perf, capital: contributed - withdrawals + pnl - mgmt - perf };
    };
    const joinedThisMonth = i % 20 === 19;
    for (const [navDate, scale] of joinedThisMonth
      ? ([[LARGE_RUN.navDate, 0.01]] as const)
      : ([
          [openingDate, 1],
          [LARGE_RUN.navDate, 1.01],
        ] as const)) {
      const f = figures(scale);
      rows.push({
        navDate,
        investorId,
        capital: cents(f.capital),
        contributions: cents(f.contributions),
        withdrawals: cents(f.withdrawals),
        pnlAllocation: cents(f.pnl),
        mgmtFee: cents(f.mgmt),
        perfFee: cents(f.perf),
      });
    }
  }
  return { run: LARGE_RUN, openingDate, investors, rows, refs, currency: 'USD' };
}

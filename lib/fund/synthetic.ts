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
 */
import type {
  AccountRow,
  CapitalRow,
  ExpenseRow,
  FundRow,
  InvestorRow,
  LedgerLineRow,
  NavRunRow,
  PositionRow,
  PriceRow,
  ShareClassRow,
} from './rows.ts';
import { addDays } from './analytics/runs.ts';

/** A journal line as the ledger keeps it, with the memo the store never returns (memos can name investors). */
export type LedgerLineRecord = LedgerLineRow & { memo: string };

/** Everything a fund holds, raw: what the embedded store serves and what the database seed loads. */
export interface FundDataset {
  fund: FundRow;
  shareClasses: ShareClassRow[];
  /** One per calendar day from inception, oldest first. */
  runs: NavRunRow[];
  /** Snapshots of every run that struck a NAV (complete or partial), live and paper books. */
  positions: PositionRow[];
  /** Daily prices of every asset, from before inception (market data) to the last run. */
  prices: PriceRow[];
  accounts: AccountRow[];
  ledger: LedgerLineRecord[];
  investors: InvestorRow[];
  /** Cumulative capital accounts of every investor at every complete run. */
  capital: CapitalRow[];
  expenses: ExpenseRow[];
}

/** Parameters of a synthetic fund. */
export interface SyntheticFundSpec {
  seed: number;
  fundId: string;
  name: string;
  /** Date of the last NAV run. */
  endDate: string;
  /** Number of daily NAV runs (≥ 60). */
  runDays: number;
  /** Days of price history, ending at `endDate` (≥ runDays; VaR windows reach back up to 1,000 days). */
  priceDays: number;
  /** Investors subscribing at inception (more join later). */
  initialInvestors: number;
  /** AUM target in USD. */
  aumTargetUsd: number;
}

/** The demo key's fund. */
export const DEMO_FUND: SyntheticFundSpec = {
  seed: 20_240_611,
  fundId: 'demo-fund',
  name: 'Northstar Digital Assets Fund (synthetic demo)',
  endDate: '2026-10-31',
  runDays: 430,
  priceDays: 1_100,
  initialInvestors: 32,
  aumTargetUsd: 250_000_000,
};

/** The embedded store's local sample fund (read by keys minted with `--fund sample-fund`). */
export const SAMPLE_FUND: SyntheticFundSpec = {
  seed: 7_700_417,
  fundId: 'sample-fund',
  name: 'Meridian Multi-Venue Fund (local sample)',
  endDate: '2026-10-31',
  runDays: 420,
  priceDays: 1_100,
  initialInvestors: 30,
  aumTargetUsd: 150_000_000,
};

// ---------------------------------------------------------------------------------------------------------
// Deterministic randomness

/** sfc32 (Small Fast Counting PRNG, Doty-Humphrey), seeded by splitmix32; uniform in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

type Rand = () => number;
const uniform = (r: Rand, lo: number, hi: number) => lo + (hi - lo) * r();
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
/** Standard normal by the Irwin–Hall sum of 12 uniforms (additions only, so engine-independent). */
function normal(r: Rand): number {
  let s = 0;
  for (let i = 0; i < 12; i++) s += r();
  return s - 6;
}

// ---------------------------------------------------------------------------------------------------------
// Exact integer money and formatting

/** Integer division rounding half away from zero (decimal.js ROUND_HALF_UP). */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const q = (a + d / 2n) / d;
  return neg ? -q : q;
}

/** 10^k for k = 0..22, exact doubles. */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/**
 * Cents of quantity × price, rounded half-up: the quantity in lots of 10^-qdp (the asset's smallest unit
 * here), the price in units of 1e-8. cents = lots × priceUnits / 10^(qdp + 6).
 */
function marketValueCents(asset: string, lots: number, pu: number): number {
  return scaledProduct(lots, pu, ASSET.get(asset)!.qdp + 6);
}

/**
 * round(a × b / 10^e), half away from zero, exactly, for integers a, b (safe) and e in 0..22. Powers of ten
 * common to b and the divisor are cancelled first; when the product is then a safe integer the division is
 * done in doubles and corrected by its exact remainder, else in BigInt. Exported for its property test.
 */
export function scaledProduct(a: number, b: number, e: number): number {
  let m = b;
  let k = e;
  while (k > 0 && m % 10 === 0) {
    m /= 10;
    k--;
  }
  const n = a * m;
  const d = POW10[k]!;
  const half = k === 0 ? 0 : d / 2;
  const x = Math.abs(n) + half;
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(x + d)) return Number(divRound(BigInt(a) * BigInt(b), 10n ** BigInt(e)));
  let q = Math.floor(x / d);
  const r = x - q * d;
  if (r < 0) q--;
  else if (r >= d) q++;
  return n < 0 && q !== 0 ? -q : q;
}

/** An integer scaled by 10^dp as a decimal string, e.g. (-12345, 2) → "-123.45". */
function scaled(n: number, dp: number): string {
  const neg = n < 0;
  const digits = String(Math.abs(n)).padStart(dp + 1, '0');
  const text = dp === 0 ? digits : `${digits.slice(0, -dp)}.${digits.slice(-dp)}`;
  return neg ? `-${text}` : text;
}
const money = (c: number) => scaled(c, 2);

/** 2^27 + 1: Veltkamp's splitter for doubles. */
const SPLITTER = 134_217_729;

/**
 * a × b as an unevaluated sum p + e of two doubles, exactly (Dekker's TwoProduct with Veltkamp's split;
 * T. J. Dekker, "A floating-point technique for extending the available precision", 1971). Exact for
 * finite products far from overflow and underflow, such as products of integers below 2^53.
 */
function twoProduct(a: number, b: number): [number, number] {
  const p = a * b;
  let c = SPLITTER * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLITTER * b;
  const bh = c - (c - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}

/** Below this, quotients, remainders and their corrections in {@link prorate} stay exact in doubles. */
const PRORATE_EXACT_BELOW = 2 ** 50;

/**
 * Largest-remainder split of `total` cents by non-negative integer weights; the parts sum to `total` exactly.
 * Each weight's share floor(|total| × w / Σw) and its remainder are exact: |total| × w is held as an exact
 * pair of doubles ({@link twoProduct}), the quotient estimated in doubles (within ±2) and corrected by the
 * exact remainder; past 2^50 it is done in BigInt. Exported for its property test.
 */
export function prorate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (total === 0 || sum <= 0) return weights.map(() => 0);
  const abs = Math.abs(total);
  const parts: number[] = new Array(weights.length);
  const remainders: number[] = new Array(weights.length);
  let left = abs;
  const exact = abs < PRORATE_EXACT_BELOW && sum < PRORATE_EXACT_BELOW && Number.isSafeInteger(sum);
  const bigSum = exact ? 0n : BigInt(sum);
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (exact) {
      const [p, e] = twoProduct(abs, w);
      let q = Math.floor(p / sum);
      const [p2, e2] = twoProduct(q, sum);
      let r = p - p2 + (e - e2);
      while (r < 0) {
        q--;
        r += sum;
      }
      while (r >= sum) {
        q++;
        r -= sum;
      }
      parts[i] = q;
      remainders[i] = r;
    } else {
      const product = BigInt(abs) * BigInt(w);
      const q = product / bigSum;
      parts[i] = Number(q);
      remainders[i] = Number(product - q * bigSum);
    }
    left -= parts[i]!;
  }
  const order = weights.map((_, i) => i).sort((p, q) => remainders[q]! - remainders[p]! || p - q);
  for (let k = 0; left > 0; k++, left--) parts[order[k]!]! += 1;
  return total < 0 ? parts.map((p) => -p) : parts;
}

// ---------------------------------------------------------------------------------------------------------
// The fund's universe

interface AssetSpec {
  asset: string;
  assetClass: 'crypto' | 'perpetual' | 'stablecoin' | 'fiat';
  price: number;
  vol: number;
  beta: number;
  /** Price series it follows (perpetuals follow their underlying). */
  follows?: string;
  /** Decimals of a quantity (lot size 10^-qdp). */
  qdp: number;
}

const MARKET_VOL = 0.02;
const ASSETS: AssetSpec[] = [
  { asset: 'BTC', assetClass: 'crypto', price: 61_250, vol: 0.028, beta: 1.0, qdp: 4 },
  { asset: 'ETH', assetClass: 'crypto', price: 2_950, vol: 0.036, beta: 1.15, qdp: 4 },
  { asset: 'SOL', assetClass: 'crypto', price: 142, vol: 0.05, beta: 1.3, qdp: 2 },
  { asset: 'stETH', assetClass: 'crypto', price: 2_946, vol: 0.036, beta: 1.15, qdp: 4 },
  { asset: 'AVAX', assetClass: 'crypto', price: 27.5, vol: 0.055, beta: 1.3, qdp: 2 },
  { asset: 'LINK', assetClass: 'crypto', price: 13.8, vol: 0.05, beta: 1.2, qdp: 2 },
  { asset: 'UNI', assetClass: 'crypto', price: 7.9, vol: 0.055, beta: 1.2, qdp: 2 },
  { asset: 'AAVE', assetClass: 'crypto', price: 118, vol: 0.055, beta: 1.2, qdp: 2 },
  { asset: 'MKR', assetClass: 'crypto', price: 1_780, vol: 0.05, beta: 1.0, qdp: 4 },
  { asset: 'DOT', assetClass: 'crypto', price: 6.1, vol: 0.05, beta: 1.1, qdp: 2 },
  { asset: 'ATOM', assetClass: 'crypto', price: 7.2, vol: 0.05, beta: 1.1, qdp: 2 },
  { asset: 'NEAR', assetClass: 'crypto', price: 5.2, vol: 0.055, beta: 1.2, qdp: 2 },
  { asset: 'INJ', assetClass: 'crypto', price: 22.4, vol: 0.065, beta: 1.4, qdp: 2 },
  { asset: 'TIA', assetClass: 'crypto', price: 7.1, vol: 0.07, beta: 1.4, qdp: 2 },
  { asset: 'ARB', assetClass: 'crypto', price: 0.91, vol: 0.06, beta: 1.3, qdp: 0 },
  { asset: 'OP', assetClass: 'crypto', price: 1.82, vol: 0.06, beta: 1.3, qdp: 2 },
  { asset: 'LDO', assetClass: 'crypto', price: 1.79, vol: 0.06, beta: 1.3, qdp: 2 },
  { asset: 'BTC-PERP', assetClass: 'perpetual', price: 0, vol: 0, beta: 0, follows: 'BTC', qdp: 4 },
  { asset: 'ETH-PERP', assetClass: 'perpetual', price: 0, vol: 0, beta: 0, follows: 'ETH', qdp: 4 },
  { asset: 'SOL-PERP', assetClass: 'perpetual', price: 0, vol: 0, beta: 0, follows: 'SOL', qdp: 2 },
  { asset: 'USDC', assetClass: 'stablecoin', price: 1, vol: 0, beta: 0, qdp: 2 },
  { asset: 'USDT', assetClass: 'stablecoin', price: 1, vol: 0, beta: 0, qdp: 2 },
  { asset: 'USD', assetClass: 'fiat', price: 1, vol: 0, beta: 0, qdp: 2 },
  // Traded only on the paper book.
  { asset: 'PEPE', assetClass: 'crypto', price: 0.0000094, vol: 0.09, beta: 1.6, qdp: 0 },
  { asset: 'WIF', assetClass: 'crypto', price: 1.95, vol: 0.09, beta: 1.6, qdp: 2 },
  { asset: 'BONK', assetClass: 'crypto', price: 0.0000215, vol: 0.09, beta: 1.6, qdp: 0 },
  { asset: 'JUP', assetClass: 'crypto', price: 0.83, vol: 0.08, beta: 1.5, qdp: 0 },
];
const ASSET = new Map(ASSETS.map((a) => [a.asset, a]));
const isCash = (asset: string) => {
  const c = ASSET.get(asset)!.assetClass;
  return c === 'stablecoin' || c === 'fiat';
};

interface PositionSpec {
  asset: string;
  venue: string;
  sourceType: 'exchange' | 'custodian' | 'onchain_wallet' | 'defi' | 'bank';
  /** Share of the opening NAV (negative: short); cash positions get what the others leave. */
  weight: number;
  book: 'live' | 'paper';
}

const BANK = 'Northwind Bank';
const live = (asset: string, venue: string, sourceType: PositionSpec['sourceType'], weight: number): PositionSpec => ({
  asset,
  venue,
  sourceType,
  weight,
  book: 'live',
});
const POSITIONS: PositionSpec[] = [
  live('BTC', 'Binance', 'exchange', 0.06),
  live('ETH', 'Binance', 'exchange', 0.05),
  live('SOL', 'Binance', 'exchange', 0.04),
  live('USDT', 'Binance', 'exchange', 0.03),
  live('BTC', 'Coinbase Prime', 'exchange', 0.08),
  live('ETH', 'Coinbase Prime', 'exchange', 0.06),
  live('LINK', 'Coinbase Prime', 'exchange', 0.025),
  live('UNI', 'Coinbase Prime', 'exchange', 0.015),
  live('USDC', 'Coinbase Prime', 'exchange', 0.04),
  live('DOT', 'Kraken', 'exchange', 0.015),
  live('ATOM', 'Kraken', 'exchange', 0.015),
  live('USD', 'Kraken', 'exchange', 0.02),
  live('AVAX', 'OKX', 'exchange', 0.02),
  live('NEAR', 'OKX', 'exchange', 0.015),
  live('INJ', 'OKX', 'exchange', 0.015),
  live('USDT', 'OKX', 'exchange', 0.02),
  live('BTC-PERP', 'Deribit', 'exchange', -0.08),
  live('ETH-PERP', 'Deribit', 'exchange', -0.05),
  live('USDC', 'Deribit', 'exchange', 0.06),
  live('SOL-PERP', 'Bybit', 'exchange', -0.03),
  live('USDT', 'Bybit', 'exchange', 0.02),
  live('BTC', 'Anchorage Digital', 'custodian', 0.12),
  live('ETH', 'Anchorage Digital', 'custodian', 0.08),
  live('AAVE', 'BitGo', 'custodian', 0.02),
  live('MKR', 'BitGo', 'custodian', 0.02),
  live('ARB', 'Safe multisig', 'onchain_wallet', 0.015),
  live('OP', 'Safe multisig', 'onchain_wallet', 0.015),
  live('LDO', 'Safe multisig', 'onchain_wallet', 0.01),
  live('USDC', 'Safe multisig', 'onchain_wallet', 0.01),
  live('TIA', 'Ledger cold wallet', 'onchain_wallet', 0.01),
  live('SOL', 'Ledger cold wallet', 'onchain_wallet', 0.02),
  live('stETH', 'Lido', 'defi', 0.05),
  live('USDC', 'Aave v3', 'defi', 0.03),
  live('USD', BANK, 'bank', 0),
  { asset: 'PEPE', venue: 'Hyperliquid', sourceType: 'exchange', weight: 0.003, book: 'paper' },
  { asset: 'WIF', venue: 'Hyperliquid', sourceType: 'exchange', weight: 0.003, book: 'paper' },
  { asset: 'BONK', venue: 'Drift Protocol', sourceType: 'defi', weight: 0.002, book: 'paper' },
  { asset: 'JUP', venue: 'Drift Protocol', sourceType: 'defi', weight: 0.002, book: 'paper' },
];
/** Venues whose cash position pays for trades there: the venue's cash asset. */
const TRADING_CASH = new Map(
  POSITIONS.filter((p) => p.book === 'live' && p.sourceType === 'exchange' && isCash(p.asset)).map((p) => [p.venue, p.asset]),
);
/** Venues whose feed a partial run misses. */
const FLAKY_VENUES = ['Anchorage Digital', 'Safe multisig', 'BitGo'];

/** Chart of accounts. */
/** The chart of accounts' codes by name: the generator's journal entries and {@link ACCOUNTS} use these. */
export const ACCOUNT = {
  cashAtBank: '1000',
  cashAtVenues: '1010',
  digitalAssetsLong: '1100',
  perpetualsShort: '2000',
  mgmtFeesPayable: '2100',
  perfFeesPayable: '2110',
  accruedExpenses: '2200',
  capitalContributions: '3000',
  capitalWithdrawals: '3100',
  netGainOnInvestments: '4000',
  mgmtFeeExpense: '5000',
  perfFeeExpense: '5100',
  administrationFees: '5200',
  custodyFees: '5210',
  auditFees: '5220',
  legalFees: '5230',
  softwareAndData: '5240',
  directorsFees: '5250',
} as const;

export const ACCOUNTS: AccountRow[] = [
  { code: ACCOUNT.cashAtBank, name: 'Cash at bank', type: 'asset', role: 'other' },
  { code: ACCOUNT.cashAtVenues, name: 'Cash and stablecoins at exchanges and wallets', type: 'asset', role: 'other' },
  { code: ACCOUNT.digitalAssetsLong, name: 'Digital assets, long, at fair value', type: 'asset', role: 'other' },
  { code: ACCOUNT.perpetualsShort, name: 'Perpetual futures, short, at fair value', type: 'liability', role: 'other' },
  { code: ACCOUNT.mgmtFeesPayable, name: 'Management fees payable', type: 'liability', role: 'other' },
  { code: ACCOUNT.perfFeesPayable, name: 'Performance fees payable', type: 'liability', role: 'other' },
  { code: ACCOUNT.accruedExpenses, name: 'Accrued expenses', type: 'liability', role: 'other' },
  { code: ACCOUNT.capitalContributions, name: 'Capital contributions', type: 'equity', role: 'capital_contributions' },
  { code: ACCOUNT.capitalWithdrawals, name: 'Capital withdrawals', type: 'equity', role: 'capital_withdrawals' },
  { code: ACCOUNT.netGainOnInvestments, name: 'Net gain (loss) on digital assets and derivatives', type: 'income', role: 'other' },
  { code: ACCOUNT.mgmtFeeExpense, name: 'Management fee expense', type: 'expense', role: 'fee_expense' },
  { code: ACCOUNT.perfFeeExpense, name: 'Performance fee expense', type: 'expense', role: 'fee_expense' },
  { code: ACCOUNT.administrationFees, name: 'Administration fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.custodyFees, name: 'Custody fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.auditFees, name: 'Audit fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.legalFees, name: 'Legal fees', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.softwareAndData, name: 'Software and data', type: 'expense', role: 'operating_expense' },
  { code: ACCOUNT.directorsFees, name: "Directors' fees", type: 'expense', role: 'operating_expense' },
];
const EXPENSE_ACCOUNT: Record<string, string> = {
  administration: ACCOUNT.administrationFees,
  custody: ACCOUNT.custodyFees,
  audit: ACCOUNT.auditFees,
  legal: ACCOUNT.legalFees,
  software_data: ACCOUNT.softwareAndData,
  directors: ACCOUNT.directorsFees,
};

const SHARE_CLASSES: ShareClassRow[] = [
  {
    shareClassId: 'A',
    name: 'Class A',
    mgmtFeePct: '2.0000',
    perfFeePct: '20.0000',
    hurdlePct: null,
    hurdleType: null,
    hasHwm: true,
    crystallization: 'annual',
  },
  {
    shareClassId: 'B',
    name: 'Class B (Founders)',
    mgmtFeePct: '1.0000',
    perfFeePct: '10.0000',
    hurdlePct: '5.0000',
    hurdleType: 'hard',
    hasHwm: true,
    crystallization: 'annual',
  },
  {
    shareClassId: 'I',
    name: 'Class I (Institutional)',
    mgmtFeePct: '1.5000',
    perfFeePct: '15.0000',
    hurdlePct: '4.0000',
    hurdleType: 'soft',
    hasHwm: true,
    crystallization: 'quarterly',
  },
];

const FIRST = [
  'Margaret',
  'Tomas',
  'Priya',
  'Daniel',
  'Aiko',
  'Henrik',
  'Lucia',
  'Samuel',
  'Noor',
  'Felix',
  'Ingrid',
  'Mateo',
  'Chiara',
  'Oluwaseun',
  'Elena',
  'Rafael',
  'Hannah',
  'Kenji',
  'Amara',
  'Victor',
  'Sofia',
  'Julian',
  'Yara',
  'Anders',
];
const LAST = [
  'Okafor',
  'Lindqvist',
  'Raman',
  'Whitcombe',
  'Tanaka',
  'Brandt',
  'Moreau',
  'Achterberg',
  'Haddad',
  'Castellano',
  'Novak',
  'Fitzgerald',
  'Oyelaran',
  'Vasquez',
  'Kowalczyk',
  'Ashworth',
  'Delacroix',
  'Imamura',
  'Petrov',
  'Sandoval',
];
const ENTITY_A = [
  'Alder',
  'Birchwood',
  'Cobalt',
  'Driftstone',
  'Evergreen',
  'Foxhollow',
  'Granite',
  'Harbourview',
  'Ironbark',
  'Juniper',
  'Kestrel',
  'Larkspur',
  'Moorland',
  'Northgate',
  'Oakridge',
  'Pinecrest',
];
const ENTITY_B = ['Capital LP', 'Family Office', 'Foundation', 'Endowment Trust', 'Pension Plan', 'Partners LLC', 'Holdings Ltd'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const IBAN_COUNTRIES = ['GB', 'DE', 'CH', 'NL', 'LU', 'FR', 'IE'];

const digits = (r: Rand, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
const letters = (r: Rand, n: number) => Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(r() * 26))).join('');

// ---------------------------------------------------------------------------------------------------------
// Compact results and the rows made from them

/** `count` consecutive dates from `start` (`YYYY-MM-DD`, UTC), by integer civil-calendar arithmetic. */
function dateRange(start: string, count: number): string[] {
  // Days since 1970-01-01 ↔ proleptic Gregorian date: H. Hinnant, "chrono-Compatible Low-Level Date Algorithms".
  const y0 = +start.slice(0, 4);
  const m0 = +start.slice(5, 7);
  const d0 = +start.slice(8, 10);
  const y = m0 <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m0 + (m0 > 2 ? -3 : 9)) + 2) / 5) + d0 - 1;
  const first = era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const z = first + i + 719_468;
    const e = Math.floor(z / 146_097);
    const doe = z - e * 146_097;
    const ye = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
    const dy = doe - (365 * ye + Math.floor(ye / 4) - Math.floor(ye / 100));
    const mp = Math.floor((5 * dy + 2) / 153);
    const day = dy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = ye + e * 400 + (month <= 2 ? 1 : 0);
    out[i] = `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
  }
  return out;
}

/** Price rows of a day come in this order: assets with their own series, then those following another's. */
const PRICE_ORDER = [...ASSETS.filter((a) => !a.follows), ...ASSETS.filter((a) => a.follows)];

/** A daily price series: integer units of 1e-8, the decimals each price is quoted with, and texts made on demand. */
interface PriceSeries {
  units: Float64Array;
  decimals: Uint8Array;
  texts: string[];
}

/** A run's snapshot of every holding (quantity in lots, market value in cents), and the venue its feed missed. */
interface Snapshot {
  day: number;
  flaky: string | null;
  qu: number[];
  mv: number[];
}

/** Per investor (in id order): capital, contributions, withdrawals, P&L allocation, management and performance fees, cents. */
type CapitalSnapshot = number[];
const CAPITAL_FIELDS = 6;

/** A posted journal line: the entry's sequence number, signed amount in cents (debit > 0). */
interface JournalLine {
  entry: number;
  date: string;
  account: string;
  asset: string | null;
  venue: string | null;
  amount: number;
  memo: string;
}

/** The small parts of a dataset, made at once. */
type DatasetHead = Pick<FundDataset, 'fund' | 'shareClasses' | 'runs' | 'accounts' | 'investors' | 'expenses'>;

/**
 * A simulated fund: the small tables made, the bulk rows made on first request and kept (at most one
 * copy of each row). Rows are those of {@link generateFund}, byte for byte, in the same order.
 */
export class SyntheticFund {
  /** Fund, share classes, NAV runs (oldest first), chart of accounts, investors and expenses. */
  readonly head: DatasetHead;
  readonly #spec: SyntheticFundSpec;
  readonly #calendar: string[];
  readonly #series: Map<string, PriceSeries>;
  readonly #holdings: PositionSpec[];
  readonly #snapshots: Map<string, Snapshot>;
  readonly #journal: JournalLine[];
  readonly #investorIds: string[];
  readonly #capital: Map<string, CapitalSnapshot>;
  readonly #positionRows = new Map<string, PositionRow[]>();
  readonly #capitalRows = new Map<string, CapitalRow[]>();
  readonly #priceRows = new Map<string, PriceRow[]>();
  #ledger: LedgerLineRecord[] | undefined;

  constructor(parts: {
    spec: SyntheticFundSpec;
    calendar: string[];
    series: Map<string, PriceSeries>;
    holdings: PositionSpec[];
    snapshots: Map<string, Snapshot>;
    ledger: JournalLine[];
    investorIds: string[];
    capital: Map<string, CapitalSnapshot>;
    head: DatasetHead;
  }) {
    this.head = parts.head;
    this.#spec = parts.spec;
    this.#calendar = parts.calendar;
    this.#series = parts.series;
    this.#holdings = parts.holdings;
    this.#snapshots = parts.snapshots;
    this.#journal = parts.ledger;
    this.#investorIds = parts.investorIds;
    this.#capital = parts.capital;
  }

  /** The text of `asset`'s price on calendar index `i` (made once). */
  #priceText(asset: string, i: number): string {
    const s = this.#series.get(asset)!;
    let text = s.texts[i];
    if (text === undefined) {
      const dp = s.decimals[i]!;
      text = scaled(s.units[i]! / POW10[8 - dp]!, dp);
      s.texts[i] = text;
    }
    return text;
  }

  /** Every position (live and paper) of the run on `date`, in holding order; empty when that run struck no NAV. */
  positionsOn(date: string): PositionRow[] {
    let rows = this.#positionRows.get(date);
    if (rows) return rows;
    rows = [];
    const snap = this.#snapshots.get(date);
    if (snap) {
      const i = snap.day + this.#spec.priceDays - this.#spec.runDays;
      this.#holdings.forEach((h, k) => {
        if (h.venue === snap.flaky) return;
        const a = ASSET.get(h.asset)!;
        rows!.push({
          navDate: date,
          asset: h.asset,
          assetClass: a.assetClass,
          sourceType: h.sourceType,
          venue: h.venue,
          book: h.book,
          quantity: scaled(snap.qu[k]!, a.qdp),
          price: isCash(h.asset) ? '1.00' : this.#priceText(h.asset, i),
          marketValue: money(snap.mv[k]!),
        });
      });
    }
    this.#positionRows.set(date, rows);
    return rows;
  }

  /** Calendar index of the first date ≥ `date` (or > `date` when not `inclusive`). */
  #dateIndex(date: string, inclusive: boolean): number {
    const c = this.#calendar;
    let lo = 0;
    let hi = c.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c[mid]! < date || (!inclusive && c[mid] === date)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** `asset`'s daily prices dated `from` through `through` (inclusive), oldest first; empty for an unknown asset. Each row is made once. */
  pricesOf(asset: string, from: string, through: string): PriceRow[] {
    if (!this.#series.has(asset)) return [];
    let made = this.#priceRows.get(asset);
    if (!made) {
      made = [];
      this.#priceRows.set(asset, made);
    }
    const rows: PriceRow[] = [];
    const end = this.#dateIndex(through, false);
    for (let i = this.#dateIndex(from, true); i < end; i++) {
      made[i] ??= { asset, priceDate: this.#calendar[i]!, price: this.#priceText(asset, i) };
      rows.push(made[i]!);
    }
    return rows;
  }

  /** The whole ledger in posting (and date) order, memos included (made once). */
  ledger(): LedgerLineRecord[] {
    this.#ledger ??= this.#journal.map((l) => ({
      entryId: `JE-${String(l.entry).padStart(6, '0')}`,
      entryDate: l.date,
      accountCode: l.account,
      asset: l.asset,
      venue: l.venue,
      debit: money(l.amount > 0 ? l.amount : 0),
      credit: money(l.amount < 0 ? -l.amount : 0),
      memo: l.memo,
    }));
    return this.#ledger;
  }

  /** Every investor's capital account at the complete run on `date`, in investor order; empty for any other date. */
  capitalOn(date: string): CapitalRow[] {
    let rows = this.#capitalRows.get(date);
    if (rows) return rows;
    rows = [];
    const values = this.#capital.get(date);
    if (values) {
      for (let i = 0; i * CAPITAL_FIELDS < values.length; i++) {
        const at = i * CAPITAL_FIELDS;
        rows.push({
          navDate: date,
          investorId: this.#investorIds[i]!,
          capital: money(values[at]!),
          contributions: money(values[at + 1]!),
          withdrawals: money(values[at + 2]!),
          pnlAllocation: money(values[at + 3]!),
          mgmtFee: money(values[at + 4]!),
          perfFee: money(values[at + 5]!),
        });
      }
    }
    this.#capitalRows.set(date, rows);
    return rows;
  }

  /** The whole dataset, every row made (as {@link generateFund} returns it). */
  dataset(): FundDataset {
    const dates = [...this.#snapshots.keys()];
    const prices: PriceRow[] = [];
    for (let i = 0; i < this.#calendar.length; i++) {
      for (const a of PRICE_ORDER) prices.push({ asset: a.asset, priceDate: this.#calendar[i]!, price: this.#priceText(a.asset, i) });
    }
    const { fund, shareClasses, runs, accounts, investors, expenses } = this.head;
    return {
      fund,
      shareClasses,
      runs,
      positions: dates.flatMap((d) => this.positionsOn(d)),
      prices,
      accounts,
      ledger: this.ledger(),
      investors,
      capital: [...this.#capital.keys()].flatMap((d) => this.capitalOn(d)),
      expenses,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// The generator

interface Investor {
  row: InvestorRow;
  cls: ShareClassRow;
  /** Capital (net of accrued performance fee), cents. */
  capital: number;
  /** High-water mark in capital terms, cents. */
  hwm: number;
  /** Performance fee accrued this period and not yet crystallized, cents. */
  accrued: number;
  /** Day index the current crystallization period started. */
  periodStart: number;
  cum: { contributions: number; withdrawals: number; pnl: number; mgmt: number; perf: number };
}

interface Holding {
  spec: PositionSpec;
  /** Quantity in lots of 10^-qdp (signed; cash positions: cents). */
  qu: number;
  mv: number;
}

/** Shadow vs administrator NAV tolerance the generator reconciles with, and the fund row states (`reconToleranceBps`). */
export const RECON_TOLERANCE_BPS = 5;

/**
 * Generates a fund's whole dataset (what the database seed loads). Deterministic: the same spec gives the
 * same dataset, byte for byte, in any engine. It is {@link simulateFund} with every row made.
 * @throws {Error} if the generated books fail their own consistency check (a generator bug; never at run time
 *   for the two bundled specs, which the test suite generates)
 */
export function generateFund(spec: SyntheticFundSpec): FundDataset {
  return simulateFund(spec).dataset();
}

/**
 * Simulates a fund: the whole deterministic simulation, with its results kept compact (integers: prices
 * in typed arrays, snapshots in plain arrays) and its bulk rows (positions, prices, ledger lines, capital accounts) made only when asked for,
 * per date, by {@link SyntheticFund}. This is what the embedded store runs in the Worker: making every row
 * up front was most of the ~100–200 ms a new isolate spent on its first fund-data request.
 * @throws {Error} as {@link generateFund}
 */
export function simulateFund(spec: SyntheticFundSpec): SyntheticFund {
  const rand = prng(spec.seed);
  const n = spec.runDays;
  const inception = addDays(spec.endDate, -(n - 1));
  const priceStart = addDays(spec.endDate, -(spec.priceDays - 1));
  const offset = spec.priceDays - n; // price index of day 0

  // Calendar: every date from the first price to the day after the last run, computed once.
  const calendar = dateRange(priceStart, spec.priceDays + 1);
  const dateOf = (t: number) => calendar[t + offset]!;

  // Prices: a common market factor and idiosyncratic noise, daily; perpetuals follow their underlying. Kept
  // as integer units of 1e-8 with their decimals; the text of a price is made when a row needs it.
  const base = ASSETS.filter((a) => !a.follows);
  const baseUnits = base.map(() => new Float64Array(spec.priceDays));
  const baseDecimals = base.map(() => new Uint8Array(spec.priceDays));
  const floatPrice = base.map((a) => a.price);
  const idio = base.map((a) => Math.sqrt(Math.max(a.vol * a.vol - a.beta * a.beta * MARKET_VOL * MARKET_VOL, 0.0001)));
  for (let t = 0; t < spec.priceDays; t++) {
    const m = MARKET_VOL * normal(rand);
    for (let k = 0; k < base.length; k++) {
      const a = base[k]!;
      let p = floatPrice[k]!;
      if (a.vol > 0 && t > 0) {
        // A mild pull towards the starting level keeps a three-year path plausible for every seed.
        const pull = -0.008 * (p / a.price - 1);
        const r = Math.min(0.5, Math.max(-0.35, a.beta * m + idio[k]! * normal(rand) + pull));
        p = p * (1 + r);
        floatPrice[k] = p;
      }
      // Decimals of a price: max(2, 6 − digits of its integer part), 8 below 1.
      const dp = a.vol === 0 ? 2 : p < 1 ? 8 : p < 10 ? 5 : p < 100 ? 4 : p < 1_000 ? 3 : 2;
      baseUnits[k]![t] = Math.max(1, Math.round(p * POW10[dp]!)) * POW10[8 - dp]!;
      baseDecimals[k]![t] = dp;
    }
  }
  const series = new Map<string, PriceSeries>();
  base.forEach((a, k) => {
    series.set(a.asset, { units: baseUnits[k]!, decimals: baseDecimals[k]!, texts: [] });
  });
  for (const a of ASSETS) if (a.follows) series.set(a.asset, series.get(a.follows)!);
  const pu = (asset: string, day: number) => series.get(asset)!.units[day + offset]!;

  // Investors
  const investors: Investor[] = [];
  const usedNames = new Set<string>();
  const newInvestor = (day: number, classId?: string): Investor => {
    let legalName = '';
    let email = '';
    let taxId = '';
    const entity = rand() < 0.45;
    do {
      if (entity) {
        legalName = `${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_A)} ${pick(rand, ENTITY_B)}`;
      } else {
        legalName = `${pick(rand, FIRST)} ${pick(rand, LAST)}`;
      }
    } while (usedNames.has(legalName) || /^(\w+) \1 /.test(legalName));
    usedNames.add(legalName);
    if (entity) {
      const slug = legalName
        .toLowerCase()
        .replace(/[^a-z ]/g, '')
        .split(' ')
        .slice(0, 2)
        .join('');
      email = `investor.relations@${slug}.example.com`;
      taxId = `${digits(rand, 2)}-${digits(rand, 7)}`;
    } else {
      email = `${legalName.toLowerCase().replace(' ', '.')}@example.net`;
      taxId = `${String(100 + Math.floor(rand() * 560))}-${digits(rand, 2)}-${digits(rand, 4)}`;
    }
    const cls = classId ?? (rand() < 0.7 ? 'A' : rand() < 0.5 ? 'B' : 'I');
    const row: InvestorRow = {
      investorId: `INV-${String(investors.length + 1).padStart(4, '0')}`,
      shareClassId: cls,
      legalName,
      email,
      taxId,
      bankAccount: `${pick(rand, IBAN_COUNTRIES)}${digits(rand, 2)}${letters(rand, 4)}${digits(rand, 14)}`,
    };
    const inv: Investor = {
      row,
      cls: SHARE_CLASSES.find((c) => c.shareClassId === cls)!,
      capital: 0,
      hwm: 0,
      accrued: 0,
      periodStart: day,
      cum: { contributions: 0, withdrawals: 0, pnl: 0, mgmt: 0, perf: 0 },
    };
    investors.push(inv);
    return inv;
  };

  // Ledger
  const ledger: JournalLine[] = [];
  let entrySeq = 0;
  const post = (date: string, memo: string, lines: { account: string; asset?: string | null; venue?: string | null; amount: number }[]) => {
    // amount > 0 debit, < 0 credit
    const total = lines.reduce((s, l) => s + l.amount, 0);
    if (total !== 0) throw new Error('synthetic fund: unbalanced journal entry');
    if (lines.every((l) => l.amount === 0)) return;
    const entry = ++entrySeq;
    for (const l of lines) {
      if (l.amount === 0) continue;
      ledger.push({ entry, date, account: l.account, asset: l.asset ?? null, venue: l.venue ?? null, amount: l.amount, memo });
    }
  };
  const balances = new Map<string, number>(); // debit-positive running balances by account
  const ledgerStart = () => ledger.length;
  const absorb = (from: number) => {
    for (let i = from; i < ledger.length; i++) {
      const l = ledger[i]!;
      balances.set(l.account, (balances.get(l.account) ?? 0) + l.amount);
    }
  };

  // Holdings
  const holdings: Holding[] = POSITIONS.map((spec) => ({ spec, qu: 0, mv: 0 }));
  const cashOf = (venue: string) => holdings.find((h) => h.spec.book === 'live' && h.spec.venue === venue && isCash(h.spec.asset))!;
  const bank = cashOf(BANK);
  /** Lots of `asset` worth `cents` at price units `price`. */
  const lotsFor = (asset: string, cents: number, price: number) => Math.round((cents * 10 ** (ASSET.get(asset)!.qdp + 6)) / price);
  const moveCash = (h: Holding, cents: number) => {
    h.qu += cents;
    h.mv += cents;
  };

  // Expenses: known in advance (accrual date, payment date).
  const expenses: ExpenseRow[] = [];
  {
    let seq = 0;
    const add = (date: string, category: string, description: string, cents: number, payAfter: number) => {
      if (date < inception || date > spec.endDate) return;
      const paid = addDays(date, payAfter);
      expenses.push({
        id: `EXP-${String(++seq).padStart(4, '0')}`,
        date,
        category,
        description,
        amount: money(cents),
        status: paid <= spec.endDate ? 'paid' : 'accrued',
        paidDate: paid <= spec.endDate ? paid : null,
      });
    };
    const monthName = (d: string) => `${MONTHS[+d.slice(5, 7) - 1]} ${d.slice(0, 4)}`;
    for (let t = 0; t < n; t++) {
      const date = dateOf(t);
      const next = dateOf(t + 1);
      const monthEnd = next.slice(8) === '01';
      if (date.slice(8) === '01')
        add(
          date,
          'software_data',
          `Market data and portfolio system licences, ${monthName(date)}`,
          345_000 + Math.round(uniform(rand, 0, 40_000)),
          20,
        );
      if (monthEnd) {
        add(date, 'administration', `Fund administration fee, ${monthName(date)}`, 1_250_000, 15);
        add(
          date,
          'custody',
          `Custody fees (Anchorage Digital, BitGo), ${monthName(date)}`,
          380_000 + Math.round(uniform(rand, 0, 220_000)),
          18,
        );
        const month = +date.slice(5, 7);
        if (month % 3 === 0) {
          add(date, 'audit', `Annual audit fee accrual, Q${month / 3} ${date.slice(0, 4)}`, 2_200_000, 45);
          add(date, 'directors', `Independent directors' fees, Q${month / 3} ${date.slice(0, 4)}`, 750_000, 10);
        }
      }
      if (t === Math.floor(n / 3)) {
        // A description as an administrator keys it in, quoting the e-mail it came from: redaction masks it.
        add(date, 'legal', 'Legal review of a side letter; invoice sent by counsel from billing@harbourlegal.example.com', 1_480_000, 30);
      } else if (t > 20 && rand() < 0.01) {
        const description = pick(rand, [
          'Legal counsel: offering memorandum update',
          'Legal counsel: regulatory filing review',
          'Legal counsel: ISDA negotiation',
        ]);
        add(date, 'legal', description, Math.round(uniform(rand, 600_000, 2_500_000)), 30);
      }
    }
  }
  const accrualsOn = new Map<string, ExpenseRow[]>();
  const paymentsOn = new Map<string, ExpenseRow[]>();
  for (const e of expenses) {
    accrualsOn.set(e.date, [...(accrualsOn.get(e.date) ?? []), e]);
    if (e.paidDate) paymentsOn.set(e.paidDate, [...(paymentsOn.get(e.paidDate) ?? []), e]);
  }
  const cents = (s: string) => Math.round(Number(s) * 100);

  // Run statuses: a few failed, partial and break days; the last run is a break so "latest usable" is not "latest".
  const special = new Map<number, 'failed' | 'partial' | 'break'>();
  special.set(n - 1, 'break');
  const mark = (kind: 'failed' | 'partial' | 'break', count: number) => {
    for (let k = 0; k < count; ) {
      const t = 5 + Math.floor(rand() * (n - 8));
      if (!special.has(t) && !special.has(t - 1) && !special.has(t + 1)) {
        special.set(t, kind);
        k++;
      }
    }
  };
  mark('failed', 4);
  mark('partial', 4);
  mark('break', 6);

  const runs: NavRunRow[] = [];
  const snapshots = new Map<string, Snapshot>();
  const capital = new Map<string, CapitalSnapshot>();
  let mgmtPayable = 0;
  let crystallizedUnpaid = 0;

  for (let t = 0; t < n; t++) {
    const date = dateOf(t);
    const from = ledgerStart();
    let contributions = 0;
    let withdrawals = 0;
    const flows: { inv: Investor; cents: number }[] = [];

    if (t === 0) {
      // Inception: subscriptions, then the portfolio bought at the day's prices.
      for (let i = 0; i < spec.initialInvestors; i++) {
        const inv = newInvestor(0, i < 5 ? 'B' : i < 10 ? 'I' : 'A');
        flows.push({ inv, cents: Math.round(uniform(rand, 500_000, 6_000_000)) * 100 });
      }
      const total = flows.reduce((s, f) => s + f.cents, 0);
      moveCash(bank, total);
      for (const f of flows)
        post(date, `Subscription, ${f.inv.row.legalName}`, [
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
          { account: ACCOUNT.capitalContributions, amount: -f.cents },
        ]);
      for (const h of holdings) {
        if (isCash(h.spec.asset) || h.spec.book === 'paper') continue;
        const price = pu(h.spec.asset, 0);
        h.qu = lotsFor(h.spec.asset, h.spec.weight * total, price);
        h.mv = marketValueCents(h.spec.asset, h.qu, price);
        const cash = h.mv;
        const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
        post(date, `Initial position ${h.spec.asset} at ${h.spec.venue}`, [
          { account, asset: h.spec.asset, venue: h.spec.venue, amount: cash },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -cash },
        ]);
        moveCash(bank, -cash);
      }
      for (const h of holdings) {
        if (!isCash(h.spec.asset) || h.spec.book === 'paper' || h === bank) continue;
        const amount = Math.round(h.spec.weight * total);
        moveCash(h, amount);
        moveCash(bank, -amount);
        post(date, `Transfer to ${h.spec.venue}`, [
          { account: ACCOUNT.cashAtVenues, asset: h.spec.asset, venue: h.spec.venue, amount },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -amount },
        ]);
      }
      for (const h of holdings) {
        if (h.spec.book !== 'paper') continue;
        h.qu = lotsFor(h.spec.asset, h.spec.weight * total, pu(h.spec.asset, 0));
        h.mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, 0));
      }
      for (const f of flows) {
        f.inv.capital = f.cents;
        f.inv.hwm = f.cents;
        f.inv.cum.contributions += f.cents;
        contributions += f.cents;
      }
      if (bank.qu < 0) throw new Error('synthetic fund: bank overdrawn at inception');
    } else {
      // Payments at the start of the day.
      if (date.slice(8) === '01' && mgmtPayable + crystallizedUnpaid > 0) {
        post(date, 'Management fees paid to the investment manager', [
          { account: ACCOUNT.mgmtFeesPayable, amount: mgmtPayable },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -mgmtPayable },
        ]);
        post(date, 'Crystallized performance fees paid to the investment manager', [
          { account: ACCOUNT.perfFeesPayable, amount: crystallizedUnpaid },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -crystallizedUnpaid },
        ]);
        moveCash(bank, -(mgmtPayable + crystallizedUnpaid));
        mgmtPayable = 0;
        crystallizedUnpaid = 0;
      }
      for (const e of paymentsOn.get(date) ?? []) {
        const c = cents(e.amount);
        post(date, `Payment of ${e.id}`, [
          { account: ACCOUNT.accruedExpenses, amount: c },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -c },
        ]);
        moveCash(bank, -c);
      }

      // Treasury: keep the bank between 5 % and 15 % of NAV through Coinbase Prime USDC.
      const nav = investors.reduce((s, i) => s + i.capital, 0);
      const treasury = cashOf('Coinbase Prime');
      const want =
        bank.mv > 0.15 * nav
          ? Math.round(bank.mv - 0.1 * nav)
          : bank.mv < 0.05 * nav
            ? -Math.min(treasury.mv, Math.round(0.08 * nav - bank.mv))
            : 0;
      if (want !== 0) {
        moveCash(bank, -want);
        moveCash(treasury, want);
        post(date, 'Treasury transfer between bank and Coinbase Prime', [
          { account: ACCOUNT.cashAtVenues, asset: 'USDC', venue: 'Coinbase Prime', amount: want },
          { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -want },
        ]);
      }

      // Trades at exchange venues, settled in the venue's cash, at the close ± slippage: a few random
      // rebalances, and new money swept to Coinbase Prime invested in BTC and ETH there.
      const tradeable = holdings.filter((x) => x.spec.book === 'live' && !isCash(x.spec.asset) && TRADING_CASH.has(x.spec.venue));
      const orders: { h: Holding; dq: number }[] = [];
      for (let k = Math.floor(rand() * 4); k > 0; k--) {
        const h = pick(rand, tradeable);
        orders.push({ h, dq: Math.round(h.qu * uniform(rand, -0.06, 0.06)) });
      }
      if (treasury.mv > 0.08 * nav) {
        for (const asset of ['BTC', 'ETH']) {
          const h = tradeable.find((x) => x.spec.asset === asset && x.spec.venue === 'Coinbase Prime')!;
          orders.push({ h, dq: lotsFor(asset, (treasury.mv - 0.05 * nav) / 2, pu(asset, t)) });
        }
      }
      const tradeCash = new Map<Holding, number>();
      for (const { h, dq } of orders) {
        const cash = cashOf(h.spec.venue);
        if (dq === 0) continue;
        const exec = Math.round(pu(h.spec.asset, t) * (1 + uniform(rand, -0.0008, 0.0008)));
        const c = marketValueCents(h.spec.asset, dq, exec);
        if (c > 0 && c > cash.mv) continue;
        h.qu += dq;
        moveCash(cash, -c);
        tradeCash.set(h, (tradeCash.get(h) ?? 0) + c);
        const account = h.qu >= 0 ? ACCOUNT.digitalAssetsLong : ACCOUNT.perpetualsShort;
        post(date, `${dq > 0 ? 'Buy' : 'Sell'} ${h.spec.asset} at ${h.spec.venue}`, [
          { account, asset: h.spec.asset, venue: h.spec.venue, amount: c },
          { account: ACCOUNT.cashAtVenues, asset: cash.spec.asset, venue: h.spec.venue, amount: -c },
        ]);
      }

      // Mark to market: P&L per position = ΔMV − net purchases.
      let pnlLong = 0;
      let pnlShort = 0;
      for (const h of holdings) {
        if (isCash(h.spec.asset)) continue;
        if (h.spec.book === 'paper') {
          if (rand() < 0.05) h.qu = Math.round(h.qu * uniform(rand, 0.8, 1.2));
          h.mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, t));
          continue;
        }
        const mv = marketValueCents(h.spec.asset, h.qu, pu(h.spec.asset, t));
        const pnl = mv - h.mv - (tradeCash.get(h) ?? 0);
        h.mv = mv;
        if (h.qu >= 0) pnlLong += pnl;
        else pnlShort += pnl;
      }
      post(date, 'Mark to market, long positions', [
        { account: ACCOUNT.digitalAssetsLong, amount: pnlLong },
        { account: ACCOUNT.netGainOnInvestments, amount: -pnlLong },
      ]);
      post(date, 'Mark to market, short perpetuals', [
        { account: ACCOUNT.perpetualsShort, amount: pnlShort },
        { account: ACCOUNT.netGainOnInvestments, amount: -pnlShort },
      ]);
      const gross = pnlLong + pnlShort;

      // Expense accruals.
      let expenseTotal = 0;
      for (const e of accrualsOn.get(date) ?? []) {
        const c = cents(e.amount);
        expenseTotal += c;
        post(date, `Accrual of ${e.id}`, [
          { account: EXPENSE_ACCOUNT[e.category]!, amount: c },
          { account: ACCOUNT.accruedExpenses, amount: -c },
        ]);
      }

      // Allocation to investors: P&L and expenses pro rata to capital, then fees by share class.
      const active = investors.filter((i) => i.capital > 0);
      const weights = active.map((i) => i.capital);
      const pnlShares = prorate(gross, weights);
      const expenseShares = prorate(expenseTotal, weights);
      let mgmt = 0;
      let perf = 0;
      active.forEach((inv, k) => {
        const m = Math.round((inv.capital * Number(inv.cls.mgmtFeePct)) / 100 / 365);
        const pre = inv.capital + inv.accrued + pnlShares[k]! - expenseShares[k]! - m;
        const rate = Number(inv.cls.perfFeePct) / 100;
        const hurdle = inv.cls.hurdlePct === null ? 0 : Number(inv.cls.hurdlePct) / 100;
        const threshold = Math.round(inv.hwm * (1 + (hurdle * (t - inv.periodStart)) / 365));
        let accrued = 0;
        if (inv.cls.hurdleType === 'soft') accrued = pre > threshold ? Math.round(rate * (pre - inv.hwm)) : 0;
        else accrued = Math.round(rate * Math.max(0, pre - threshold));
        const f = accrued - inv.accrued;
        inv.accrued = accrued;
        inv.capital = pre - accrued;
        inv.cum.pnl += pnlShares[k]! - expenseShares[k]!;
        inv.cum.mgmt += m;
        inv.cum.perf += f;
        mgmt += m;
        perf += f;
      });
      mgmtPayable += mgmt;
      post(date, 'Management fee accrual', [
        { account: ACCOUNT.mgmtFeeExpense, amount: mgmt },
        { account: ACCOUNT.mgmtFeesPayable, amount: -mgmt },
      ]);
      post(date, 'Performance fee accrual', [
        { account: ACCOUNT.perfFeeExpense, amount: perf },
        { account: ACCOUNT.perfFeesPayable, amount: -perf },
      ]);

      // Dealing on the first of the month: subscriptions (new and existing investors) and redemptions.
      if (date.slice(8) === '01') {
        if (rand() < 0.6)
          flows.push({ inv: newInvestor(t, rand() < 0.75 ? 'A' : 'I'), cents: Math.round(uniform(rand, 500_000, 3_000_000)) * 100 });
        for (let k = Math.floor(rand() * 3); k > 0; k--) {
          flows.push({ inv: pick(rand, active), cents: Math.round(uniform(rand, 200_000, 1_500_000)) * 100 });
        }
        for (let k = Math.floor(rand() * 3); k > 0; k--) {
          const inv = pick(rand, active);
          if (flows.some((f) => f.inv === inv)) continue;
          const amount = Math.min(Math.round(inv.capital * uniform(rand, 0.1, 0.4)), bank.mv - 50_000_000);
          if (amount > 0) flows.push({ inv, cents: -amount });
        }
      }
      for (const f of flows) {
        const inv = f.inv;
        if (f.cents > 0) {
          if (inv.capital === 0) inv.periodStart = t;
          inv.capital += f.cents;
          inv.hwm += f.cents;
          inv.cum.contributions += f.cents;
          contributions += f.cents;
          post(date, `Subscription, ${inv.row.legalName}`, [
            { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: f.cents },
            { account: ACCOUNT.capitalContributions, amount: -f.cents },
          ]);
        } else {
          const w = -f.cents;
          const share = w / inv.capital;
          const crystallized = Math.round(inv.accrued * share);
          inv.accrued -= crystallized;
          crystallizedUnpaid += crystallized;
          inv.hwm = Math.round(inv.hwm * (1 - share));
          inv.capital -= w;
          inv.cum.withdrawals += w;
          withdrawals += w;
          post(date, `Redemption, ${inv.row.legalName}`, [
            { account: ACCOUNT.capitalWithdrawals, amount: w },
            { account: ACCOUNT.cashAtBank, asset: 'USD', venue: BANK, amount: -w },
          ]);
        }
        moveCash(bank, f.cents);
      }

      // Crystallization at the end of each investor's period (calendar year, or quarter for quarterly classes).
      const next = dateOf(t + 1);
      const yearEnd = next.slice(5) === '01-01';
      const quarterEnd = next.slice(8) === '01' && ['01', '04', '07', '10'].includes(next.slice(5, 7));
      for (const inv of investors) {
        if (!(inv.cls.crystallization === 'annual' ? yearEnd : quarterEnd)) continue;
        crystallizedUnpaid += inv.accrued;
        inv.accrued = 0;
        inv.hwm = Math.max(inv.hwm, inv.capital);
        inv.periodStart = t + 1;
      }
    }
    absorb(from);

    // The day's books, checked: NAV from positions and payables equals the investors' capital.
    const liveMv = holdings.filter((h) => h.spec.book === 'live').reduce((s, h) => s + h.mv, 0);
    const perfPayable = crystallizedUnpaid + investors.reduce((s, i) => s + i.accrued, 0);
    const expensePayable = -(balances.get(ACCOUNT.accruedExpenses) ?? 0);
    const nav = liveMv - mgmtPayable - perfPayable - expensePayable;
    const capitalSum = investors.reduce((s, i) => s + i.capital, 0);
    if (nav !== capitalSum) throw new Error(`synthetic fund: NAV ${nav} ≠ capital ${capitalSum} on ${date}`);
    if (-(balances.get(ACCOUNT.mgmtFeesPayable) ?? 0) !== mgmtPayable || -(balances.get(ACCOUNT.perfFeesPayable) ?? 0) !== perfPayable) {
      throw new Error(`synthetic fund: payables do not tie on ${date}`);
    }

    // The NAV run and its snapshot.
    const kind = special.get(t);
    const status = kind === 'failed' ? 'failed' : kind === 'partial' ? 'partial' : 'complete';
    const flaky = kind === 'partial' ? pick(rand, FLAKY_VENUES) : null;
    let shadow: number | null = null;
    if (status !== 'failed') {
      shadow = nav;
      const qu: number[] = [];
      const mv: number[] = [];
      for (const h of holdings) {
        qu.push(h.qu);
        mv.push(h.mv);
        if (h.spec.venue === flaky && h.spec.book === 'live') shadow -= h.mv;
      }
      snapshots.set(date, { day: t, flaky, qu, mv });
    }
    const bps = kind === 'break' ? (rand() < 0.5 ? -1 : 1) * uniform(rand, 9, 40) : uniform(rand, -3, 3);
    const admin = Math.round(nav * (1 + bps / 10_000));
    const matched = shadow !== null && Math.abs(shadow - admin) * 10_000 <= RECON_TOLERANCE_BPS * admin;
    runs.push({
      navDate: date,
      status,
      shadowNav: shadow === null ? null : money(shadow),
      adminNav: money(admin),
      reconStatus: shadow === null ? null : matched ? 'matched' : 'break',
      netFlows: money(contributions - withdrawals),
    });
    if (status === 'complete') {
      const values: number[] = [];
      for (const inv of investors)
        values.push(inv.capital, inv.cum.contributions, inv.cum.withdrawals, inv.cum.pnl, inv.cum.mgmt, inv.cum.perf);
      capital.set(date, values);
    }
  }

  const investorIds = investors.map((i) => i.row.investorId);
  return new SyntheticFund({
    spec,
    calendar: calendar.slice(0, spec.priceDays),
    series,
    holdings: holdings.map((h) => h.spec),
    snapshots,
    ledger,
    investorIds,
    capital,
    head: {
      fund: {
        fundId: spec.fundId,
        name: spec.name,
        baseCurrency: 'USD',
        inceptionDate: inception,
        aumTarget: money(spec.aumTargetUsd * 100),
        reconToleranceBps: RECON_TOLERANCE_BPS.toFixed(2),
      },
      shareClasses: SHARE_CLASSES.map((c) => ({ ...c })),
      runs,
      accounts: ACCOUNTS.map((a) => ({ ...a })),
      investors: investors.map((i) => i.row),
      expenses,
    },
  });
}

/**
 * The fund's universe: the assets it trades (with their price dynamics) and the positions it holds, by venue and book.
 */

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

/** Daily volatility of the common market factor (a fraction, 0.02 = 2% a day). */
export const MARKET_VOL = 0.02;
/** The assets the fund trades: starting price in USD, daily volatility, market beta, quantity decimals `qdp`. */
export const ASSETS: AssetSpec[] = [
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
/** {@link ASSETS} by asset code. */
export const ASSET = new Map(ASSETS.map((a) => [a.asset, a]));
/** Whether `asset` is cash (fiat or a stablecoin): no price risk, its quantity is in cents. */
export const isCash = (asset: string) => {
  const c = ASSET.get(asset)!.assetClass;
  return c === 'stablecoin' || c === 'fiat';
};

/** A holding the fund keeps: asset, venue, source type, book (live or paper) and its target weight. */
export interface PositionSpec {
  asset: string;
  venue: string;
  sourceType: 'exchange' | 'custodian' | 'onchain_wallet' | 'defi' | 'bank';
  /** Share of the opening NAV (negative: short); cash positions get what the others leave. */
  weight: number;
  book: 'live' | 'paper';
}

/** The fund's bank: the venue of its USD bank account (`cashAtBank`), through which capital flows. */
export const BANK = 'Northwind Bank';
const live = (asset: string, venue: string, sourceType: PositionSpec['sourceType'], weight: number): PositionSpec => ({
  asset,
  venue,
  sourceType,
  weight,
  book: 'live',
});
/** Every holding, live and paper, in the order snapshots and position rows list them. */
export const POSITIONS: PositionSpec[] = [
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
export const TRADING_CASH = new Map(
  POSITIONS.filter((p) => p.book === 'live' && p.sourceType === 'exchange' && isCash(p.asset)).map((p) => [p.venue, p.asset]),
);
/** Venues whose feed a partial run misses. */
export const FLAKY_VENUES = ['Anchorage Digital', 'Safe multisig', 'BitGo'];

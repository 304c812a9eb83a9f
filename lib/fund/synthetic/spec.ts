/**
 * Parameters of a synthetic fund, the two bundled specs, and the shape of a generated dataset.
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
} from '../rows.ts';

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

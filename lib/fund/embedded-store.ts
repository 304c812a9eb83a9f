/**
 * The embedded store: synthetic funds generated in the Worker (no database). Each fund is generated on first
 * use and kept for the life of the isolate; reads select like the SQL store will (explicit columns, live
 * positions only, ledger memos never returned).
 */
import type { FundIndex, FundReadRequest, FundReadResult, FundStore } from './store.ts';
import { emptyRead } from './store.ts';
import type { CapitalRow, LedgerLineRow, PositionRow, PriceRow } from './rows.ts';
import { generateFund, type FundDataset, type SyntheticFundSpec } from './synthetic.ts';

interface Prepared {
  dataset: FundDataset;
  livePositionsByDate: Map<string, PositionRow[]>;
  pricesByAsset: Map<string, PriceRow[]>;
  /** Ledger lines without memos, in date order. */
  ledger: LedgerLineRow[];
  capitalByDate: Map<string, CapitalRow[]>;
}

function prepare(dataset: FundDataset): Prepared {
  return {
    dataset,
    livePositionsByDate: Map.groupBy(
      dataset.positions.filter((p) => p.book === 'live'),
      (p) => p.navDate,
    ),
    pricesByAsset: Map.groupBy(dataset.prices, (p) => p.asset),
    ledger: dataset.ledger.map(({ memo: _memo, ...line }) => line),
    capitalByDate: Map.groupBy(dataset.capital, (c) => c.navDate),
  };
}

/** Index of the first element of `rows` (sorted by `key`) whose key is greater than (or, `inclusive`, equal to) `value`. */
function bound<T>(rows: readonly T[], value: string, key: (row: T) => string, inclusive = false): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = key(rows[mid]!);
    if (k < value || (!inclusive && k === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A store over synthetic funds.
 * @param specs the funds it holds, generated lazily by id
 */
export function embeddedStore(specs: readonly SyntheticFundSpec[]): FundStore {
  const prepared = new Map<string, Prepared>();
  const load = (fundId: string): Prepared | null => {
    const spec = specs.find((s) => s.fundId === fundId);
    if (!spec) return null;
    let p = prepared.get(fundId);
    if (!p) {
      p = prepare(generateFund(spec));
      prepared.set(fundId, p);
    }
    return p;
  };

  return {
    async index(fundId): Promise<FundIndex | null> {
      const p = load(fundId);
      if (!p) return null;
      return { fund: { ...p.dataset.fund }, shareClasses: p.dataset.shareClasses.map((c) => ({ ...c })), runs: p.dataset.runs.slice() };
    },

    async read(fundId, request: FundReadRequest): Promise<FundReadResult> {
      const out = emptyRead();
      const p = load(fundId);
      if (!p) return out;
      if (request.positions) {
        for (const date of request.positions.navDates) out.positions.push(...(p.livePositionsByDate.get(date) ?? []));
      }
      if (request.prices) {
        const { heldAt, from, through } = request.prices;
        const assets = [...new Set((p.livePositionsByDate.get(heldAt) ?? []).map((row) => row.asset))];
        for (const asset of assets) {
          const series = p.pricesByAsset.get(asset) ?? [];
          const date = (r: PriceRow) => r.priceDate;
          out.prices.push(...series.slice(bound(series, from, date, true), bound(series, through, date)));
        }
      }
      if (request.ledger) {
        const { after, through } = request.ledger;
        out.accounts = p.dataset.accounts.slice();
        const date = (l: LedgerLineRow) => l.entryDate;
        out.ledger = p.ledger.slice(after === null ? 0 : bound(p.ledger, after, date), bound(p.ledger, through, date));
      }
      if (request.capital) {
        out.investors = p.dataset.investors.slice();
        for (const date of request.capital.navDates) out.capital.push(...(p.capitalByDate.get(date) ?? []));
      }
      if (request.expenses) {
        out.expenses = p.dataset.expenses
          .slice()
          .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1))
          .slice(0, request.expenses.limit);
      }
      return out;
    },
  };
}

/**
 * The embedded store: synthetic funds simulated in the Worker (no database). Each fund is simulated on first
 * use and kept for the life of the isolate; its rows are made only when a read asks for them (per date, per
 * price window, the ledger once) and kept. Reads select like the SQL store (explicit columns, live
 * positions only, ledger memos never returned).
 */
import type { FundIndex, FundReadRequest, FundReadResult, FundStore } from './store.ts';
import { emptyRead } from './store.ts';
import type { LedgerLineRow, PositionRow } from './rows.ts';
import { simulateFund, type SyntheticFund, type SyntheticFundSpec } from './synthetic.ts';

/** A simulated fund and the store's views of it, each made on first use. */
interface Prepared {
  fund: SyntheticFund;
  livePositions: Map<string, PositionRow[]>;
  /** Ledger lines without memos, in date order. */
  ledger?: LedgerLineRow[];
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
      p = { fund: simulateFund(spec), livePositions: new Map() };
      prepared.set(fundId, p);
    }
    return p;
  };
  const livePositions = (p: Prepared, date: string): PositionRow[] => {
    let rows = p.livePositions.get(date);
    if (!rows) {
      rows = p.fund.positionsOn(date).filter((row) => row.book === 'live');
      p.livePositions.set(date, rows);
    }
    return rows;
  };

  return {
    async index(fundId): Promise<FundIndex | null> {
      const p = load(fundId);
      if (!p) return null;
      const { fund, shareClasses, runs } = p.fund.head;
      return { fund: { ...fund }, shareClasses: shareClasses.map((c) => ({ ...c })), runs: runs.slice() };
    },

    async read(fundId, request: FundReadRequest): Promise<FundReadResult> {
      const out = emptyRead();
      const p = load(fundId);
      if (!p) return out;
      const head = p.fund.head;
      if (request.positions) {
        for (const date of request.positions.navDates) out.positions.push(...livePositions(p, date));
      }
      if (request.prices) {
        const { heldAt, from, through } = request.prices;
        const assets = [...new Set(livePositions(p, heldAt).map((row) => row.asset))];
        for (const asset of assets) out.prices.push(...p.fund.pricesOf(asset, from, through));
      }
      if (request.ledger) {
        const { after, through } = request.ledger;
        out.accounts = head.accounts.slice();
        p.ledger ??= p.fund.ledger().map(({ memo: _memo, ...line }) => line);
        const date = (l: LedgerLineRow) => l.entryDate;
        out.ledger = p.ledger.slice(after === null ? 0 : bound(p.ledger, after, date), bound(p.ledger, through, date));
      }
      if (request.capital) {
        out.investors = head.investors.slice();
        for (const date of request.capital.navDates) out.capital.push(...p.fund.capitalOn(date));
      }
      if (request.expenses) {
        out.expenses = head.expenses
          .slice()
          .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1))
          .slice(0, request.expenses.limit);
      }
      return out;
    },
  };
}

/**
 * Compact results and the rows made from them: the compact simulation results, and {@link SyntheticFund},
 * which makes the bulk rows per date on first request.
 */
import type { AccountBalanceRow, CapitalRow, LedgerSumRow, PositionRow, PriceRow } from '../rows.ts';
import { POW10, money, scaled } from './arithmetic.ts';
import { ASSET, ASSETS, type PositionSpec, isCash } from './market.ts';
import type { FundDataset, LedgerLineRecord, SyntheticFundSpec } from './spec.ts';

/** Code-unit order of texts, none (null) after every text: PostgreSQL's `ORDER BY` of `"C"`-collated columns. */
const byText = (x: string | null, y: string | null): number => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1);

/** Price rows of a day come in this order: assets with their own series, then those following another's. */
const PRICE_ORDER = [...ASSETS.filter((a) => !a.follows), ...ASSETS.filter((a) => a.follows)];

/** A daily price series: integer units of 1e-8, the decimals each price is quoted with, and texts made on demand. */
export interface PriceSeries {
  units: Float64Array;
  decimals: Uint8Array;
  texts: string[];
}

/**
 * A run's snapshot of every holding, in {@link POSITIONS} order (quantity in lots of 10^-qdp, market value in
 * cents; integers), the run's day index from inception, and the venue its feed missed.
 */
export interface Snapshot {
  day: number;
  flaky: string | null;
  qu: ArrayLike<number>;
  mv: ArrayLike<number>;
}

/** Per investor (in id order): capital, contributions, withdrawals, P&L allocation, management and performance fees, cents. */
export type CapitalSnapshot = ArrayLike<number>;
/** Numbers per investor in a {@link CapitalSnapshot}. */
export const CAPITAL_FIELDS = 6;

/**
 * The capital snapshots of the complete runs and the investor order they list. Only the capital accounts read
 * them, so the codec stores them in an asset of their own (codec.ts), loaded by the first read that needs them.
 */
export interface CapitalParts {
  /** Investor ids in the order capital snapshots list them. */
  investorIds: string[];
  /** Capital snapshots of the complete runs, by date, oldest first. */
  snapshots: Map<string, CapitalSnapshot>;
}

/**
 * The posted journal lines, by column (line i is element i of each): the entry's sequence number, its date
 * as a calendar index, the account, asset, venue and memo as indices into `strings` (−1: null), and the
 * signed amount in cents (debit > 0). Columns keep the ledger compact until it is asked for, and let the
 * codec (codec.ts) store it as typed arrays.
 */
export interface Journal {
  entry: ArrayLike<number>;
  date: ArrayLike<number>;
  account: ArrayLike<number>;
  asset: ArrayLike<number>;
  venue: ArrayLike<number>;
  memo: ArrayLike<number>;
  amount: ArrayLike<number>;
  strings: string[];
}

/** The compact results of a simulation: what {@link SyntheticFund} is made from (and codec.ts stores). */
export interface FundParts {
  spec: SyntheticFundSpec;
  /** Every price date, oldest first (`spec.priceDays` of them, ending at `spec.endDate`). */
  calendar: string[];
  /** Price series by asset; perpetuals share their underlying's series object. */
  series: Map<string, PriceSeries>;
  /** The holdings snapshots list, in order ({@link POSITIONS}). */
  holdings: PositionSpec[];
  /** Snapshots of the runs that struck a NAV, by date, oldest first. */
  snapshots: Map<string, Snapshot>;
  ledger: Journal;
  /**
   * The capital snapshots; null when decoded without them (codec.ts `decodeFund`), until
   * {@link SyntheticFund.addCapital} gives them.
   */
  capital: CapitalParts | null;
  head: DatasetHead;
  /**
   * The identity set of `head.investors`, compiled at build as lib/identity-set-form.ts stores it (the
   * embedded store hands it to the redaction to load rather than compile); null for a simulated fund.
   */
  compiledIdentitySet: string | null;
}

/** The small parts of a dataset, made at once. */
export type DatasetHead = Pick<FundDataset, 'fund' | 'shareClasses' | 'runs' | 'accounts' | 'investors' | 'expenses'>;

/**
 * The first index in 0..n−1 at which `reached` holds, or n: a binary search over a range where `reached`
 * is false up to some index and true from it on (a sorted column compared with a bound). O(log n).
 */
function firstIndex(n: number, reached: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reached(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A simulated fund: the small tables made, the bulk rows made on first request and kept (at most one
 * copy of each row). Rows are those of {@link generateFund}, byte for byte, in the same order.
 */
export class SyntheticFund {
  /** Fund, share classes, NAV runs (oldest first), chart of accounts, investors and expenses. */
  readonly head: DatasetHead;
  /** What the fund is made from; read on use, so parts made on first access (codec.ts) are made only when needed. */
  readonly #parts: FundParts;
  /** The capital snapshots, once the fund has them ({@link addCapital}). */
  #capital: CapitalParts | null;
  readonly #positionRows = new Map<string, PositionRow[]>();
  readonly #capitalRows = new Map<string, CapitalRow[]>();
  readonly #priceRows = new Map<string, PriceRow[]>();
  #ledger: LedgerLineRecord[] | undefined;

  constructor(parts: FundParts) {
    this.head = parts.head;
    this.#parts = parts;
    this.#capital = parts.capital;
  }

  /** Every price date, oldest first (the calendar the capital snapshots' days index: codec.ts `decodeCapital`). */
  get calendar(): readonly string[] {
    return this.#parts.calendar;
  }

  /** The identity set compiled at build ({@link FundParts.compiledIdentitySet}); null for a simulated fund. */
  get compiledIdentitySet(): string | null {
    return this.#parts.compiledIdentitySet;
  }

  /** True once the fund holds its capital snapshots: a simulated fund always, a decoded one once given them. */
  get hasCapital(): boolean {
    return this.#capital !== null;
  }

  /**
   * Gives a fund decoded without its capital snapshots those of its capital asset (codec.ts `decodeCapital`).
   * The first given are kept, and later ones ignored: two requests may both have loaded them.
   */
  addCapital(capital: CapitalParts): void {
    this.#capital ??= capital;
  }

  /**
   * The capital snapshots.
   * @throws {Error} when the fund has none yet (a store that did not {@link addCapital} before reading them)
   */
  #capitalParts(): CapitalParts {
    if (this.#capital === null) throw new Error('SyntheticFund: the capital snapshots are not loaded');
    return this.#capital;
  }

  /** The text of `asset`'s price on calendar index `i` (made once). */
  #priceText(asset: string, i: number): string {
    const s = this.#parts.series.get(asset)!;
    let text = s.texts[i];
    if (text === undefined) {
      const dp = s.decimals[i]!;
      text = scaled(s.units[i]! / POW10[8 - dp]!, dp);
      s.texts[i] = text;
    }
    return text;
  }

  /**
   * `asset`'s closes on the last `count` calendar days through `through` (fewer before the first), oldest
   * first, as the numbers their texts read as (`units / 10⁸`: both correctly rounded from the same exact
   * decimal), with no row or text made. Every asset has a price on every day of its series.
   */
  closesOf(asset: string, through: string, count: number): number[] {
    const units = this.#parts.series.get(asset)?.units ?? [];
    const end = Math.min(this.#dateIndex(through, false), units.length);
    const out: number[] = [];
    for (let i = Math.max(0, end - count); i < end; i++) out.push(units[i]! / POW10[8]!);
    return out;
  }

  /** Every position (live and paper) of the run on `date`, in holding order; empty when that run struck no NAV. */
  positionsOn(date: string): PositionRow[] {
    let rows = this.#positionRows.get(date);
    if (rows) return rows;
    rows = [];
    const snap = this.#parts.snapshots.get(date);
    if (snap) {
      const i = snap.day + this.#parts.spec.priceDays - this.#parts.spec.runDays;
      this.#parts.holdings.forEach((h, k) => {
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
    const c = this.#parts.calendar;
    return firstIndex(c.length, (i) => c[i]! > date || (inclusive && c[i] === date));
  }

  /** `asset`'s daily prices dated `from` through `through` (inclusive), oldest first; empty for an unknown asset. Each row is made once. */
  pricesOf(asset: string, from: string, through: string): PriceRow[] {
    if (!this.#parts.series.has(asset)) return [];
    let made = this.#priceRows.get(asset);
    if (!made) {
      // Allocated at full length: rows are made from the latest day back, and an array filled from its end
      // would turn into a slow dictionary.
      made = new Array(this.#parts.calendar.length);
      this.#priceRows.set(asset, made);
    }
    const rows: PriceRow[] = [];
    const end = this.#dateIndex(through, false);
    for (let i = this.#dateIndex(from, true); i < end; i++) {
      made[i] ??= { asset, priceDate: this.#parts.calendar[i]!, price: this.#priceText(asset, i) };
      rows.push(made[i]!);
    }
    return rows;
  }

  /** The whole ledger in posting (and date) order, memos included (made once). */
  ledger(): LedgerLineRecord[] {
    if (!this.#ledger) {
      const row = this.#journalRow();
      this.#ledger = Array.from({ length: this.#parts.ledger.entry.length }, row);
    }
    return this.#ledger;
  }

  /**
   * The ledger lines dated after `after` (exclusive; null: from the first) through `through` (inclusive),
   * summed per account, asset and venue as the stores return them: their debits and their credits (money
   * texts), by account code, asset and venue in code-unit order with no asset or venue last (as the SQL
   * store's `ORDER BY` gives them). Summed from the journal's columns in cents, without making a line.
   * @throws {RangeError} should a sum pass 2^53 cents (never for the bundled funds, which the tests check)
   */
  ledgerSumsBetween(after: string | null, through: string): LedgerSumRow[] {
    const { account, asset, venue, amount, strings } = this.#parts.ledger;
    const from = after === null ? 0 : this.#linesThrough(after);
    const to = this.#linesThrough(through);
    // Per (account, asset, venue) string indices (-1: none): [debits, credits] in cents.
    const sums = new Map<string, { a: number; s: number; v: number; debit: number; credit: number }>();
    for (let i = from; i < to; i++) {
      const key = `${account[i]} ${asset[i]} ${venue[i]}`;
      let sum = sums.get(key);
      if (!sum) {
        sum = { a: account[i]!, s: asset[i]!, v: venue[i]!, debit: 0, credit: 0 };
        sums.set(key, sum);
      }
      const a = amount[i]!;
      if (a >= 0) sum.debit += a;
      else sum.credit -= a;
    }
    const text = (k: number) => (k < 0 ? null : strings[k]!);
    const rows: LedgerSumRow[] = [];
    for (const { a, s, v, debit, credit } of sums.values()) {
      // Every partial sum of one sign is at most the total: a safe total means every step was exact.
      if (!Number.isSafeInteger(debit) || !Number.isSafeInteger(credit)) throw new RangeError('ledger sums past 2^53 cents');
      rows.push({ accountCode: strings[a]!, asset: text(s), venue: text(v), debit: money(debit), credit: money(credit) });
    }
    return rows.sort((x, y) => byText(x.accountCode, y.accountCode) || byText(x.asset, y.asset) || byText(x.venue, y.venue));
  }

  /** How many journal lines are dated on or before `date` (the journal's first line dated after it). */
  #linesThrough(date: string): number {
    const dates = this.#parts.ledger.date;
    const day = this.#dateIndex(date, false);
    // Journal dates are calendar indices in posting order, never decreasing: bisect them.
    return firstIndex(dates.length, (i) => dates[i]! >= day);
  }

  /**
   * Each account's lines dated on or before `through`, summed: its debits and its credits (money texts), by
   * account code in code-unit order, as the SQL store's `GROUP BY` gives them. Summed from the journal's
   * columns in cents, without making a line.
   * @throws {RangeError} should a sum pass 2^53 cents (never for the bundled funds, which the tests check)
   */
  balancesThrough(through: string): AccountBalanceRow[] {
    const { account, amount, strings } = this.#parts.ledger;
    const to = this.#linesThrough(through);
    // Per account's string index: [debits, credits] in cents.
    const sums = new Map<number, [number, number]>();
    for (let i = 0; i < to; i++) {
      const a = amount[i]!;
      let s = sums.get(account[i]!);
      if (!s) {
        s = [0, 0];
        sums.set(account[i]!, s);
      }
      if (a >= 0) s[0] += a;
      else s[1] -= a;
    }
    const rows: AccountBalanceRow[] = [];
    for (const [k, [debit, credit]] of sums) {
      // Every partial sum of one sign is at most the total: a safe total means every step was exact.
      if (!Number.isSafeInteger(debit) || !Number.isSafeInteger(credit)) throw new RangeError('ledger sums past 2^53 cents');
      rows.push({ accountCode: strings[k]!, debit: money(debit), credit: money(credit) });
    }
    return rows.sort((x, y) => byText(x.accountCode, y.accountCode));
  }

  /** A maker of journal line `i` as a row with its memo (the columns read once per maker, not per row). */
  #journalRow(): (_: unknown, i: number) => LedgerLineRecord {
    const { entry, date, account, asset, venue, memo, amount, strings } = this.#parts.ledger;
    const calendar = this.#parts.calendar;
    const text = (k: number) => (k < 0 ? null : strings[k]!);
    return (_, i) => {
      const a = amount[i]!;
      return {
        entryId: `JE-${String(entry[i]).padStart(6, '0')}`,
        entryDate: calendar[date[i]!]!,
        accountCode: strings[account[i]!]!,
        asset: text(asset[i]!),
        venue: text(venue[i]!),
        debit: a > 0 ? money(a) : '0.00',
        credit: a < 0 ? money(-a) : '0.00',
        memo: strings[memo[i]!]!,
      };
    };
  }

  /**
   * Every investor's capital account at the complete run on `date`, in investor order; empty for any other date.
   * @throws {Error} when the fund has no capital snapshots yet ({@link hasCapital})
   */
  capitalOn(date: string): CapitalRow[] {
    let rows = this.#capitalRows.get(date);
    if (rows) return rows;
    rows = [];
    const { investorIds, snapshots } = this.#capitalParts();
    const values = snapshots.get(date);
    if (values) {
      for (let i = 0; i * CAPITAL_FIELDS < values.length; i++) {
        const at = i * CAPITAL_FIELDS;
        rows.push({
          navDate: date,
          investorId: investorIds[i]!,
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
    const dates = [...this.#parts.snapshots.keys()];
    const prices: PriceRow[] = [];
    for (let i = 0; i < this.#parts.calendar.length; i++) {
      for (const a of PRICE_ORDER) prices.push({ asset: a.asset, priceDate: this.#parts.calendar[i]!, price: this.#priceText(a.asset, i) });
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
      capital: [...this.#capitalParts().snapshots.keys()].flatMap((d) => this.capitalOn(d)),
      expenses,
    };
  }
}

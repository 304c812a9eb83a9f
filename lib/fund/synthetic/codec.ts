/**
 * The embedded fund as a static asset: the compact results of a simulation ({@link FundParts}) in one binary
 * file, written at build time (scripts/build-fund.ts, `public/_fund/<fundId>.bin`) and read by the embedded
 * store through the Worker's `ASSETS` binding (lib/fund/embedded-store.ts), so that no isolate simulates the
 * fund on its first request (docs/fund-data.md#the-embedded-funds).
 *
 * Layout (little-endian; every typed array starts at a multiple of 8 bytes):
 *
 * | bytes        | content                                                                           |
 * |--------------|-----------------------------------------------------------------------------------|
 * | 0–3          | magic `FEFD` (ASCII)                                                              |
 * | 4–7          | format version ({@link FUND_ASSET_FORMAT}), uint32                                |
 * | 8–11         | byte length of the header JSON, uint32                                            |
 * | 12–…         | the header JSON (UTF-8), padded with spaces to a multiple of 8                    |
 * | …            | the typed arrays the header lists in `arrays`, in that order                      |
 *
 * The header holds the fingerprint (of the spec and the generator's sources: a file from another build is
 * refused), the small and string parts (dataset head, investor ids, the journal's string table, each
 * snapshot's day and missed venue, each capital snapshot's day and length) and the list of arrays. The
 * bulk numbers are typed arrays decoded as views, never number by number: price units (Float64, integers of
 * 1e-8) and decimals (Uint8) of each asset with its own series; snapshot quantities and market values
 * (Float64, integer lots and cents, holding-major per snapshot); capital snapshots (Float64 cents,
 * concatenated); the journal's columns (Int32 entry numbers, calendar indices and string indices, checked
 * at encoding to fit; Float64 cents). Float64 holds every safe integer exactly, so decoding is exact.
 * The calendar (every price date) is stored in the header: JSON.parse makes its 1,100 strings faster than an
 * isolate's first request can compute them. The holdings are derived (lib/fund/synthetic/market.ts), not stored.
 */
import { ASSETS, POSITIONS } from './market.ts';
import type { CapitalSnapshot, DatasetHead, FundParts, PriceSeries, Snapshot } from './lazy.ts';
import type { SyntheticFundSpec } from './spec.ts';

/** Version of the layout above; a file of another version is refused. */
export const FUND_ASSET_FORMAT = 2;
/** Where a fund's asset is, under the static assets (`public/`): `/_fund/<fundId>.bin`. */
export const fundAssetPath = (fundId: string): string => `/_fund/${fundId}.bin`;

const MAGIC = 0x44464546; // "FEFD" read as a little-endian uint32
const PREFIX = 12;

/** Why a fund asset cannot be used (the embedded store then simulates the fund). */
export class FundAssetError extends Error {
  override readonly name = 'FundAssetError';
  /** `format`: not this layout or version, or not little-endian; `stale`: another spec or generator; `shape`: arrays of the wrong size. */
  readonly reason: 'format' | 'stale' | 'shape';
  constructor(reason: FundAssetError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

type ArrayType = 'f64' | 'i32' | 'u8';
const ARRAY = { f64: Float64Array, i32: Int32Array, u8: Uint8Array } as const;

/** The header JSON. */
interface Header {
  fingerprint: string;
  fundId: string;
  head: DatasetHead;
  investorIds: string[];
  strings: string[];
  /** Every price date, oldest first (`spec.priceDays` of them, ending at `spec.endDate`). */
  calendar: string[];
  /** Per snapshot, oldest first: its day index from inception, and the venue its feed missed. */
  snapshots: [day: number, flaky: string | null][];
  /** Per capital snapshot, oldest first: its day index from inception, and how many numbers it holds. */
  capital: [day: number, length: number][];
  /** The typed arrays after the header, in order: name, element type, element count. */
  arrays: [name: string, type: ArrayType, length: number][];
}

/** The assets whose price series is stored (the others follow one of these). */
const OWN_SERIES = ASSETS.filter((a) => !a.follows);

/** Calendar index of day 0 (inception): price history before the first run. */
const offsetOf = (spec: SyntheticFundSpec) => spec.priceDays - spec.runDays;

/** True on a little-endian engine (every platform Workers and Node run on; checked, not assumed). */
const littleEndian = () => new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Copies `values` into a typed array of `type`, checking that every value survives (integers in range). */
function typed(type: ArrayType, values: ArrayLike<number>, name: string): Float64Array | Int32Array | Uint8Array {
  const out = ARRAY[type].from(values);
  for (let i = 0; i < values.length; i++) {
    if (out[i] !== values[i] || !Number.isSafeInteger(values[i]))
      throw new Error(`fund asset: ${name}[${i}] = ${values[i]} does not fit ${type}`);
  }
  return out;
}

/**
 * Encodes a simulation's compact results.
 * @param parts what `simulateParts` returned
 * @param fingerprint identifies the spec and generator (scripts/build-fund.ts); {@link decodeFund} refuses another
 * @returns the file's bytes
 * @throws {Error} if a number does not fit its array type, or a snapshot lists another number of holdings
 */
export function encodeFund(parts: FundParts, fingerprint: string): Uint8Array {
  if (!littleEndian()) throw new Error('fund asset: encoding needs a little-endian platform');
  const offset = offsetOf(parts.spec);
  const arrays: [string, ArrayType, Float64Array | Int32Array | Uint8Array][] = [];
  const add = (name: string, type: ArrayType, values: ArrayLike<number>) => arrays.push([name, type, typed(type, values, name)]);
  for (const a of OWN_SERIES) {
    const s = parts.series.get(a.asset)!;
    add(`units.${a.asset}`, 'f64', s.units);
    add(`decimals.${a.asset}`, 'u8', s.decimals);
  }
  const snaps = [...parts.snapshots.values()];
  const holdings = parts.holdings.length;
  const flat = (pick: (s: Snapshot) => ArrayLike<number>) =>
    snaps.flatMap((s) => {
      const v = pick(s);
      if (v.length !== holdings) throw new Error('fund asset: a snapshot lists another number of holdings');
      return Array.from(v);
    });
  add(
    'qu',
    'f64',
    flat((s) => s.qu),
  );
  add(
    'mv',
    'f64',
    flat((s) => s.mv),
  );
  const capital = [...parts.capital.entries()];
  add(
    'capital',
    'f64',
    capital.flatMap(([, v]) => Array.from(v)),
  );
  const j = parts.ledger;
  for (const column of ['entry', 'date', 'account', 'asset', 'venue', 'memo'] as const) add(`journal.${column}`, 'i32', j[column]);
  add('journal.amount', 'f64', j.amount);

  const calendarDay = new Map(parts.calendar.map((d, i) => [d, i - offset]));
  const header: Header = {
    fingerprint,
    fundId: parts.spec.fundId,
    head: parts.head,
    investorIds: parts.investorIds,
    strings: j.strings,
    calendar: parts.calendar,
    snapshots: snaps.map((s) => [s.day, s.flaky]),
    capital: capital.map(([date, v]) => [calendarDay.get(date)!, v.length]),
    arrays: arrays.map(([name, type, a]) => [name, type, a.length]),
  };
  let json = new TextEncoder().encode(JSON.stringify(header));
  const pad = (8 - ((PREFIX + json.length) % 8)) % 8;
  if (pad) json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  let size = PREFIX + json.length;
  for (const [, , a] of arrays) size = Math.ceil(size / 8) * 8 + a.byteLength;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FUND_ASSET_FORMAT, true);
  view.setUint32(8, json.length, true);
  out.set(json, PREFIX);
  let at = PREFIX + json.length;
  for (const [, , a] of arrays) {
    at = Math.ceil(at / 8) * 8;
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  return out;
}

/**
 * The asset's header, checked: layout and version, then the fingerprint and fund.
 * @returns the header, and where its arrays start
 * @throws {FundAssetError} as {@link decodeFund}
 */
function readHeader(bytes: ArrayBuffer, spec: SyntheticFundSpec, fingerprint: string): { header: Header; at: number } {
  if (!littleEndian()) throw new FundAssetError('format', 'fund assets are little-endian');
  if (bytes.byteLength < PREFIX) throw new FundAssetError('format', 'too short');
  const view = new DataView(bytes);
  if (view.getUint32(0, true) !== MAGIC) throw new FundAssetError('format', 'not a fund asset');
  if (view.getUint32(4, true) !== FUND_ASSET_FORMAT) throw new FundAssetError('format', `format ${view.getUint32(4, true)}`);
  const length = view.getUint32(8, true);
  if (PREFIX + length > bytes.byteLength) throw new FundAssetError('format', 'truncated header');
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, PREFIX, length))) as Header;
  if (header.fingerprint !== fingerprint || header.fundId !== spec.fundId) throw new FundAssetError('stale', 'another spec or generator');
  const c = header.calendar;
  if (!Array.isArray(c) || c.length !== spec.priceDays || c[c.length - 1] !== spec.endDate)
    throw new FundAssetError('shape', "the calendar is not the spec's");
  return { header, at: PREFIX + length };
}

/** An array of the asset by name, of `count` elements when given. */
type ArrayOf = <T extends ArrayLike<number>>(name: string, count?: number) => T;

/**
 * Typed-array views over the asset's arrays (each 8-byte aligned, in the header's order), by name.
 * @throws {FundAssetError} `shape` when one is truncated, or (on access) missing or of another length
 */
function arrayViews(bytes: ArrayBuffer, header: Header, start: number): ArrayOf {
  const arrays = new Map<string, ArrayLike<number>>();
  let at = start;
  for (const [name, type, count] of header.arrays) {
    at = Math.ceil(at / 8) * 8;
    const Ctor = ARRAY[type];
    if (at + count * Ctor.BYTES_PER_ELEMENT > bytes.byteLength) throw new FundAssetError('shape', `${name} is truncated`);
    arrays.set(name, new Ctor(bytes, at, count));
    at += count * Ctor.BYTES_PER_ELEMENT;
  }
  return <T extends ArrayLike<number>>(name: string, count?: number): T => {
    const a = arrays.get(name);
    if (!a || (count !== undefined && a.length !== count)) throw new FundAssetError('shape', `${name} is missing or of another length`);
    return a as T;
  };
}

/** The price series by asset; assets that follow another share its series object, as simulated. */
function priceSeries(array: ArrayOf, spec: SyntheticFundSpec): Map<string, PriceSeries> {
  const series = new Map<string, PriceSeries>();
  for (const a of OWN_SERIES) {
    series.set(a.asset, {
      units: array<Float64Array>(`units.${a.asset}`, spec.priceDays),
      decimals: array<Uint8Array>(`decimals.${a.asset}`, spec.priceDays),
      // Preallocated: texts are made from the latest day back, and an array filled from its end would
      // turn into a slow dictionary.
      texts: new Array(spec.priceDays),
    });
  }
  for (const a of ASSETS) if (a.follows) series.set(a.asset, series.get(a.follows)!);
  return series;
}

/** The snapshots' and capital snapshots' arrays, checked to be of the header's sizes. */
function snapshotViews(array: ArrayOf, header: Header) {
  const holdings = POSITIONS.length;
  return {
    qu: array<Float64Array>('qu', header.snapshots.length * holdings),
    mv: array<Float64Array>('mv', header.snapshots.length * holdings),
    capital: array<Float64Array>(
      'capital',
      header.capital.reduce((s, [, n]) => s + n, 0),
    ),
  };
}

/** The holdings snapshots and the capital snapshots, by date, as views of their arrays. */
function snapshotsOf(
  { qu, mv, capital: values }: ReturnType<typeof snapshotViews>,
  header: Header,
  spec: SyntheticFundSpec,
  priceCalendar: readonly string[],
) {
  const offset = offsetOf(spec);
  const holdings = POSITIONS.length;
  const snapshots = new Map<string, Snapshot>();
  header.snapshots.forEach(([day, flaky], k) => {
    const from = k * holdings;
    snapshots.set(priceCalendar[day + offset]!, {
      day,
      flaky,
      qu: qu.subarray(from, from + holdings),
      mv: mv.subarray(from, from + holdings),
    });
  });
  const capital = new Map<string, CapitalSnapshot>();
  let from = 0;
  for (const [day, n] of header.capital) {
    capital.set(priceCalendar[day + offset]!, values.subarray(from, from + n));
    from += n;
  }
  return { snapshots, capital };
}

/**
 * Decodes a fund asset into the parts `SyntheticFund` is made from: one JSON.parse and typed-array views
 * over `bytes` (not copied; keep the buffer unchanged). Every array's size is checked here; the snapshots
 * by date are made on first access of `snapshots` or `capital`. The result makes the same rows as simulating `spec`.
 * @param bytes the file
 * @param spec the fund it must hold
 * @param fingerprint the fingerprint the build wrote for this spec and generator
 * @throws {FundAssetError} `format` (not this layout or version, or a big-endian engine), `stale` (another
 *   fingerprint or fund), `shape` (arrays missing or of the wrong length)
 */
export function decodeFund(bytes: ArrayBuffer, spec: SyntheticFundSpec, fingerprint: string): FundParts {
  const { header, at } = readHeader(bytes, spec, fingerprint);
  const array = arrayViews(bytes, header, at);
  const lines = array<Float64Array>('journal.amount').length;
  const column = (name: string) => array<Int32Array>(`journal.${name}`, lines);
  const ledger = {
    entry: column('entry'),
    date: column('date'),
    account: column('account'),
    asset: column('asset'),
    venue: column('venue'),
    memo: column('memo'),
    amount: array<Float64Array>('journal.amount'),
    strings: header.strings,
  };
  // Checked now (a file of the wrong shape is refused at load), made on first use: a request that reads
  // only the dataset head does not build the snapshots' maps.
  const series = priceSeries(array, spec);
  const snapshotArrays = snapshotViews(array, header);
  let byDate: ReturnType<typeof snapshotsOf> | undefined;
  const dated = () => {
    byDate ??= snapshotsOf(snapshotArrays, header, spec, header.calendar);
    return byDate;
  };
  const parts: FundParts = {
    spec,
    calendar: header.calendar,
    series,
    holdings: POSITIONS,
    get snapshots() {
      return dated().snapshots;
    },
    ledger,
    investorIds: header.investorIds,
    get capital() {
      return dated().capital;
    },
    head: header.head,
  };
  return parts;
}

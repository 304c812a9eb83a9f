/**
 * The embedded fund as static assets: the compact results of a simulation ({@link FundParts}) in two binary
 * files, written at build time (scripts/build-fund.ts, `public/_fund/<fundId>.bin` and
 * `public/_fund/<fundId>.capital.bin`) and read by the embedded store through the Worker's `ASSETS` binding
 * (lib/fund/embedded-store.ts), so that no isolate simulates the fund on its first request
 * (docs/fund-data.md#the-embedded-funds). The capital snapshots are nearly half the numbers and only the
 * capital accounts read them, so they are a file of their own, fetched by the first read that asks for them:
 * every other endpoint's first request reads and copies half the bytes.
 *
 * Layout of both files (little-endian; every typed array starts at a multiple of 8 bytes):
 *
 * | bytes        | content                                                                           |
 * |--------------|-----------------------------------------------------------------------------------|
 * | 0–3          | magic `FEFD` (ASCII)                                                              |
 * | 4–7          | format version ({@link FUND_ASSET_FORMAT}), uint32                                |
 * | 8–11         | byte length of the header JSON, uint32                                            |
 * | 12–…         | the header JSON (UTF-8), padded with spaces to a multiple of 8                    |
 * | …            | the typed arrays the header lists in `arrays`, in that order                      |
 *
 * Both headers hold the fingerprint (of the spec and the generator's sources: a file from another build is
 * refused) and the fund id. The fund's holds the small and string parts (dataset head, the journal's string
 * table, each snapshot's day and missed venue) and its bulk numbers as typed arrays decoded as views, never
 * number by number: price units (Float64, integers of 1e-8) and decimals (Uint8) of each asset with its own
 * series; snapshot quantities and market values (Float64, integer lots and cents, holding-major per
 * snapshot); the journal's columns (Int32 entry numbers, calendar indices and string indices, checked at
 * encoding to fit; Float64 cents). The capital file's holds the investor ids in the order the snapshots list
 * them and each capital snapshot's day and length, and its one array the snapshots (Float64 cents,
 * concatenated). Float64 holds every safe integer exactly, so decoding is exact.
 * The calendar (every price date) is stored in the fund's header: JSON.parse makes its 1,100 strings faster than
 * an isolate's first request can compute them. So is the investors' identity set, compiled at build in the
 * form the importer stores a fund's (lib/identity-set-form.ts): loading it instead of compiling it takes
 * about 1 ms off an isolate's first fund request (in workerd, A/B in turn: overview 11.5 → 10.7 ms, capital
 * accounts 13.9 → 12.8). The holdings are derived (lib/fund/synthetic/market.ts), not stored.
 */
import { ASSETS, POSITIONS } from './market.ts';
import {
  CAPITAL_FIELDS,
  type CapitalParts,
  type CapitalSnapshot,
  type DatasetHead,
  type FundParts,
  type PriceSeries,
  type Snapshot,
} from './lazy.ts';
import type { SyntheticFundSpec } from './spec.ts';

/** Version of the layout above; a file of another version is refused. */
export const FUND_ASSET_FORMAT = 4;
/** Where a fund's asset is, under the static assets (`public/`): `/_fund/<fundId>.bin`. */
export const fundAssetPath = (fundId: string): string => `/_fund/${fundId}.bin`;
/** Where a fund's capital snapshots are, under the static assets: `/_fund/<fundId>.capital.bin`. */
export const capitalAssetPath = (fundId: string): string => `/_fund/${fundId}.capital.bin`;

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

/** What both files' headers hold: which build and fund wrote them, and the list of their typed arrays. */
interface ContainerHeader {
  fingerprint: string;
  fundId: string;
  /** The typed arrays after the header, in order: name, element type, element count. */
  arrays: [name: string, type: ArrayType, length: number][];
}

/** The fund file's header JSON. */
interface FundHeader extends ContainerHeader {
  head: DatasetHead;
  strings: string[];
  /** Every price date, oldest first (`spec.priceDays` of them, ending at `spec.endDate`). */
  calendar: string[];
  /** Per snapshot, oldest first: its day index from inception, and the venue its feed missed. */
  snapshots: [day: number, flaky: string | null][];
  /** The investors' identity set compiled at build ({@link FundParts.compiledIdentitySet}), or null. */
  compiledIdentitySet: string | null;
}

/** The capital file's header JSON. */
interface CapitalHeader extends ContainerHeader {
  /** Investor ids in the order the capital snapshots list them. */
  investorIds: string[];
  /** Per capital snapshot, oldest first: its day index from inception, and how many numbers it holds. */
  capital: [day: number, length: number][];
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

/** A typed array to store: name, element type, values. */
type Stored = [name: string, type: ArrayType, values: Float64Array | Int32Array | Uint8Array];

/** One file of the layout above: the header JSON (`fields` and the list of `arrays`), then the arrays. */
function encodeContainer(fields: Omit<FundHeader, 'arrays'> | Omit<CapitalHeader, 'arrays'>, arrays: readonly Stored[]): Uint8Array {
  const header = { ...fields, arrays: arrays.map(([name, type, a]) => [name, type, a.length]) };
  const encoded = new TextEncoder().encode(JSON.stringify(header));
  // Spaces after the JSON, so that the first array starts at a multiple of 8.
  const json = new Uint8Array(encoded.length + ((8 - ((PREFIX + encoded.length) % 8)) % 8)).fill(0x20);
  json.set(encoded);
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

/** A fund's two assets: the fund (everything but the capital snapshots) and its capital snapshots. */
export interface EncodedFund {
  /** `public/_fund/<fundId>.bin` ({@link fundAssetPath}). */
  fund: Uint8Array;
  /** `public/_fund/<fundId>.capital.bin` ({@link capitalAssetPath}). */
  capital: Uint8Array;
}

/**
 * Encodes a simulation's compact results.
 * @param parts what `simulateParts` returned (with its capital snapshots)
 * @param fingerprint identifies the spec and generator (scripts/build-fund.ts); {@link decodeFund} and
 *   {@link decodeCapital} refuse another
 * @returns the two files' bytes
 * @throws {Error} if a number does not fit its array type, a snapshot lists another number of holdings, or
 *   the parts hold no capital snapshots
 */
export function encodeFund(parts: FundParts, fingerprint: string): EncodedFund {
  if (!littleEndian()) throw new Error('fund asset: encoding needs a little-endian platform');
  if (!parts.capital) throw new Error('fund asset: the parts hold no capital snapshots');
  const offset = offsetOf(parts.spec);
  const arrays: Stored[] = [];
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
  const j = parts.ledger;
  for (const column of ['entry', 'date', 'account', 'asset', 'venue', 'memo'] as const) add(`journal.${column}`, 'i32', j[column]);
  add('journal.amount', 'f64', j.amount);
  const id = { fingerprint, fundId: parts.spec.fundId };
  const fund = encodeContainer(
    {
      ...id,
      head: parts.head,
      strings: j.strings,
      calendar: parts.calendar,
      snapshots: snaps.map((s) => [s.day, s.flaky]),
      compiledIdentitySet: parts.compiledIdentitySet,
    },
    arrays,
  );

  const calendarDay = new Map(parts.calendar.map((d, i) => [d, i - offset]));
  const capital = [...parts.capital.snapshots.entries()];
  const values = typed(
    'f64',
    capital.flatMap(([, v]) => Array.from(v)),
    'capital',
  );
  const capitalFile = encodeContainer(
    { ...id, investorIds: parts.capital.investorIds, capital: capital.map(([date, v]) => [calendarDay.get(date)!, v.length]) },
    [['capital', 'f64', values]],
  );
  return { fund, capital: capitalFile };
}

/**
 * A file's header, checked: layout and version, then the fingerprint and fund.
 * @returns the header, and where its arrays start
 * @throws {FundAssetError} `format` (not this layout or version, or a big-endian engine), `stale` (another
 *   fingerprint or fund)
 */
function readHeader<H extends ContainerHeader>(
  bytes: ArrayBuffer,
  spec: SyntheticFundSpec,
  fingerprint: string,
): { header: H; at: number } {
  if (!littleEndian()) throw new FundAssetError('format', 'fund assets are little-endian');
  if (bytes.byteLength < PREFIX) throw new FundAssetError('format', 'too short');
  const view = new DataView(bytes);
  if (view.getUint32(0, true) !== MAGIC) throw new FundAssetError('format', 'not a fund asset');
  if (view.getUint32(4, true) !== FUND_ASSET_FORMAT) throw new FundAssetError('format', `format ${view.getUint32(4, true)}`);
  const length = view.getUint32(8, true);
  if (PREFIX + length > bytes.byteLength) throw new FundAssetError('format', 'truncated header');
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, PREFIX, length))) as H;
  if (header.fingerprint !== fingerprint || header.fundId !== spec.fundId) throw new FundAssetError('stale', 'another spec or generator');
  return { header, at: PREFIX + length };
}

/** An array of the asset by name, of `count` elements when given. */
type ArrayOf = <T extends ArrayLike<number>>(name: string, count?: number) => T;

/**
 * Typed-array views over the asset's arrays (each 8-byte aligned, in the header's order), by name.
 * @throws {FundAssetError} `shape` when one is truncated, or (on access) missing or of another length
 */
function arrayViews(bytes: ArrayBuffer, header: ContainerHeader, start: number): ArrayOf {
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

/** The holdings snapshots by date, as views of their arrays `qu` and `mv` (holding-major per snapshot). */
function snapshotsOf(qu: Float64Array, mv: Float64Array, header: FundHeader, spec: SyntheticFundSpec): Map<string, Snapshot> {
  const offset = offsetOf(spec);
  const holdings = POSITIONS.length;
  const snapshots = new Map<string, Snapshot>();
  header.snapshots.forEach(([day, flaky], k) => {
    const from = k * holdings;
    snapshots.set(header.calendar[day + offset]!, {
      day,
      flaky,
      qu: qu.subarray(from, from + holdings),
      mv: mv.subarray(from, from + holdings),
    });
  });
  return snapshots;
}

/**
 * Decodes a fund asset into the parts `SyntheticFund` is made from, all but the capital snapshots
 * ({@link decodeCapital}): one JSON.parse and typed-array views over `bytes` (not copied; keep the buffer
 * unchanged). Every array's size is checked here; the snapshots by date are made on first access of
 * `snapshots`. With its capital snapshots, the result makes the same rows as simulating `spec`.
 * @param bytes the file ({@link fundAssetPath})
 * @param spec the fund it must hold
 * @param fingerprint the fingerprint the build wrote for this spec and generator
 * @returns the parts, `capital` null
 * @throws {FundAssetError} `format` (not this layout or version, or a big-endian engine), `stale` (another
 *   fingerprint or fund), `shape` (arrays missing or of the wrong length, or a calendar not the spec's)
 */
export function decodeFund(bytes: ArrayBuffer, spec: SyntheticFundSpec, fingerprint: string): FundParts {
  const { header, at } = readHeader<FundHeader>(bytes, spec, fingerprint);
  const c = header.calendar;
  if (!Array.isArray(c) || c.length !== spec.priceDays || c[c.length - 1] !== spec.endDate)
    throw new FundAssetError('shape', "the calendar is not the spec's");
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
  // only the dataset head does not build the snapshots' map.
  const series = priceSeries(array, spec);
  const size = header.snapshots.length * POSITIONS.length;
  const qu = array<Float64Array>('qu', size);
  const mv = array<Float64Array>('mv', size);
  let byDate: Map<string, Snapshot> | undefined;
  return {
    spec,
    calendar: header.calendar,
    series,
    holdings: POSITIONS,
    get snapshots() {
      byDate ??= snapshotsOf(qu, mv, header, spec);
      return byDate;
    },
    ledger,
    capital: null,
    head: header.head,
    compiledIdentitySet: typeof header.compiledIdentitySet === 'string' ? header.compiledIdentitySet : null,
  };
}

/**
 * Decodes a fund's capital asset: the investor order and the capital snapshots by date, as views of `bytes`
 * (not copied; keep the buffer unchanged).
 * @param bytes the file ({@link capitalAssetPath})
 * @param spec the fund it must hold
 * @param fingerprint the fingerprint the build wrote for this spec and generator (the fund file's own)
 * @param calendar the fund's price calendar (its `FundParts.calendar`), which the snapshots' days index
 * @throws {FundAssetError} `format`, `stale` as {@link decodeFund}; `shape` when the array is missing or of
 *   another length, a snapshot is not whole rows of at most every investor, or its day is outside the calendar
 */
export function decodeCapital(bytes: ArrayBuffer, spec: SyntheticFundSpec, fingerprint: string, calendar: readonly string[]): CapitalParts {
  const { header, at } = readHeader<CapitalHeader>(bytes, spec, fingerprint);
  if (!Array.isArray(header.investorIds) || !Array.isArray(header.capital)) throw new FundAssetError('shape', 'not a capital asset');
  const offset = offsetOf(spec);
  const most = header.investorIds.length * CAPITAL_FIELDS;
  const values = arrayViews(
    bytes,
    header,
    at,
  )<Float64Array>(
    'capital',
    header.capital.reduce((sum, [, n]) => sum + n, 0),
  );
  const snapshots = new Map<string, CapitalSnapshot>();
  let from = 0;
  for (const [day, n] of header.capital) {
    // One row of numbers per investor who had joined by then (investors join over time).
    const date = calendar[day + offset];
    if (n % CAPITAL_FIELDS !== 0 || n > most || date === undefined)
      throw new FundAssetError('shape', 'a capital snapshot does not fit the fund');
    snapshots.set(date, values.subarray(from, from + n));
    from += n;
  }
  return { investorIds: header.investorIds, snapshots };
}

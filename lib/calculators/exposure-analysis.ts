/**
 * Exposure analysis of pasted positions (docs/calculators.md).
 *
 * Rows carry Asset, Value (USD; negative = short), Venue and Class. Row level: long = Σ positive values,
 * short = Σ |negative values|, gross = long + short, net = long − short. Concentration is per asset:
 * an asset's exposure is the sum of its rows across venues (case-insensitive asset name), its weight
 * w_i = |exposure_i| / Σ|exposure_j|, HHI = Σ w_i² (Herfindahl–Hirschman index, 1/n ≤ HHI ≤ 1 for n assets
 * with exposure) and effective N = 1/HHI (the number of equal positions with the same concentration).
 * Sources: CFA Program Level II, Portfolio Management (gross and net exposure); U.S. DOJ/FTC Horizontal
 * Merger Guidelines (2023) §2.3 (HHI as the sum of squared shares).
 */
import * as z from 'zod';
import { ValidationError } from '../errors.ts';
import { D, cents, dec, isTie, pct4, roundRatio, share6, sum, type Dec } from '../decimal.ts';
import { parseAmountCell, parseCsv } from '../csv.ts';
import { inputPointer, usd, lazy } from '../validation.ts';
import { defineCalculator } from './definition.ts';

/** Columns of a positions CSV (header matched case-insensitively). */
export const POSITION_COLUMNS = ['Asset', 'Value', 'Venue', 'Class'] as const;

/** One position row: the asset's name, signed USD value, venue and asset class. */
export interface Position {
  asset: string;
  value: Dec;
  venue: string;
  assetClass: string;
}

/** A plain money cell (`-1234.56`: no sign but `-`, no separators, at most 13 integer digits and 2 decimals). */
const PLAIN_CENTS = /^-?\d{1,13}(?:\.\d{1,2})?$/;

/**
 * The rows of a positions CSV as columns (see {@link parsePositions}): `values` the canonical decimal texts of
 * `parseAmountCell`, `cents` the same in integer cents, or null when some Value has more than two decimals.
 */
function readColumns(text: string, field: string) {
  const rows = parseCsv(text, field, { required: ['Asset', 'Value'], optional: ['Venue', 'Class'] });
  const assets = new Array<string>(rows.length);
  const venues = new Array<string>(rows.length);
  const classes = new Array<string>(rows.length);
  const values = new Array<string>(rows.length);
  let cents: number[] | null = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const { cells, line } = rows[i]!;
    const cell = cells.Value ?? '';
    const asset = cells.Asset ?? '';
    // The plain shape is a subset of what parseAmountCell accepts, and gives the same amount.
    const value = PLAIN_CENTS.test(cell) ? cell : parseAmountCell(cell);
    if (value === null || asset === '') {
      throw new ValidationError([
        {
          pointer: inputPointer([field]),
          detail: `line ${line}: ${asset === '' ? 'Asset is blank' : 'Value is not a number within ±1e15'}`,
        },
      ]);
    }
    assets[i] = asset;
    values[i] = value;
    venues[i] = cells.Venue || 'unspecified';
    classes[i] = cells.Class || 'unspecified';
    if (cents !== null) {
      const c = centsOfValue(value);
      if (c === null) cents = null;
      else cents[i] = c;
    }
  }
  return { assets, values, venues, classes, cents };
}

/**
 * Reads a positions CSV (columns of {@link POSITION_COLUMNS}; Venue and Class may be blank).
 * @param field the input field it came from; errors point at it relative to the input (`/positionsCsv`)
 * @throws {ValidationError} a missing column, a blank asset or a Value that is not a number
 * @throws {PayloadTooLargeError} over 10,000 rows
 */
export function parsePositions(text: string, field: string): Position[] {
  const { assets, values, venues, classes } = readColumns(text, field);
  return assets.map((asset, i) => ({ asset, value: dec(values[i]!), venue: venues[i]!, assetClass: classes[i]! }));
}

/** Concentration of a position list, per asset. Empty input gives `null` measures. */
export interface Concentration {
  assets: { asset: string; exposure: Dec; weight: Dec }[];
  hhi: Dec | null;
  effectiveN: Dec | null;
}

/** Per-asset weights, HHI and effective N (see module comment); assets sorted by weight, largest first. */
export function concentration(positions: Position[]): Concentration {
  const byAsset = new Map<string, { asset: string; exposure: Dec }>();
  for (const p of positions) {
    const key = p.asset.toUpperCase();
    const entry = byAsset.get(key) ?? { asset: p.asset, exposure: dec(0) };
    entry.exposure = entry.exposure.plus(p.value);
    byAsset.set(key, entry);
  }
  const denominator = sum([...byAsset.values()].map((a) => a.exposure.abs()));
  const assets = [...byAsset.values()]
    .map((a) => ({ ...a, weight: denominator.isZero() ? dec(0) : a.exposure.abs().div(denominator) }))
    .sort((a, b) => b.weight.comparedTo(a.weight) || a.asset.localeCompare(b.asset));
  if (denominator.isZero()) return { assets, hhi: null, effectiveN: null };
  const hhi = sum(assets.map((a) => a.weight.pow(2)));
  return { assets, hhi, effectiveN: dec(1).div(hhi) };
}

/** Request body. */
export const exposureAnalysisInput = lazy(() =>
  z.strictObject({
    positionsCsv: z
      .string()
      .default('')
      .describe(
        'CSV with header Asset, Value, Venue, Class (case-insensitive; quoted fields and a BOM accepted); Value in USD, negative = short. At most 10,000 rows.',
      ),
    navUsd: usd().nullable().default(null).describe('Fund NAV, USD; null or ≤ 0 leaves the *PctNav figures null.'),
  }),
);

/** Result of the exposure analysis. */
export const exposureAnalysisOutput = lazy(() => {
  const groupRow = z.object({
    key: z.string().describe('Venue or class name, as first seen.'),
    longUsd: z.number(),
    shortUsd: z.number(),
    grossUsd: z.number(),
    netUsd: z.number(),
    shareOfGross: z.number().describe('Group gross / total gross, 6 dp.'),
  });
  return z.object({
    longUsd: z.number().describe('Sum of positive row values, USD.'),
    shortUsd: z.number().describe('Sum of short values as a positive amount, USD.'),
    grossUsd: z.number().describe('long + short, USD.'),
    netUsd: z.number().describe('long − short, USD.'),
    longPctNav: z.number().nullable().describe('long / NAV, percent; null without a positive NAV.'),
    shortPctNav: z.number().nullable().describe('short / NAV, percent; null without a positive NAV.'),
    grossPctNav: z.number().nullable().describe('gross / NAV, percent (leverage); null without a positive NAV.'),
    netPctNav: z.number().nullable().describe('net / NAV, percent; null without a positive NAV.'),
    positionCount: z.number().int().describe('Data rows.'),
    assetCount: z.number().int().describe('Distinct assets (names matched case-insensitively).'),
    largestPosition: z
      .object({
        asset: z.string(),
        valueUsd: z.number().describe('Net exposure of the asset across venues, USD.'),
        weightOfGross: z.number().describe('|exposure| / Σ|asset exposures|, 6 dp.'),
        pctNav: z.number().nullable(),
      })
      .nullable(),
    top5ShareOfGross: z.number().describe('Sum of the five largest asset weights, 6 dp.'),
    hhi: z.number().nullable().describe('Σ w², 6 dp; null with no exposure.'),
    effectiveN: z.number().nullable().describe('1 / HHI, 4 dp; null with no exposure.'),
    byVenue: z.array(groupRow).describe('Rows grouped by venue, largest gross first.'),
    byClass: z.array(groupRow).describe('Rows grouped by asset class, largest gross first.'),
  });
});

function legs(values: Dec[]) {
  const long = sum(values.filter((v) => v.gt(0)));
  const short = sum(values.filter((v) => v.lt(0))).abs();
  return { long, short, gross: long.plus(short), net: long.minus(short) };
}

/** Rows grouped by venue or class (names matched case-insensitively, shown as first seen). */
function groups(positions: Position[], keyOf: (p: Position) => string, totalGross: Dec) {
  const map = new Map<string, { key: string; values: Dec[] }>();
  for (const p of positions) {
    const group = map.get(keyOf(p).toUpperCase());
    if (group) group.values.push(p.value);
    else map.set(keyOf(p).toUpperCase(), { key: keyOf(p), values: [p.value] });
  }
  return [...map.values()]
    .map(({ key, values }) => ({ key, ...legs(values) }))
    .sort((a, b) => b.gross.comparedTo(a.gross) || a.key.localeCompare(b.key))
    .map((g) => ({
      key: g.key,
      longUsd: cents(g.long),
      shortUsd: cents(g.short),
      grossUsd: cents(g.gross),
      netUsd: cents(g.net),
      shareOfGross: totalGross.isZero() ? 0 : share6(g.gross.div(totalGross)),
    }));
}

/**
 * Exposure and concentration of pasted positions. Pure. Computed in integer cents when every Value has at
 * most two decimals and the gross stays within {@link MAX_GROSS_CENTS} (see {@link exposureInCents}), else
 * in decimal.js ({@link analyseExposureInDecimals}); both give the same answer.
 * @throws {ValidationError} for a bad CSV
 * @throws {PayloadTooLargeError} over 10,000 rows
 */
export function analyseExposure(
  inputs: z.output<ReturnType<typeof exposureAnalysisInput>>,
): z.output<ReturnType<typeof exposureAnalysisOutput>> {
  return exposureInCents(readColumns(inputs.positionsCsv, 'positionsCsv'), inputs.navUsd) ?? analyseExposureInDecimals(inputs);
}

/**
 * {@link analyseExposure} in decimal.js at 40 significant digits (any decimal values); exported as the
 * reference of the integer path's property test.
 */
export function analyseExposureInDecimals(
  inputs: z.output<ReturnType<typeof exposureAnalysisInput>>,
): z.output<ReturnType<typeof exposureAnalysisOutput>> {
  const positions = parsePositions(inputs.positionsCsv, 'positionsCsv');
  const navUsd = inputs.navUsd;
  const { long, short, gross, net } = legs(positions.map((p) => p.value));
  const nav = navUsd === null || navUsd <= 0 ? null : dec(navUsd);
  const pctNav = (x: Dec) => (nav === null ? null : pct4(x.div(nav).times(100)));
  const c = concentration(positions);
  const largest = c.hhi === null ? undefined : c.assets[0];
  return {
    longUsd: cents(long),
    shortUsd: cents(short),
    grossUsd: cents(gross),
    netUsd: cents(net),
    longPctNav: pctNav(long),
    shortPctNav: pctNav(short),
    grossPctNav: pctNav(gross),
    netPctNav: pctNav(net),
    positionCount: positions.length,
    assetCount: c.assets.length,
    largestPosition: largest
      ? { asset: largest.asset, valueUsd: cents(largest.exposure), weightOfGross: share6(largest.weight), pctNav: pctNav(largest.exposure) }
      : null,
    top5ShareOfGross: share6(sum(c.assets.slice(0, 5).map((a) => a.weight))),
    hhi: c.hhi === null ? null : share6(c.hhi),
    effectiveN: c.effectiveN === null ? null : c.effectiveN.toDecimalPlaces(4, D.ROUND_HALF_UP).toNumber(),
    byVenue: groups(positions, (p) => p.venue, gross),
    byClass: groups(positions, (p) => p.assetClass, gross),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Integer cents

/**
 * Largest gross (Σ|row values|) the integer path takes, in cents ($100 billion). Every sum is then a safe
 * integer, and the ratios it rounds exactly lie further from a rounding tie than decimal.js's error at 40
 * significant digits, so both paths round alike. With e the asset exposures in cents, D = Σ|e| ≤ 10¹³ and
 * n ≤ 10,000 assets: HHI = Σe²/D² is 0 or at least 1/(2·10⁶·D²) ≥ 5·10⁻³³ from a 6-dp tie, while decimal.js's
 * Σ(round(e/D))² is within (n + 3)·5·10⁻⁴⁰·HHI ≤ 6·10⁻³⁶ of it; effective N = D²/Σe² ≤ n is 0 or at least
 * 1/(2·10⁴·Σe²) ≥ 5·10⁻³¹ from a 4-dp tie, against an error below 5·10⁻³²; a weight |e|/D or the top-5 sum
 * at least 1/(2·10⁶·D) ≥ 5·10⁻²⁰ from a tie. An exact tie of HHI, effective N or the top-5 sum (where
 * decimal.js's rounded terms may land on either side) goes to decimal.js; a single quotient's tie terminates
 * within 40 digits, so decimal.js holds it exactly.
 */
const MAX_GROSS_CENTS = 1e13;

/** Cents of a canonical decimal text with at most two decimals (`-1234.5` → -123450); null otherwise. */
function centsOfValue(text: string): number | null {
  const point = text.indexOf('.');
  if (point !== -1 && text.length - point - 1 > 2) return null;
  const whole = point === -1 ? text : text.slice(0, point);
  const frac = point === -1 ? '' : text.slice(point + 1);
  const sign = whole.startsWith('-') ? -1 : 1;
  const digits = whole.replace(/^[+-]/, '');
  const c = Number(digits === '' ? '0' : digits) * 100 + Number(frac.padEnd(2, '0'));
  return c === 0 ? 0 : sign * c;
}

/** Sorts groups largest `cents` first, then by name (as the decimal path sorts them). */
const byCentsThenName = (a: { cents: number; name: string }, b: { cents: number; name: string }) =>
  b.cents - a.cents || a.name.localeCompare(b.name);

/**
 * Sums signed cents per name, names matched case-insensitively and shown as first seen: first per exact name
 * (one Map lookup a row), then the exact names merged by their upper case in order of first appearance.
 */
function groupCents(names: string[], cents: number[]) {
  const exact = new Map<string, { long: number; short: number }>();
  for (let i = 0; i < names.length; i++) {
    const v = cents[i]!;
    let g = exact.get(names[i]!);
    if (!g) {
      g = { long: 0, short: 0 };
      exact.set(names[i]!, g);
    }
    if (v > 0) g.long += v;
    else g.short -= v;
  }
  const merged = new Map<string, { name: string; long: number; short: number; cents: number }>();
  for (const [name, g] of exact) {
    const key = name.toUpperCase();
    const m = merged.get(key);
    if (m) {
      m.long += g.long;
      m.short += g.short;
      m.cents += g.long + g.short;
    } else merged.set(key, { name, long: g.long, short: g.short, cents: g.long + g.short });
  }
  return [...merged.values()];
}

/**
 * {@link analyseExposure} in integer cents; null when a value has more than two decimals, the gross
 * passes {@link MAX_GROSS_CENTS}, or HHI, effective N or the top-5 sum is an exact rounding tie. The
 * percent-of-NAV figures (five divisions) stay in decimal.js, since NAV may be any JSON number.
 */
function exposureInCents(
  columns: ReturnType<typeof readColumns>,
  navUsd: number | null,
): z.output<ReturnType<typeof exposureAnalysisOutput>> | null {
  const { cents: values } = columns;
  if (values === null) return null;
  let long = 0;
  let short = 0;
  for (let i = 0; i < values.length; i++) {
    const c = values[i]!;
    if (c > 0) long += c;
    else short -= c;
    if (long + short > MAX_GROSS_CENTS) return null;
  }
  const gross = long + short;
  const net = long - short;
  // Per asset: exposure e = long − short across venues; ordered by |e| (weights |e|/Σ|e| order as |e| does:
  // 40-digit quotients of distinct cents stay distinct), then by name.
  const assets = groupCents(columns.assets, values).map((a) => ({
    name: a.name,
    exposure: a.long - a.short,
    cents: Math.abs(a.long - a.short),
  }));
  let denominator = 0;
  let squares = 0n;
  for (const a of assets) {
    denominator += a.cents;
    squares += BigInt(a.exposure) * BigInt(a.exposure);
  }
  assets.sort(byCentsThenName);
  const D2 = BigInt(denominator) * BigInt(denominator);
  let hhi: number | null = null;
  let effectiveN: number | null = null;
  let top5 = 0;
  if (denominator !== 0) {
    let top = 0;
    for (const a of assets.slice(0, 5)) top += a.cents;
    if (isTie(squares, D2, 6n) || isTie(D2, squares, 4n) || isTie(BigInt(top), BigInt(denominator), 6n)) return null;
    hhi = roundRatio(squares, D2, 6n);
    effectiveN = roundRatio(D2, squares, 4n);
    top5 = roundRatio(BigInt(top), BigInt(denominator), 6n);
  }
  const nav = navUsd === null || navUsd <= 0 ? null : dec(navUsd);
  const pctNav = (cents: number) => (nav === null ? null : pct4(dec(cents).div(100).div(nav).times(100)));
  const largest = denominator === 0 ? undefined : assets[0];
  const grouped = (names: string[]) =>
    groupCents(names, values)
      .sort(byCentsThenName)
      .map((g) => ({
        key: g.name,
        longUsd: g.long / 100,
        shortUsd: g.short / 100,
        grossUsd: g.cents / 100,
        netUsd: (g.long - g.short) / 100,
        shareOfGross: gross === 0 ? 0 : roundRatio(BigInt(g.cents), BigInt(gross), 6n),
      }));
  return {
    longUsd: long / 100,
    shortUsd: short / 100,
    grossUsd: gross / 100,
    netUsd: net / 100,
    longPctNav: pctNav(long),
    shortPctNav: pctNav(short),
    grossPctNav: pctNav(gross),
    netPctNav: pctNav(net),
    positionCount: values.length,
    assetCount: assets.length,
    largestPosition: largest
      ? {
          asset: largest.name,
          valueUsd: largest.exposure / 100,
          weightOfGross: roundRatio(BigInt(largest.cents), BigInt(denominator), 6n),
          pctNav: pctNav(largest.exposure),
        }
      : null,
    top5ShareOfGross: top5,
    hhi,
    effectiveN,
    byVenue: grouped(columns.venues),
    byClass: grouped(columns.classes),
  };
}

/** The exposure analysis (REST, and its MCP tool). */
export const exposureAnalysis = defineCalculator({
  slug: 'exposure-analysis',
  title: 'Exposure analysis',
  description:
    'Gross, net, long and short exposure of pasted positions, with concentration (HHI, effective N, top 5) by asset, venue and class.',
  input: exposureAnalysisInput,
  output: exposureAnalysisOutput,
  example: {
    positionsCsv: 'Asset,Value,Venue,Class\nBTC,4000000,Coinbase,Crypto\nETH,-1500000,Binance,Crypto\nAAPL,2500000,IBKR,Equity',
    navUsd: 10_000_000,
  },
  run: analyseExposure,
});

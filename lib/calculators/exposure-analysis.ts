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
import { D, cents, dec, pct4, share6, sum, type Dec } from '../decimal.ts';
import { parseAmountCell, parseCsv } from '../csv.ts';
import { inputPointer, usd } from '../validation.ts';
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

/**
 * Reads a positions CSV (columns of {@link POSITION_COLUMNS}; Venue and Class may be blank).
 * @param field the input field it came from; errors point at it relative to the input (`/positionsCsv`)
 * @throws {ValidationError} a missing column, a blank asset or a Value that is not a number
 * @throws {PayloadTooLargeError} over 10,000 rows
 */
export function parsePositions(text: string, field: string): Position[] {
  return parseCsv(text, field, { required: ['Asset', 'Value'], optional: ['Venue', 'Class'] }).map((row) => {
    const value = parseAmountCell(row.cells.Value ?? '');
    const asset = row.cells.Asset ?? '';
    if (value === null || asset === '') {
      throw new ValidationError([
        { pointer: inputPointer([field]), detail: `line ${row.line}: ${asset === '' ? 'Asset is blank' : 'Value is not a number within ±1e15'}` },
      ]);
    }
    return { asset, value: dec(value), venue: row.cells.Venue || 'unspecified', assetClass: row.cells.Class || 'unspecified' };
  });
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

const groupRow = z.object({
  key: z.string().describe('Venue or class name, as first seen.'),
  longUsd: z.number(),
  shortUsd: z.number(),
  grossUsd: z.number(),
  netUsd: z.number(),
  shareOfGross: z.number().describe('Group gross / total gross, 6 dp.'),
});

/** Request body. */
export const exposureAnalysisInput = z.strictObject({
  positionsCsv: z
    .string()
    .default('')
    .describe('CSV with header Asset, Value, Venue, Class (case-insensitive; quoted fields and a BOM accepted); Value in USD, negative = short. At most 10,000 rows.'),
  navUsd: usd().nullable().default(null).describe('Fund NAV, USD; null or ≤ 0 leaves the *PctNav figures null.'),
});

/** Result of the exposure analysis. */
export const exposureAnalysisOutput = z.object({
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

/** Exposure and concentration of pasted positions. Pure. @throws {ValidationError} for a bad CSV. */
export function analyseExposure(inputs: z.output<typeof exposureAnalysisInput>): z.output<typeof exposureAnalysisOutput> {
  const positions = parsePositions(inputs.positionsCsv, 'positionsCsv');
  const { long, short, gross, net } = legs(positions.map((p) => p.value));
  const nav = inputs.navUsd === null || inputs.navUsd <= 0 ? null : dec(inputs.navUsd);
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

/** The exposure analysis, `POST /api/v1/calc/exposure-analysis`. */
export const exposureAnalysis = defineCalculator({
  slug: 'exposure-analysis',
  title: 'Exposure analysis',
  description: 'Gross, net, long and short exposure of pasted positions, with concentration (HHI, effective N, top 5) by asset, venue and class.',
  input: exposureAnalysisInput,
  output: exposureAnalysisOutput,
  example: {
    positionsCsv: 'Asset,Value,Venue,Class\nBTC,4000000,Coinbase,Crypto\nETH,-1500000,Binance,Crypto\nAAPL,2500000,IBKR,Equity',
    navUsd: 10_000_000,
  },
  run: analyseExposure,
});

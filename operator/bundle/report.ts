/**
 * The reconciliation report of an import (docs/import.md#the-report): per run the shadow NAV, the
 * administrator's NAV, their difference in basis points and matched/break; and, when the bundle carries the
 * administrator's positions, the position breaks (asset, venue, quantity and market-value differences,
 * ours − the administrator's). Printed for a person and written as JSON (`--report <file>`) for a CI job or
 * a spreadsheet. Neither ever holds a personal value: errors and changed rows name columns, never values.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ColumnMap, readCells } from './csv.ts';
import { formulaWarning } from './formulas.ts';
import { ADMIN_POSITIONS, bundleFile } from './format.ts';
import * as X from '../../lib/decimal.ts';
import type { ImportResult } from './load.ts';

/** A position on which the fund and its administrator disagree on one run's date (null: that side has none). */
export interface PositionBreak {
  navDate: string;
  asset: string;
  venue: string;
  quantity: string | null;
  adminQuantity: string | null;
  quantityDifference: string | null;
  marketValue: string | null;
  adminMarketValue: string | null;
  marketValueDifference: string | null;
}

type Side = { quantity: string; marketValue: string };

/** Groups a date-ordered cell stream by date. */
async function* byDate(
  cells: AsyncGenerator<(string | undefined)[]>,
  pick: (c: (string | undefined)[]) => { date: string; key: string; side: Side } | null,
): AsyncGenerator<{ date: string; rows: Map<string, Side> }> {
  let date: string | null = null;
  let rows = new Map<string, Side>();
  for await (const c of cells) {
    const row = pick(c);
    if (!row) continue;
    if (row.date !== date) {
      if (date !== null) yield { date, rows };
      date = row.date;
      rows = new Map();
    }
    rows.set(row.key, row.side);
  }
  if (date !== null) yield { date, rows };
}

/**
 * Compares the live positions with the administrator's, date by date, walking both files side by side
 * (both are ordered by date, so one date of each is in memory at a time).
 * @returns the breaks in date, asset, venue order; empty without `admin_positions.csv`
 */
export async function positionBreaks(dir: string, map: ColumnMap = {}): Promise<PositionBreak[]> {
  if (!existsSync(join(dir, ADMIN_POSITIONS.file))) return [];
  const P = bundleFile('positions');
  const at = (name: string, spec = P) => spec.columns.findIndex((c) => c.name === name);
  const p = { date: at('nav_date'), asset: at('asset'), venue: at('venue'), book: at('book'), q: at('quantity'), mv: at('market_value') };
  const A = ADMIN_POSITIONS;
  const a = { date: at('nav_date', A), asset: at('asset', A), venue: at('venue', A), q: at('quantity', A), mv: at('market_value', A) };
  const ours = byDate(readCells(join(dir, P.file), P, map), (c) =>
    c[p.book] === 'live'
      ? { date: c[p.date]!, key: `${c[p.asset]}\u0000${c[p.venue]}`, side: { quantity: c[p.q]!, marketValue: c[p.mv]! } }
      : null,
  );
  const theirs = byDate(readCells(join(dir, A.file), A, map), (c) => ({
    date: c[a.date]!,
    key: `${c[a.asset]}\u0000${c[a.venue]}`,
    side: { quantity: c[a.q]!, marketValue: c[a.mv]! },
  }));
  const breaks: PositionBreak[] = [];
  let mine = await ours.next();
  for await (const admin of theirs) {
    while (!mine.done && mine.value.date < admin.date) mine = await ours.next();
    const held = !mine.done && mine.value.date === admin.date ? mine.value.rows : new Map<string, Side>();
    const keys = [...new Set([...held.keys(), ...admin.rows.keys()])].sort();
    for (const key of keys) {
      const o = held.get(key);
      const t = admin.rows.get(key);
      const diff = (x?: string, y?: string) => (x === undefined || y === undefined ? null : X.text(X.subtract(X.exact(x), X.exact(y))));
      const qd = diff(o?.quantity, t?.quantity);
      const mvd = diff(o?.marketValue, t?.marketValue);
      const zero = (d: string | null) => d !== null && X.exact(d).units === 0n;
      if (zero(qd) && zero(mvd)) continue;
      const [asset, venue] = key.split('\u0000') as [string, string];
      breaks.push({
        navDate: admin.date,
        asset,
        venue,
        quantity: o?.quantity ?? null,
        adminQuantity: t?.quantity ?? null,
        quantityDifference: qd,
        marketValue: o?.marketValue ?? null,
        adminMarketValue: t?.marketValue ?? null,
        marketValueDifference: mvd,
      });
    }
  }
  return breaks;
}

/** The JSON report (`--report <file>`). */
export function reportJson(
  result: ImportResult,
  context: { fundId: string; mode: string; dryRun: boolean; breaks: PositionBreak[]; seconds: number; peakRssMiB: number },
): object {
  const v = result.validation;
  return {
    fundId: context.fundId,
    mode: context.mode,
    dryRun: context.dryRun,
    outcome: result.outcome,
    files: v.files,
    errorCount: v.errorCount,
    errors: v.errors,
    // Text cells a spreadsheet would run as formulas, per file: where the first is, never its value.
    formulaCells: v.formulas,
    storedThrough: result.storedThrough,
    newRuns: result.newRuns.length,
    restatements: result.restatements.map((r) => ({ navDate: r.navDate, tables: r.tables, old: figures(r.old), new: figures(r.new) })),
    changedRows: result.changedRows,
    settledExpenses: result.settledExpenses,
    written: result.written,
    reconciliation: {
      toleranceBps: v.toleranceBps,
      runs: v.runs.map((r) => ({
        navDate: r.navDate,
        status: r.status,
        shadowNav: r.shadowNav,
        adminNav: r.adminNav,
        differenceBps: r.differenceBps,
        reconStatus: r.reconStatus,
      })),
      breaks: v.runs.filter((r) => r.reconStatus === 'break').length,
      positionBreaks: context.breaks,
    },
    stats: { seconds: Number(context.seconds.toFixed(2)), rows: v.tableRows, peakRssMiB: context.peakRssMiB },
  };
}

function figures(r: ImportResult['restatements'][number]['old']) {
  return r && { status: r.status, shadowNav: r.shadowNav, adminNav: r.adminNav, reconStatus: r.reconStatus, netFlows: r.netFlows };
}

const pad = (s: string, n: number) => s.padStart(n);

/** `n` and the noun, plural unless `n` is 1 (`1 run`, `2 runs`, `0 breaks`). */
export const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;

/** Runs printed one by one up to this many; beyond, the breaks and the latest {@link TAIL} (the JSON has all). */
export const PRINT_ALL_RUNS = 60;
const TAIL = 30;

/** The report for a person, as lines. */
export function reportText(
  result: ImportResult,
  breaks: readonly {
    navDate: string;
    asset: string;
    venue: string;
    quantityDifference: string | null;
    marketValueDifference: string | null;
  }[],
): string[] {
  const v = result.validation;
  const lines: string[] = v.formulas.map(formulaWarning);
  if (v.errorCount > 0) {
    lines.push(`${count(v.errorCount, 'error')}${v.errorCount > v.errors.length ? ` (the first ${v.errors.length} shown)` : ''}:`);
    for (const e of v.errors) lines.push(`  ${e.file}:${e.line} ${e.column} [${e.rule}] ${e.message}`);
    return lines;
  }
  const runs = v.runs;
  const shown = runs.length <= PRINT_ALL_RUNS ? runs : runs.filter((r, i) => r.reconStatus === 'break' || i >= runs.length - TAIL);
  lines.push(
    `Reconciliation (tolerance ${v.toleranceBps} bps): ${count(runs.length, 'run')}, ${runs.filter((r) => r.reconStatus === 'matched').length} matched, ${count(runs.filter((r) => r.reconStatus === 'break').length, 'break')}${shown.length < runs.length ? `; shown: the breaks and the latest ${TAIL} (--report has every run)` : ''}`,
  );
  if (shown.length > 0) {
    lines.push(
      `  ${'date'.padEnd(10)}  ${'status'.padEnd(8)}  ${pad('shadow NAV', 18)}  ${pad('admin NAV', 18)}  ${pad('diff bps', 9)}  recon`,
    );
    for (const r of shown)
      lines.push(
        `  ${r.navDate}  ${r.status.padEnd(8)}  ${pad(r.shadowNav ?? '-', 18)}  ${pad(r.adminNav ?? '-', 18)}  ${pad(r.differenceBps ?? '-', 9)}  ${r.reconStatus ?? '-'}`,
      );
  }
  if (breaks.length > 0) {
    lines.push(
      `Position breaks against the administrator: ${breaks.length}${breaks.length > 50 ? ' (the first 50 shown; --report has all)' : ''}`,
    );
    lines.push(
      `  ${'date'.padEnd(10)}  ${'asset'.padEnd(10)}  ${'venue'.padEnd(20)}  ${pad('quantity diff', 20)}  ${pad('value diff', 16)}`,
    );
    for (const b of breaks.slice(0, 50))
      lines.push(
        `  ${b.navDate}  ${b.asset.padEnd(10)}  ${b.venue.padEnd(20)}  ${pad(b.quantityDifference ?? 'missing', 20)}  ${pad(b.marketValueDifference ?? 'missing', 16)}`,
      );
  }
  if (result.restatements.length > 0) {
    lines.push(`Restated runs: ${result.restatements.length}`);
    for (const r of result.restatements) {
      const f = (x: typeof r.old) =>
        x ? `${x.status} shadow ${x.shadowNav ?? '-'} admin ${x.adminNav ?? '-'} ${x.reconStatus ?? '-'} flows ${x.netFlows}` : 'none';
      lines.push(`  ${r.navDate} [${r.tables.join(', ')}]`, `    old: ${f(r.old)}`, `    new: ${f(r.new)}`);
    }
  }
  for (const c of result.changedRows)
    lines.push(`Changed: ${c.file}:${c.line} ${c.key === null ? '' : `(${c.key}) `}columns ${c.columns.join(', ')}`);
  return lines;
}

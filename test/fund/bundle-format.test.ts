/**
 * The bundle format (operator/bundle/format.ts, docs/import.md) and its exact decimals
 * (lib/decimal.ts): the doc's column tables name every column of every file;
 * the files are derived from the table descriptors; the decimal grammar, and quantity × price to the cent
 * and the difference in basis points against decimal.js (fast-check); CSV writing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type BundleError, csvLine, scanFile } from '../../operator/bundle/csv.ts';
import * as X from '../../lib/decimal.ts';
import { BUNDLE_FILES, bundleFile, columnTables } from '../../operator/bundle/format.ts';
import { pgConnectionString } from '../../operator/bundle/load.ts';
import { differenceBps, isDate } from '../../operator/bundle/validate.ts';
import { FUND_KEY, TABLES } from '../../lib/fund/tables.ts';

const { D } = X;

describe('docs/import.md (its column tables are held current by test/doc-sections.test.ts)', () => {
  it('names every column of every file, with its file heading', () => {
    const tables = columnTables();
    for (const f of BUNDLE_FILES) {
      const section = tables.split(`#### \`${f.file}\``)[1]!.split('####')[0]!;
      for (const c of f.columns) expect(section, `${f.file} ${c.name}`).toContain(`| \`${c.name}\` |`);
    }
  });
});

describe('the bundle files', () => {
  it('are one per stored table, with every column of its descriptor except fund_id (outside funds.csv)', () => {
    expect(BUNDLE_FILES.filter((f) => f.table).map((f) => f.file)).toEqual(TABLES.map((t) => `${t.table}.csv`));
    for (const f of BUNDLE_FILES) {
      if (!f.table) continue;
      const expected = Object.values({ ...f.table.columns, ...f.table.unselected })
        .map((c) => c.column)
        .filter((c) => c !== FUND_KEY || f.table!.table === 'funds');
      expect(f.columns.map((c) => c.name).sort()).toEqual(expected.sort());
    }
  });
});

const decimalText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 8 }))
  .map(([neg, units, scale]) => X.text({ units: neg ? -units : units, scale }));

describe('exact decimals', () => {
  it('accepts decimal text and nothing else', () => {
    for (const ok of ['0', '-0.00', '12', '12.50', '-0.000001', '1234567890.12345678']) expect(X.isDecimalText(ok), ok).toBe(true);
    for (const bad of ['', '-', '+1', '01', '1.', '.5', '1e5', '1,000.00', ' 1', '1 ', 'NaN', '--1', '1.2.3', '٣', '9'.repeat(41)])
      expect(X.isDecimalText(bad), bad).toBe(false);
  });

  it('refuses text past 40 characters before scanning it, and a bad last character of a long one', () => {
    expect(X.isDecimalText(`${'1'.repeat(39)}x`)).toBe(false);
    expect(X.isDecimalText('1'.repeat(1 << 20))).toBe(false);
    expect(X.isDecimalText('1'.repeat(40))).toBe(true);
  });

  it('keeps the text as written through exact() and text()', () => {
    fc.assert(fc.property(decimalText, (t) => X.text(X.exact(t)) === t));
  });

  it('quantity × price rounded half-up to the cent equals decimal.js', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (q, p) => {
        const ours = X.text(X.multiplyRounded(X.exact(q), X.exact(p), 2));
        const theirs = new D(q).times(p).toDecimalPlaces(2, D.ROUND_HALF_UP);
        return new D(ours).equals(theirs);
      }),
    );
    expect(X.text(X.multiplyRounded(X.exact('0.5'), X.exact('0.01'), 2))).toBe('0.01');
    expect(X.text(X.multiplyRounded(X.exact('-0.5'), X.exact('0.01'), 2))).toBe('-0.01');
  });

  it('the difference in basis points equals decimal.js (2 dp, half-up), as the NAV history reports it', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (s, a) => {
        fc.pre(!new D(a).isZero());
        const ours = differenceBps(X.subtract(X.exact(s), X.exact(a)), X.exact(a));
        const theirs = new D(s).minus(a).div(a).times(10_000).toDecimalPlaces(2, D.ROUND_HALF_UP);
        return new D(ours).equals(theirs);
      }),
    );
    expect(differenceBps(X.subtract(X.exact('66971166.46'), X.exact('66789694.87')), X.exact('66789694.87'))).toBe('27.17');
  });

  it('within tolerance: |difference| × 10,000 ≤ tolerance × |administrator|, at the boundary', () => {
    expect(X.withinBps(X.exact('5.00'), X.exact('10000.00'), X.exact('5'))).toBe(true);
    expect(X.withinBps(X.exact('5.01'), X.exact('10000.00'), X.exact('5'))).toBe(false);
    expect(X.withinBps(X.exact('-5.00'), X.exact('10000.00'), X.exact('5.00'))).toBe(true);
  });

  it('gives negative zero the sign PostgreSQL gives it (none)', () => {
    expect(X.canonical('-0.00')).toBe('0.00');
    expect(X.canonical('-0.01')).toBe('-0.01');
  });
});

describe('reading a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fund-edge-csv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const spec = bundleFile('share_classes');
  const scan = async (bytes: Buffer) => {
    writeFileSync(join(dir, 'f.csv'), bytes);
    const errors: BundleError[] = [];
    const names: string[] = [];
    const result = await scanFile(
      join(dir, 'f.csv'),
      spec,
      {},
      (e) => errors.push(e),
      (cells) => void names.push(cells[1]!),
    );
    return { errors, names, result };
  };

  it('keeps a character split across two chunks whole (files are read in 256 KiB chunks)', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => `C${i},Ünïcödé ✓ 𝄞 ${i}`);
    const bytes = Buffer.from(`share_class_id,name\r\n${rows.join('\r\n')}\r\n`);
    const boundaries = Array.from({ length: Math.floor(bytes.length / 262_144) }, (_, k) => (k + 1) * 262_144);
    expect(boundaries.some((b) => (bytes[b]! & 0xc0) === 0x80)).toBe(true); // some chunk does start mid-character
    const { errors, names } = await scan(bytes);
    expect(errors).toEqual([]);
    expect(names).toHaveLength(40_000);
    expect(names.every((n, i) => n === `Ünïcödé ✓ 𝄞 ${i}`)).toBe(true);
  });

  it('reports invalid UTF-8 at its line, and a sequence cut off at the end of the file', async () => {
    const bad = await scan(Buffer.concat([Buffer.from('share_class_id,name\r\nA,x\r\nB,'), Buffer.from([0xff]), Buffer.from('\r\n')]));
    expect(bad.errors).toEqual([expect.objectContaining({ line: 3, rule: 'encoding' })]);
    const cut = await scan(Buffer.concat([Buffer.from('share_class_id,name\r\nA,'), Buffer.from([0xe2, 0x9c])]));
    expect(cut.errors).toEqual([expect.objectContaining({ line: 2, rule: 'encoding' })]);
  });
});

describe('CSV', () => {
  it('quotes only fields that need it, doubles quotes, ends lines with CRLF, writes NULL as empty', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', null, 'x\ny', ''])).toBe('a,"b,c","say ""hi""",,"x\ny",\r\n');
  });

  it('checks calendar dates', () => {
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate('2023-02-29')).toBe(false);
    expect(isDate('2026-1-01')).toBe(false);
  });
});

describe('the connection string node-postgres is given', () => {
  it("turns Neon's sslmode=require into verify-full (what node-postgres does with it), and leaves others alone", () => {
    expect(pgConnectionString('postgres://u:p@ep-x.neon.tech/neondb?sslmode=require&channel_binding=require')).toBe(
      'postgres://u:p@ep-x.neon.tech/neondb?sslmode=verify-full&channel_binding=require',
    );
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/fund_edge',
      'postgres://h/db?sslmode=disable',
      'postgres://h/db?sslmode=require&uselibpqcompat=true',
    ])
      expect(pgConnectionString(url)).toBe(url);
  });
});

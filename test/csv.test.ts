/**
 * parseCsv and parseAmountCell (lib/csv.ts): RFC 4180 quoting, BOM, CRLF, blank lines, column checks,
 * the 10,000-row cap and money cells.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_CSV_ROWS, parseAmountCell, parseCsv } from '../lib/csv.ts';
import { PayloadTooLargeError, ValidationError } from '../lib/errors.ts';
import { thrown } from './support/thrown.ts';

const AB = { required: ['A', 'B'] } as const;

describe('parseCsv', () => {
  it('returns no rows for empty text, whitespace, a BOM alone, or a header alone', () => {
    expect(parseCsv('', 'f', AB)).toEqual([]);
    expect(parseCsv('  \n \r\n', 'f', AB)).toEqual([]);
    expect(parseCsv('\uFEFF', 'f', AB)).toEqual([]);
    expect(parseCsv('A,B', 'f', AB)).toEqual([]);
    expect(parseCsv('A,B\n', 'f', AB)).toEqual([]);
  });

  it('reads plain rows with their 1-based source line', () => {
    expect(parseCsv('A,B\n1,2\n3,4', 'f', AB)).toEqual([
      { line: 2, cells: { A: '1', B: '2' } },
      { line: 3, cells: { A: '3', B: '4' } },
    ]);
  });

  it('reads quoted fields with embedded commas, newlines and doubled quotes', () => {
    const rows = parseCsv('A,B\n"1,234.50","he said ""hi""\nthen left"\n5,6\n', 'f', AB);
    expect(rows.map((r) => r.cells)).toEqual([
      { A: '1,234.50', B: 'he said "hi"\nthen left' },
      { A: '5', B: '6' },
    ]);
    // The embedded newline counts as a source line: the row after the two-line record is on line 4.
    expect(rows[1]!.line).toBe(4);
  });

  it('accepts a UTF-8 BOM and CRLF line ends', () => {
    const rows = parseCsv('\uFEFFA,B\r\n1,2\r\n3,4\r\n', 'f', AB);
    expect(rows).toEqual([
      { line: 2, cells: { A: '1', B: '2' } },
      { line: 3, cells: { A: '3', B: '4' } },
    ]);
    // The BOM does not stick to the first header name (else A would be "missing").
    expect(Object.keys(rows[0]!.cells)).toEqual(['A', 'B']);
  });

  it('skips blank and whitespace-only lines but keeps counting source lines', () => {
    const rows = parseCsv('A,B\n1,2\n\n   \n3,4\n\n', 'f', AB);
    expect(rows).toEqual([
      { line: 2, cells: { A: '1', B: '2' } },
      { line: 5, cells: { A: '3', B: '4' } },
    ]);
    // Blank lines before the header too: the first non-empty line is the header.
    expect(parseCsv('\n\nA,B\n1,2\n', 'f', AB)).toEqual([{ line: 4, cells: { A: '1', B: '2' } }]);
  });

  it('matches headers case-insensitively and ignoring surrounding spaces; trims cells', () => {
    const rows = parseCsv(' a ,  b\n 1 , 2 \n', 'f', AB);
    expect(rows).toEqual([{ line: 2, cells: { A: '1', B: '2' } }]);
  });

  it('keeps only known columns, under their canonical names, whatever the header order', () => {
    const rows = parseCsv('Extra,b,a\nx,2,1\n', 'f', AB);
    expect(rows).toEqual([{ line: 2, cells: { A: '1', B: '2' } }]);
  });

  it('uses the first of duplicate headers (case-insensitive duplicates included)', () => {
    expect(parseCsv('A,a,B\nfirst,second,2\n', 'f', AB)).toEqual([{ line: 2, cells: { A: 'first', B: '2' } }]);
  });

  it('requires required columns and lets optional ones be absent', () => {
    const spec = { required: ['A'], optional: ['B', 'C'] };
    // Optional B present, optional C absent: C is simply not in the cells.
    expect(parseCsv('a,b\n1,2\n', 'f', spec)).toEqual([{ line: 2, cells: { A: '1', B: '2' } }]);
    // Required A absent: one error per missing required column, at the field's pointer.
    const err = thrown(() => parseCsv('B,C\n1,2\n', 'positionsCsv', spec));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).status).toBe(400);
    expect((err as ValidationError).errors).toEqual([{ pointer: '/positionsCsv', detail: 'header lacks the column A' }]);
  });

  it('lists every missing required column', () => {
    const err = thrown(() => parseCsv('A\n1\n', 'f', { required: ['A', 'B', 'C'] })) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.errors).toEqual([
      { pointer: '/f', detail: 'header lacks the column B' },
      { pointer: '/f', detail: 'header lacks the column C' },
    ]);
  });

  it('rejects a row with too few or too many cells, naming its line', () => {
    for (const [text, line] of [
      ['A,B\n1,2\n3\n', 3],
      ['A,B\n1,2\n3,4,5\n', 3],
      ['A,B\n1,"x\ny"\n3\n', 4],
      ['A,B\r\n\r\n1,2\r\n3,4\r\n5\r\n', 5],
    ] as const) {
      const err = thrown(() => parseCsv(text, 'positionsCsv', AB)) as ValidationError;
      expect(err, text).toBeInstanceOf(ValidationError);
      expect(err.errors).toEqual([{ pointer: '/positionsCsv', detail: `line ${line} has a different number of cells than the header` }]);
    }
  });

  it('rejects bad quoting with a ValidationError that does not echo the cell', () => {
    for (const text of ['A,B\n1,"secret-value\n', 'A,B\n1,2"secret-value"\n']) {
      const err = thrown(() => parseCsv(text, 'f', AB)) as ValidationError;
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.errors).toHaveLength(1);
      expect(err.errors![0]!.pointer).toBe('/f');
      expect(err.errors![0]!.detail).toMatch(/is not valid CSV \(check the quotes\)$/);
      expect(JSON.stringify(err.errors)).not.toContain('secret');
    }
  });

  it(`accepts exactly ${MAX_CSV_ROWS} data rows and rejects ${MAX_CSV_ROWS + 1} with 413`, () => {
    expect(MAX_CSV_ROWS).toBe(10_000);
    const ok = parseCsv(`A,B\n${'1,2\n'.repeat(10_000)}`, 'f', AB);
    expect(ok).toHaveLength(10_000);
    expect(ok[9_999]).toEqual({ line: 10_001, cells: { A: '1', B: '2' } });
    const err = thrown(() => parseCsv(`A,B\n${'1,2\n'.repeat(10_001)}`, 'positionsCsv', AB)) as PayloadTooLargeError;
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.status).toBe(413);
    expect(err.code).toBe('payload_too_large');
    expect(err.errors).toEqual([{ pointer: '/positionsCsv', detail: 'must hold at most 10000 data rows' }]);
  });

  it('does not count blank lines against the row cap', () => {
    const text = `A,B\n${'1,2\n\n'.repeat(10_000)}`;
    expect(parseCsv(text, 'f', AB)).toHaveLength(10_000);
  });

  it('round-trips arbitrary cells written with RFC 4180 quoting (property)', () => {
    // Cells without leading/trailing spaces (cells are trimmed) and non-empty (an all-empty row of one
    // column would be a blank line).
    const cell = fc
      .string({ unit: fc.constantFrom('a', 'Z', '1', ',', '"', '\n', ' ', '$', '(', ')', '.'), minLength: 1, maxLength: 8 })
      .filter((s) => s.trim() === s && s !== '');
    const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 20 }), fc.boolean(), (rows, crlf) => {
        const eol = crlf ? '\r\n' : '\n';
        const text = ['A,B', ...rows.map(([a, b]) => `${quote(a)},${quote(b)}`)].join(eol) + eol;
        const parsed = parseCsv(text, 'f', AB);
        expect(parsed.map((r) => [r.cells.A, r.cells.B])).toEqual(rows);
        // Lines strictly increase.
        for (let i = 1; i < parsed.length; i++) expect(parsed[i]!.line).toBeGreaterThan(parsed[i - 1]!.line);
      }),
      { numRuns: 150 },
    );
  });
});

describe('parseAmountCell', () => {
  it.each([
    ['1,234.50', '1234.50'],
    ['$100', '100'],
    ['(1,234.50)', '-1234.50'],
    ['(500)', '-500'],
    ['-5', '-5'],
    ['+5', '+5'],
    ['.5', '.5'],
    ['-.5', '-.5'],
    ['0', '0'],
    ['-$5', '-5'],
    ['($1,000)', '-1000'],
    [' 7 ', '7'],
    ['1,234,567.891', '1234567.891'],
    ['1234567', '1234567'],
  ])('accepts %j as %j', (cell, expected) => {
    expect(parseAmountCell(cell)).toBe(expected);
  });

  it.each([
    '1,23',
    '12,34,567',
    '1,2345',
    'abc',
    '',
    '   ',
    '12$3',
    '(-5)',
    '(+5)',
    '()',
    '1000000000000000.01',
    '-9999999999999999',
    '1'.repeat(400),
    '1.',
    '1e5',
    '--5',
    '5-',
    '1 000',
    '$',
    '1.2.3',
    'NaN',
    'Infinity',
  ])('rejects %j', (cell) => {
    expect(parseAmountCell(cell)).toBeNull();
  });

  it('reads any integer-cent amount written plain, with separators, with $, or as an accounting negative (property)', () => {
    const withCommas = (n: bigint) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.constantFrom('plain', 'commas', 'dollar', 'paren'), (c, style) => {
        const whole = c / 100n;
        const frac = (c % 100n).toString().padStart(2, '0');
        const plain = `${whole}.${frac}`;
        const text =
          style === 'plain'
            ? plain
            : style === 'commas'
              ? `${withCommas(whole)}.${frac}`
              : style === 'dollar'
                ? `$${plain}`
                : `(${withCommas(whole)}.${frac})`;
        const expected = style === 'paren' ? `-${plain}` : plain;
        expect(parseAmountCell(text)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});

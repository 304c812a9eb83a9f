/**
 * Text cells a spreadsheet would run as formulas (OWASP, "CSV Injection": `=HYPERLINK(…)`, `+cmd|…`). The
 * bundle keeps every value exactly as stored, so they are not changed or escaped: the export and the import's
 * report count them per file and warn, naming where the first is and never its value, and docs/import.md says
 * how to open such a file safely.
 */
/**
 * Whether a spreadsheet would read a text cell as a formula: it starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return (OWASP, "CSV Injection"). Only text columns are asked: a negative number in a numeric
 * column is a number, not a formula.
 */
export function looksLikeFormula(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 61 /* = */ || c === 43 /* + */ || c === 45 /* - */ || c === 64 /* @ */ || c === 9 || c === 13;
}

/** Text cells of one file that a spreadsheet would read as formulas: how many, and where the first is. */
export interface FormulaCells {
  file: string;
  count: number;
  /** The first one's line (the header is line 1) and column. */
  line: number;
  column: string;
}

/** Counts {@link looksLikeFormula} cells per file, keeping the first one's place (never its value). */
export class FormulaTally {
  readonly #files = new Map<string, FormulaCells>();
  /** Notes one such cell. */
  note(file: string, line: number, column: string): void {
    const seen = this.#files.get(file);
    if (seen) seen.count++;
    else this.#files.set(file, { file, count: 1, line, column });
  }
  /** The files with such cells, in the order they were first seen. */
  list(): FormulaCells[] {
    return [...this.#files.values()];
  }
}

/** The warning printed for a file with formula-like cells, on export and in the import's report. */
export function formulaWarning(f: FormulaCells): string {
  return `warning: ${f.file}: ${f.count} text cell${f.count === 1 ? '' : 's'} start${f.count === 1 ? 's' : ''} with =, +, -, @, a tab or a CR (the first at line ${f.line}, column ${f.column}); a spreadsheet may run ${f.count === 1 ? 'it' : 'them'} as a formula. The values are kept as they are: open the file as text (docs/import.md#opening-a-bundle-in-a-spreadsheet).`;
}

/**
 * Validation of a bundle before anything is written (docs/import.md#rules): every file is streamed once,
 * every cell checked against its column (type, enum, required), every row against its table's rules (keys,
 * references across files, signs) and the accounting invariants the endpoints rely on:
 * - each journal entry balances (Σ debit = Σ credit, exactly);
 * - a position's market value is quantity × price rounded half-up to the cent (docs/fund-data.md#data-model);
 * - a complete run's capital accounts sum to its shadow NAV, and each capital account adds up
 *   (capital = contributions − withdrawals + P&L allocation − management fee − performance fee);
 * - a run's reconciliation status is `matched` exactly when |shadow − administrator| ≤ tolerance (in basis
 *   points of the administrator's NAV); an empty status is filled in from that, a contradicting one is an error.
 *
 * Errors name file, line, column and rule; a value is quoted only for a column that is not personal. Memory
 * stays bounded by one date of a bulk file (its keys and entries), plus the small files and the journal's
 * entry ids: the bulk files are ordered by date (docs/import.md#order), which is what makes that possible.
 *
 * Also gathered on the way, for the load and the report: the runs' figures, the small tables' rows, and,
 * for an append onto stored runs, a digest per date of each bulk table's rows up to the latest stored run
 * (operator/bundle/plan.ts compares them with the database's to find restated runs).
 *
 * {@link validateBundle} runs one step per file over one explicit state (validation-state.ts: the result
 * being built, the keys and runs later files reference, and the operations every step shares: reporting,
 * the column rules), a file after those it references: the small files' steps are in small-files.ts (each
 * file kept whole), the bulk files' in bulk-files.ts (one date at a time). This module is the validator's
 * interface: the import and the CLI take its types and helpers from here.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from './format.ts';
import { checkAccounts, checkExpenses, checkFund, checkInvestors, checkNavRuns, checkShareClasses } from './small-files.ts';
import { checkAdminPositions, checkCapitalAccounts, checkLedger, checkPositions, checkPrices } from './bulk-files.ts';
import { type ValidateOptions, type Validation, startValidation } from './validation-state.ts';

export { differenceBps } from './small-files.ts';
export { rowDigest } from './bulk-files.ts';
export {
  type Cell,
  type DateDigest,
  type RunCells,
  type RunFigures,
  type ValidateOptions,
  type Validation,
  isDate,
} from './validation-state.ts';

/** Bytes of every file of the bundle that exists (for progress). */
export function bundleBytes(dir: string): number {
  return BUNDLE_FILES.reduce((s, f) => s + (existsSync(join(dir, f.file)) ? statSync(join(dir, f.file)).size : 0), 0);
}

/**
 * Validates the bundle in `dir`: each file's step in turn (see the module comment). Never throws for bad
 * content: everything wrong is in `errors`.
 * @throws {Error} only for an unreadable folder or file (I/O)
 */
export async function validateBundle(dir: string, options: ValidateOptions): Promise<Validation> {
  const s = startValidation(dir, options);
  await checkFund(s);
  await checkShareClasses(s);
  await checkAccounts(s);
  await checkInvestors(s);
  await checkNavRuns(s);
  await checkPositions(s);
  await checkPrices(s);
  await checkLedger(s);
  await checkCapitalAccounts(s);
  await checkExpenses(s);
  await checkAdminPositions(s);
  return s.v;
}

/**
 * Memoized fund tool answers. Fund data changes once per NAV run, so the redacted body of a tool call is
 * kept in the isolate per (source scope, fund, latest NAV run, tool, arguments) and served again until a
 * new run appears. Only bodies that passed the fail-closed redaction are kept (never a raw figure), a
 * source scope never sees another's entries (the demo key's embedded fund and the deployment's embedded
 * fund are separate scopes, and the investor-pseudonym key is part of the scope), and the memory is
 * bounded (least recently used entries go first). Only the embedded stores, whose data never changes, are
 * memoized: database answers are not (rows can be corrected without a new run, and a database fault must
 * still answer 503).
 */
import type { NavRunRow } from './rows.ts';

/** Entries kept per isolate. */
export const MEMO_MAX_ENTRIES = 512;
/** Characters of bodies kept per isolate (about 2 bytes each: 8 MiB). */
export const MEMO_MAX_CHARS = 4 * 1024 * 1024;

/** Bodies by memo key: plain strings, kept by the request that computed them (requests share no pending answer). */
const entries = new Map<string, string>();
let chars = 0;

/**
 * The memo key of a call, or null when it must not be memoized (no run yet).
 * @param scope who reads what: the source's scope and the investor-pseudonym key's fingerprint
 * @param runs the index's NAV runs, oldest first; the latest identifies the data's version
 * @param tool the tool's definition (its identity, not its name, is part of the key)
 * @param query the parsed (defaults applied) arguments
 */
export function memoKey(
  scope: string,
  fundId: string,
  runs: readonly NavRunRow[],
  tool: object,
  query: Record<string, unknown>,
): string | null {
  const latest = runs.at(-1);
  if (!latest) return null;
  const args = Object.keys(query)
    .sort()
    .map((k) => [k, query[k]]);
  return JSON.stringify([scope, fundId, runs.length, latest, toolId(tool), args]);
}

const toolIds = new WeakMap<object, number>();
let lastToolId = 0;
/** A number per tool definition object: two definitions never share answers, even under one tool name. */
function toolId(tool: object): number {
  let id = toolIds.get(tool);
  if (id === undefined) {
    id = ++lastToolId;
    toolIds.set(tool, id);
  }
  return id;
}

/** A kept body, refreshed as most recently used; undefined when none. */
export function recall(key: string): string | undefined {
  const body = entries.get(key);
  if (body !== undefined) {
    entries.delete(key);
    entries.set(key, body);
  }
  return body;
}

/** Keeps a redacted body, dropping the least recently used entries beyond the bounds. */
export function remember(key: string, body: string): void {
  if (body.length > MEMO_MAX_CHARS / 8) return; // one answer may not take an eighth of the memory
  const old = entries.get(key);
  if (old !== undefined) {
    chars -= old.length;
    entries.delete(key);
  }
  entries.set(key, body);
  chars += body.length;
  for (const [k, v] of entries) {
    if (entries.size <= MEMO_MAX_ENTRIES && chars <= MEMO_MAX_CHARS) break;
    entries.delete(k);
    chars -= v.length;
  }
}

/** Entries and characters kept (for tests and benchmarks). */
export function memoStats(): { entries: number; chars: number } {
  return { entries: entries.size, chars };
}

/** Forgets every entry (for tests and benchmarks that measure the computation). */
export function clearMemo(): void {
  entries.clear();
  chars = 0;
}

/**
 * An identity set (lib/identity-set.ts) as text, so that it is compiled once where a fund's investors are
 * written (the importer and the seeder store it beside them, db/migrations/0005_identity_sets.sql) and an
 * isolate loads it instead of compiling it: for 500 investors, loading costs about a fifth of compiling on
 * an isolate's first request (docs/performance.md).
 *
 * A stored set is used only by code that would compile exactly the same one: its {@link IDENTITY_SET_FORMAT}
 * names the compiler's sources ({@link IDENTITY_SET_SOURCES}, a digest a test keeps equal to those files), a
 * store sends a set only when that format is the reader's own and the set was compiled from the investors
 * now stored, and the reader loads it only when its engine reads every character of the values beyond ASCII
 * as the compiling engine did ({@link engineReading}: Node's and workerd's Unicode data differ). Anything
 * else is compiled from the investors, as without a stored set.
 */
import { classOf, wordsOf } from './identity-words.ts';
import { addEdge, asciiTableSize, identitySet, NOT_SPACE_OR_WORD, type IdentitySet } from './identity-set.ts';
import { sha256Hex } from './digest.ts';

/**
 * SHA-256 of the compiler's sources (lib/identity-words.ts, lib/identity-set.ts, and this file with this
 * line's digest left out), which test/identity-set-form.test.ts checks: a change to any of them must come
 * with the new digest, so that a set stored by the old code is never loaded by the new.
 */
export const IDENTITY_SET_SOURCES = 'sha256:fdcf930e526b6527f2742e5c9aaed760fbef26d02147ce790a058774903648c7';

/** The format this code writes and reads: the compiler's sources. */
export const IDENTITY_SET_FORMAT = `identity-set/2 ${IDENTITY_SET_SOURCES}`;

/**
 * How this engine reads each character of `chars` when it compiles a set: its class (lib/identity-words.ts),
 * its fold as a word, whether it is a space and whether it joins a name's parts. A set is compiled the same
 * by two engines whose readings of its values' characters are the same: the engines' Unicode data differ
 * (workerd's may be a version older or newer than Node's), and an all-ASCII set, read by the service's own
 * tables, is the same in every engine.
 */
export function engineReading(chars: string): string {
  const out: string[] = [];
  for (const ch of chars) {
    out.push(`${classOf(ch.codePointAt(0)!)}${/\s/.test(ch) ? 's' : ''}${NOT_SPACE_OR_WORD.test(ch) ? 'j' : ''}:${wordsOf(ch).join(' ')}`);
  }
  return out.join('\n');
}

/** Each character beyond ASCII in `values`, once, in the order met (linear in the values' length). */
function charactersBeyondAscii(values: readonly string[]): string {
  const seen = new Set<string>();
  for (const value of values) for (const ch of value) if (ch.charCodeAt(0) >= 128) seen.add(ch);
  return [...seen].join('');
}

/** The stored form: the set's fields, the trie as each node's parent and incoming word. */
interface StoredSet {
  format: string;
  /** The values' characters beyond ASCII, and how the compiling engine read them ({@link engineReading}). */
  chars: string;
  reading: string;
  values: number;
  /** Every distinct word of the trie, joined by line breaks (a word holds none: words are letters, marks and digits). */
  words: string;
  /** Node i's parent and the index in `words` of the word leading to it (node 0, the root: 0 and -1). */
  parent: number[];
  word: number[];
  fail: number[];
  longest: number[];
  /** The index in `words` of each of `asciiWords`, in their order, and its slot and hash in the ASCII table. */
  ascii: number[];
  asciiSlot: number[];
  asciiHash: number[];
}

/**
 * The identity set of `values` compiled ({@link identitySet}) as text, in {@link IDENTITY_SET_FORMAT}: the
 * SHA-256 of a JSON document (lower-case hex), a line break, the document (about 500 bytes per investor),
 * with how this engine read the values' characters beyond ASCII. The digest lets a loader trust the
 * document as this code wrote it without checking each of its numbers (checks that ran in an isolate's
 * first request, unoptimized).
 * @param values the identity values, in the order the reader would compile them
 */
export async function identitySetText(values: readonly string[]): Promise<string> {
  const set = identitySet(values);
  const chars = charactersBeyondAscii(values);
  const words: string[] = [];
  const index = new Map<string, number>();
  const idOf = (w: string) => {
    let i = index.get(w);
    if (i === undefined) {
      i = words.push(w) - 1;
      index.set(w, i);
    }
    return i;
  };
  const nodes = set.onlyTo.length;
  const parent = new Array<number>(nodes).fill(0);
  const word = new Array<number>(nodes).fill(-1);
  for (let node = 0; node < nodes; node++) {
    const map = set.children[node];
    const edges: [string, number][] = map ? [...map] : set.onlyWord[node] !== undefined ? [[set.onlyWord[node]!, set.onlyTo[node]!]] : [];
    for (const [w, to] of edges) {
      parent[to] = node;
      word[to] = idOf(w);
    }
  }
  const asciiSlot = new Array<number>(set.asciiWords.length);
  const asciiHash = new Array<number>(set.asciiWords.length);
  set.asciiSlots.forEach((v, slot) => {
    if (v === 0) return;
    asciiSlot[v - 1] = slot;
    asciiHash[v - 1] = set.asciiHashes[slot]!;
  });
  const stored: StoredSet = {
    format: IDENTITY_SET_FORMAT,
    chars,
    reading: engineReading(chars),
    values: set.values,
    words: words.join('\n'),
    parent,
    word,
    fail: Array.from(set.fail),
    longest: Array.from(set.longest),
    ascii: set.asciiWords.map(idOf),
    asciiSlot,
    asciiHash,
  };
  const json = JSON.stringify(stored);
  return `${await sha256Hex(json)}\n${json}`;
}

/** True when `value` is an array of `length` elements (their values are the digest's to vouch for). */
const isArrayOf = (value: unknown, length: number): value is number[] => Array.isArray(value) && value.length === length;

/**
 * The set a text of {@link identitySetText} holds: the same fields, maps in the same order, as compiling the
 * same values in this engine gives. The text must carry the digest of its document, so a damaged text is
 * refused, never loaded as a smaller set; the document is then this code's own (its format names the
 * compiler's sources), and only the shape of its arrays is checked again.
 * @throws {Error} when the text is damaged (its digest does not match), is not in this code's format, was
 *   compiled by an engine that reads one of the values' characters otherwise than this one, or is malformed
 *   (the caller compiles instead)
 */
export async function loadIdentitySet(text: string): Promise<IdentitySet> {
  const cut = text.indexOf('\n');
  const json = text.slice(cut + 1);
  if (cut !== 64 || text.slice(0, cut) !== (await sha256Hex(json))) throw new Error('stored identity set: damaged');
  const stored = JSON.parse(json) as Partial<StoredSet>;
  if (stored.format !== IDENTITY_SET_FORMAT || typeof stored.words !== 'string' || !Number.isInteger(stored.values)) {
    throw new Error('stored identity set: another format');
  }
  if (typeof stored.chars !== 'string' || stored.reading !== engineReading(stored.chars)) {
    throw new Error('stored identity set: compiled by an engine with other Unicode data');
  }
  const words = stored.words === '' ? [] : stored.words.split('\n');
  const { parent, word, fail, longest, ascii, asciiSlot, asciiHash } = stored;
  const nodes = Array.isArray(parent) ? parent.length : 0;
  const asciiCount = Array.isArray(ascii) ? ascii.length : 0;
  if (
    nodes < 1 ||
    !isArrayOf(word, nodes) ||
    !isArrayOf(fail, nodes) ||
    !isArrayOf(longest, nodes) ||
    !isArrayOf(asciiSlot, asciiCount) ||
    !isArrayOf(asciiHash, asciiCount)
  ) {
    throw new Error('stored identity set: malformed');
  }
  const children: (Map<string, number> | undefined)[] = new Array(nodes).fill(undefined);
  const onlyWord: (string | undefined)[] = new Array(nodes).fill(undefined);
  const onlyTo: number[] = new Array(nodes).fill(0);
  children[0] = new Map();
  const trie = { children, onlyWord, onlyTo };
  // Nodes were numbered as they were added, each after its parent: adding them in order makes the same maps.
  for (let node = 1; node < nodes; node++) addEdge(trie, parent![node]!, words[word[node]!]!, node);
  // The ASCII table as compiling made it: each word in its slot, with its hash.
  const size = asciiTableSize(nodes);
  const asciiWords = new Array<string>(asciiCount);
  const asciiSlots = new Int32Array(size);
  const asciiHashes = new Int32Array(size);
  for (let k = 0; k < asciiCount; k++) {
    asciiWords[k] = words[ascii![k]!]!;
    asciiSlots[asciiSlot[k]!] = k + 1;
    asciiHashes[asciiSlot[k]!] = asciiHash[k]!;
  }
  return {
    children,
    onlyWord,
    onlyTo,
    fail: Int32Array.from(fail),
    longest: Int32Array.from(longest),
    values: stored.values!,
    asciiWords,
    asciiSlots,
    asciiHashes,
  };
}

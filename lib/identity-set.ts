/**
 * A fund's identity values compiled for the scan (docs/fund-data.md#how-identity-values-are-matched): an
 * Aho-Corasick automaton over the values' words (lib/identity-words.ts), and a hash table of those words that
 * are all ASCII, through which the scan (lib/identity-scan.ts) finds an ASCII word of an answer without
 * making a string of it.
 */
import { wordsOf } from './identity-words.ts';

/**
 * The shortest identity value the scan looks for, in letters and digits (its words joined); the shortest one
 * made of digits only; and the shortest one written wholly in a script without spaces, in characters (a
 * Chinese or Korean name of two). Shorter values cannot be told from ordinary words and figures (an internal
 * id `17` is in every other amount), so they are not looked for (docs/fund-data.md#how-identity-values-are-matched).
 */
export const MIN_IDENTITY_CHARS = 4;
export const MIN_IDENTITY_DIGITS = 6;
export const MIN_SPACELESS_CHARS = 2;

/**
 * A fund's identity values compiled for the scan: an Aho-Corasick automaton (Aho and Corasick, "Efficient
 * string matching", CACM 18(6), 1975) whose symbols are words (folded as lib/identity-words.ts reads them): a trie of the
 * values' words, with each node's failure link and the longest value it ends. Plain data (maps and arrays of
 * strings and numbers), built once per identity set and shared by every request of the isolate.
 */
export interface IdentitySet {
  /** The next words of the nodes with more than one (node 0, the root, always), and the nodes they lead to. */
  readonly children: readonly (ReadonlyMap<string, number> | undefined)[];
  /** The one next word of each other node that has one (most nodes), and the node it leads to. */
  readonly onlyWord: readonly (string | undefined)[];
  readonly onlyTo: readonly number[];
  /** Each node's failure link: the node of the longest proper suffix of its words that is in the trie. */
  readonly fail: Int32Array;
  /** The words of the longest value that ends at each node, its own or through its failure links (0: none). */
  readonly longest: Int32Array;
  /** How many values were compiled (for the bench and tests). */
  readonly values: number;
  /** The trie's words that are all ASCII, each once ({@link asciiWordTable}). */
  readonly asciiWords: readonly string[];
  /**
   * An open-addressing hash table of {@link asciiWords}, its length a power of two at least twice their
   * number: each slot 0 (empty) or a word's index plus one, found from the word's {@link wordHash} by linear
   * probing; `asciiHashes` holds the hash of each slot's word.
   */
  readonly asciiSlots: Int32Array;
  readonly asciiHashes: Int32Array;
}

/** The hash of the empty word, which {@link wordHash} starts from. */
export const WORD_HASH_SEED = 0x811c9dc5 | 0;

/** The hash of a word so far, `h`, extended by its next character code `c` (FNV-1a, 32 bits). */
export function wordHash(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

/** The slots of the ASCII words' hash table of a trie of `nodes` nodes: a power of two, at least 8 and twice `nodes`. */
export function asciiTableSize(nodes: number): number {
  let size = 8;
  while (size < 2 * nodes) size *= 2;
  return size;
}

/**
 * The hash table of a trie's all-ASCII words ({@link IdentitySet.asciiSlots}), each once, in the order met:
 * from its edges as it is compiled (a stored set keeps each word's slot and hash: lib/identity-set-form.ts). Words beyond ASCII are passed over, and a word met again is not added again.
 * @param words the words of the trie's edges, node by node
 * @param nodes how many nodes the trie has: the table has a power of two of slots, at least twice as many
 */
export function asciiWordTable(words: Iterable<string>, nodes: number): Pick<IdentitySet, 'asciiWords' | 'asciiSlots' | 'asciiHashes'> {
  const size = asciiTableSize(nodes);
  const mask = size - 1;
  const asciiWords: string[] = [];
  const asciiSlots = new Int32Array(size);
  const asciiHashes = new Int32Array(size);
  for (const word of words) {
    let h = WORD_HASH_SEED;
    let ascii = true;
    for (let i = 0; i < word.length && ascii; i++) {
      const c = word.charCodeAt(i);
      ascii = c < 128;
      h = wordHash(h, c);
    }
    if (!ascii) continue;
    let slot = h & mask;
    let seen = false;
    for (; asciiSlots[slot] !== 0 && !seen; slot = (slot + 1) & mask) {
      seen = asciiHashes[slot] === h && asciiWords[asciiSlots[slot]! - 1] === word;
    }
    if (seen) continue;
    asciiWords.push(word);
    asciiSlots[slot] = asciiWords.length;
    asciiHashes[slot] = h;
  }
  return { asciiWords, asciiSlots, asciiHashes };
}

/** The words of a trie's edges, node by node (each node's in the order they were added). */
function* edgeWords(trie: Trie): Generator<string> {
  for (let node = 0; node < trie.onlyWord.length; node++) {
    const map = trie.children[node];
    const only = trie.onlyWord[node];
    if (map) yield* map.keys();
    else if (only !== undefined) yield only;
  }
}

/** A character that is neither a space nor of a word (an apostrophe, a hyphen): a value's parts may join. */
export const NOT_SPACE_OR_WORD = /[^\s\p{L}\p{M}\p{N}]|[\u02B9-\u02BF\u02C8]/u;

/** The most words a value may have to be looked for with any of its neighbouring words written together. */
const MAX_COMPOSED_WORDS = 4;

/** A value's words with some neighbours written together: each grouping but all apart and all together. */
function compositions(words: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let glue = 1; glue < 2 ** (words.length - 1) - 1; glue++) {
    const groups = [words[0]!];
    for (let i = 1; i < words.length; i++) groups.push(glue & (1 << (i - 1)) ? groups.pop()! + words[i] : words[i]!);
    out.push(groups);
  }
  return out;
}

/** The trie part of an identity set. */
type Trie = Pick<IdentitySet, 'children' | 'onlyWord' | 'onlyTo'>;

/** A trie being built: its arrays as {@link identitySet} grows them. */
export interface TrieBuilder {
  readonly children: (Map<string, number> | undefined)[];
  readonly onlyWord: (string | undefined)[];
  readonly onlyTo: number[];
}

/**
 * Adds the edge `word` from `node` to the new node `to`: the node's one next word while it has one, in a
 * map of its own from its second on. Compiling and loading a stored set (lib/identity-set-form.ts) add a
 * node's edges in the same order, so they make the same maps.
 */
export function addEdge(trie: TrieBuilder, node: number, word: string, to: number): void {
  const map = trie.children[node];
  if (map) map.set(word, to);
  else if (trie.onlyWord[node] === undefined) {
    trie.onlyWord[node] = word;
    trie.onlyTo[node] = to;
  } else {
    // A second next word: the node's words move to a map of their own.
    trie.children[node] = new Map([
      [trie.onlyWord[node]!, trie.onlyTo[node]!],
      [word, to],
    ]);
    trie.onlyWord[node] = undefined;
  }
}

/** The node `word` (folded) leads to from `node`, if any. */
export function step(set: Trie, node: number, word: string): number | undefined {
  const map = set.children[node];
  if (map) return map.get(word);
  return set.onlyWord[node] === word ? set.onlyTo[node] : undefined;
}

/**
 * Compiles identity values for {@link findIdentities}. Each value is looked for as its sequence of words,
 * whatever separates them in the text, and, unless it has a character of a script written without spaces,
 * as its words written together (`MargaretOkafor`, `078659703`), and, of up to {@link MAX_COMPOSED_WORDS}
 * words, with any of its neighbouring words written together (`MaryAnn Smith`, `Sean OBrien` for
 * `Sean O'Brien`), a longer one with its space-separated parts each written together (`Jeanpierre Dupont de
 * la Tour`), always by whole words. Left out: a value
 * below {@link MIN_IDENTITY_CHARS} letters and digits, or digits only below {@link MIN_IDENTITY_DIGITS}, or,
 * written wholly in scripts without spaces, below {@link MIN_SPACELESS_CHARS} characters. A value's words are
 * the same whether it is read as stored or as the JSON text of an answer writes it.
 */
export function identitySet(values: Iterable<string>): IdentitySet {
  const children: (Map<string, number> | undefined)[] = [new Map()];
  const onlyWord: (string | undefined)[] = [undefined];
  const onlyTo: number[] = [0];
  const depth: number[] = [0];
  const ends: boolean[] = [false];
  const trie: TrieBuilder = { children, onlyWord, onlyTo };
  let count = 0;
  const add = (words: readonly string[]) => {
    let node = 0;
    for (const word of words) {
      let to = step(trie, node, word);
      if (to === undefined) {
        to = ends.length;
        ends.push(false);
        depth.push(depth[node]! + 1);
        children.push(undefined);
        onlyWord.push(undefined);
        onlyTo.push(0);
        addEdge(trie, node, word, to);
      }
      node = to;
    }
    ends[node] = true;
  };
  for (const value of values) {
    const spaceless: boolean[] = [];
    const words = wordsOf(value, spaceless);
    const joined = words.join('');
    const tooShort =
      spaceless.length > 0 && spaceless.every(Boolean)
        ? words.length < MIN_SPACELESS_CHARS
        : joined.length < MIN_IDENTITY_CHARS || (joined.length < MIN_IDENTITY_DIGITS && /^\d+$/.test(joined));
    if (tooShort) continue;
    add(words);
    if (words.length > 1 && !spaceless.includes(true)) {
      add([joined]);
      // A name (spaces in it) of up to 4 words with any neighbouring words written together (`MaryAnn Smith`).
      if (words.length <= MAX_COMPOSED_WORDS && /\s/.test(value)) for (const groups of compositions(words)) add(groups);
      // The parts of a longer name joined by an apostrophe or a hyphen, written together (`O'Brien` as `OBrien`).
      const long = words.length > MAX_COMPOSED_WORDS && NOT_SPACE_OR_WORD.test(value);
      const parts = long ? value.split(/\s+/).map((part) => wordsOf(part).join('')) : [];
      if (parts.length > 1 && parts.length < words.length && !parts.includes('')) add(parts);
    }
    count++;
  }
  // Failure links breadth first: a node's link is found from its parent's, each word paying at most once.
  const fail = new Int32Array(ends.length);
  const longest = new Int32Array(ends.length);
  const queue = new Int32Array(ends.length);
  let queued = 1;
  const link = (node: number, word: string, to: number) => {
    let target: number | undefined;
    for (let f = fail[node]!; node !== 0; f = fail[f]!) {
      target = step(trie, f, word);
      if (target !== undefined || f === 0) break;
    }
    fail[to] = target ?? 0;
    longest[to] = ends[to] ? depth[to]! : longest[fail[to]!]!;
    queue[queued++] = to;
  };
  for (let q = 0; q < queued; q++) {
    const node = queue[q]!;
    const map = children[node];
    if (map) for (const [word, to] of map) link(node, word, to);
    else if (onlyWord[node] !== undefined) link(node, onlyWord[node], onlyTo[node]!);
  }
  return { children, onlyWord, onlyTo, fail, longest, values: count, ...asciiWordTable(edgeWords(trie), onlyWord.length) };
}

/** The empty identity set (nothing to look for). */
export const NO_IDENTITIES: IdentitySet = identitySet([]);

/**
 * Full-text search over the service's documentation (the `search_docs` tool of the public MCP server).
 *
 * The corpus is cut into passages at build time by `scripts/build-docs.ts` (one per operation, calculator
 * formula, error code and design-note section) and indexed with MiniSearch (BM25 ranking, prefix and small
 * fuzzy matches). The serialized index is a static asset ({@link SEARCH_INDEX_PATH}), not part of the
 * Worker's code: it is fetched through the assets binding on the first search of an isolate, so it costs
 * the MCP server's bundle nothing and an isolate that is never asked nothing. See docs/documentation.md.
 */
import { keptOnceLoaded } from '../assets.ts';
import MiniSearch, { type Options } from 'minisearch';

/** One passage of the documentation, as indexed and as returned. */
export interface DocPassage {
  /** Stable id, e.g. `op:calcFeeCalculator` or `docs/api.md#errors`. */
  id: string;
  /** Heading of the passage (with its page), e.g. "Fee calculator: formulas". */
  title: string;
  /**
   * Path on this service where an agent can read the passage: an operation's object in the OpenAPI document
   * (`/api/v1/openapi.json#/paths/~1api~1v1~1calc~1fee-calculator/post`, a JSON pointer in the fragment), or
   * a section of a design note or the README (`/docs/design/calculators.md#fee-calculator`). Passages may share one.
   */
  url: string;
  /** The passage in Markdown (indexed). */
  text: string;
  /** What a hit returns: the passage, cut at a line end after at most {@link MAX_EXCERPT_CHARS} characters. */
  excerpt: string;
}

/** Longest excerpt stored and returned, characters (the URL holds the rest); keeps the index in budget. */
export const MAX_EXCERPT_CHARS = 1500;

/** The excerpt of a passage: whole lines up to {@link MAX_EXCERPT_CHARS}, then a pointer to the rest. */
export function excerptOf(text: string): string {
  if (text.length <= MAX_EXCERPT_CHARS) return text;
  const cut = text.lastIndexOf('\n', MAX_EXCERPT_CHARS);
  return `${text.slice(0, cut > 0 ? cut : MAX_EXCERPT_CHARS).trimEnd()}\n…`;
}

/**
 * Words too common to tell passages apart; dropped from passages and queries alike, so a plain question
 * ("how is the performance fee computed here?") ranks by its meaningful words.
 */
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from here how i if in is it its me of on or that the this to was what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * A light English stemmer: drops one plural or verb ending from words of five letters or more, so that
 * "computed", "computes" and "compute" meet. Linear in the word's length (one suffix test).
 */
export function stem(word: string): string {
  if (word.length < 5) return word;
  const m = /(?:ies|ing|ed|es|s)$/.exec(word);
  if (!m || word.endsWith('ss')) return word;
  return m[0] === 'ies' ? `${word.slice(0, -3)}y` : word.slice(0, -m[0].length);
}

/**
 * Terms of a text: its words (letters and digits) lower-cased, stop words and bare numbers dropped (figures
 * are not what a reader searches by, and they would double the index), stemmed, and each pair of
 * neighbouring remaining words as one more term (`performance fee` → `performance`, `fee`,
 * `performance_fee`), so that passages holding a query's words together rank above those holding them apart.
 * Linear in the text's length.
 */
export function terms(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '' && !STOP_WORDS.has(w) && !/^\d+$/.test(w))
    .map(stem);
  const pairs = words.slice(1).map((w, i) => `${words[i]}_${w}`);
  return [...words, ...pairs];
}

/** Index options shared by the build (indexing) and the runtime (loading): both must agree. */
export const SEARCH_OPTIONS: Options<DocPassage> = {
  fields: ['title', 'text'],
  storeFields: ['title', 'url', 'excerpt'],
  tokenize: terms,
  processTerm: (term) => term,
  searchOptions: { boost: { title: 1.5 }, prefix: true, fuzzy: 0.15, combineWith: 'OR' },
};

/** The largest query accepted, characters (longer queries are refused by the tool's input schema). */
export const MAX_QUERY_LENGTH = 200;

/** Most passages one search returns. */
export const MAX_RESULTS = 10;

/** A search hit: the passage's excerpt, its URL made absolute, and its relevance score (BM25, higher is better). */
export interface DocHit {
  title: string;
  url: string;
  text: string;
  score: number;
}

/** Builds the index of a corpus (build time). */
export function buildIndex(passages: readonly Omit<DocPassage, 'excerpt'>[]): MiniSearch<DocPassage> {
  const index = new MiniSearch<DocPassage>(SEARCH_OPTIONS);
  index.addAll(passages.map((p) => ({ ...p, excerpt: excerptOf(p.text) })));
  return index;
}

/** Stands for the serving origin in the indexed text (curl examples, links); each hit gets its origin. */
export const ORIGIN_MARK = '{{origin}}';

/** Where the build puts the serialized index among the static assets (`public/`). */
export const SEARCH_INDEX_PATH = '/docs/search-index.json';

/** Reads the serialized index (the Worker: through its assets binding). */
export type IndexLoader = () => Promise<string>;

/** The built index, loaded once per isolate ({@link keptOnceLoaded}: a failed load is not kept, the next search retries). */
const index = keptOnceLoaded(async (load: IndexLoader) => MiniSearch.loadJSON<DocPassage>(await load(), SEARCH_OPTIONS));

/**
 * Searches the documentation. One hit per URL: of passages published at the same place (an operation's
 * reference and its calculator's formulas both on the calculators' page), only the best is returned, so
 * that no result sends the reader to a place an earlier one already did.
 * @param query plain words or a question, at most {@link MAX_QUERY_LENGTH} characters (the caller validates)
 * @param limit most hits returned, 1..{@link MAX_RESULTS}
 * @param origin the service's origin, prefixed to every passage's path and put for {@link ORIGIN_MARK} in its text
 * @param load reads the serialized index (called on the first search of an isolate)
 * @returns the best passages, best first, each URL once (none when no word matches)
 * @throws whatever `load` throws (the index is unavailable)
 */
export async function searchDocs(query: string, limit: number, origin: string, load: IndexLoader): Promise<DocHit[]> {
  const out: DocHit[] = [];
  const seen = new Set<string>();
  for (const h of (await index(load)).search(query)) {
    if (out.length === limit) break;
    const url = `${origin}${h.url as string}`;
    if (seen.has(url)) continue;
    seen.add(url);
    out.push({
      title: h.title as string,
      url,
      text: (h.excerpt as string).replaceAll(ORIGIN_MARK, origin),
      score: Math.round(h.score * 1000) / 1000,
    });
  }
  return out;
}

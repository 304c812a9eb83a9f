/**
 * The `search_docs` tool of the public MCP server, declared once: its name, title, description and zod
 * schemas, from which both its `tools/list` entry (built at build time, `lib/mcp/definitions.ts`) and its
 * argument parsing (`lib/mcp/public-server.ts`) come. What it searches: lib/docs/search.ts.
 */
import * as z from 'zod';
import { lazy } from '../validation.ts';
import { MAX_QUERY_LENGTH, MAX_RESULTS } from '../docs/search.ts';

/** Name, title and description of `search_docs` as `tools/list` shows them. */
export const SEARCH_DOCS = {
  name: 'search_docs',
  title: 'Search the documentation',
  description:
    "Searches this service's documentation (API reference, calculator formulas, sources and assumptions, fund data model, errors, limits, MCP servers) and returns the best passages in Markdown with their URLs, best first. Amounts in the passages are in USD for calculators and the fund's base currency for fund data; percentages in percent units. Free: does not count against the calculator quota.",
} as const;

/** Arguments of `search_docs`. */
export const searchDocsInput = lazy(() =>
  z.strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(MAX_QUERY_LENGTH)
      .describe(
        `What to look for: plain words or a question, 1..${MAX_QUERY_LENGTH} characters (e.g. "how is the performance fee computed?").`,
      ),
    limit: z.number().int().min(1).max(MAX_RESULTS).default(5).describe(`Most passages returned, 1..${MAX_RESULTS}.`),
  }),
);

/** Result of `search_docs`: the best passages first (none when no word of the query occurs in the docs). */
export const searchDocsOutput = lazy(() =>
  z.strictObject({
    results: z.array(
      z.strictObject({
        title: z.string().describe('Heading of the passage.'),
        url: z.string().describe('Absolute URL where the passage is published (API reference, design notes, README).'),
        text: z.string().describe('The passage, Markdown.'),
        score: z.number().describe('Relevance (BM25, higher is better; comparable within one search only).'),
      }),
    ),
  }),
);

/**
 * How the build (`scripts/build-docs.ts`) turns the project's Markdown into the text the service publishes
 * (`/llms-full.txt`, `/llms.txt`, the `search_docs` passages, `/docs/design/<page>.md`): headings demoted
 * into one document without touching code blocks, and links to the design notes pointed at where the
 * service publishes them. Pure functions, so that their rules are tested on their own
 * (`test/doc-text.test.ts`). See docs/documentation.md.
 */

/** An opening or closing code fence (CommonMark: up to three spaces, then three or more backticks or tildes). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Calls `visit` with each line of a Markdown text and whether it lies inside a fenced code block (the fence
 * lines themselves count as inside). A fence closes only with the same character, at least as long, as
 * CommonMark has it. Linear in the text's length.
 */
export function eachLine(markdown: string, visit: (line: string, inFence: boolean) => string): string {
  let open: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const fence = FENCE.exec(line)?.[1];
      if (open === null && fence) {
        open = fence;
        return visit(line, true);
      }
      if (open !== null) {
        const closes = fence !== undefined && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence;
        if (closes) open = null;
        return visit(line, true);
      }
      return visit(line, false);
    })
    .join('\n');
}

/**
 * The text with every ATX heading of level 1..(6 − `levels`) outside code blocks moved down `levels`
 * levels (`# Title` → `### Title` for 2), so that a page fits under a heading of the document it is put
 * into. Lines inside fenced code blocks are left as they are: a shell comment (`# create the namespaces`)
 * is not a heading.
 */
export function demoteHeadings(markdown: string, levels: number): string {
  const heading = new RegExp(`^(#{1,${6 - levels}}) `);
  const prefix = '#'.repeat(levels);
  return eachLine(markdown, (line, inFence) => (inFence ? line : line.replace(heading, `${prefix}$1 `)));
}

/** The Markdown files of `docs/` (their names), so a link is recognised as one to a design note. */
export type DesignPages = ReadonlySet<string>;

/**
 * A Markdown link (`[label](target)`, the label without brackets or line breaks, the target without spaces
 * or parentheses), or a bare reference to a design note written in code comments and prose
 * (`(docs/calculators.md)`, `, docs/api.md#limits`). Build time only, over the project's own Markdown.
 */
const LINK_OR_REFERENCE =
  /\[([^\]\n]*)\]\(([^()\s]+)\)|( ?\(docs\/[\w-]+\.md(?:#[\w-]+)?(?::[^)\n]*)?\))|(,? ?(?:of )?docs\/[\w-]+\.md(?:#[\w-]+)?)/g;

/**
 * Text as published by the service:
 * - a Markdown link to a design note (`[api.md](api.md#limits)` in a page of `docs/`,
 *   `[docs/api.md](docs/api.md)` in the README) points at where the service publishes that page:
 *   `<designBase><page>[#anchor]` (`{{origin}}/docs/design/` for the llms files and search passages, `''`
 *   for the pages under `/docs/design/` themselves, which sit side by side);
 * - a bare reference to a design note outside a link ("(docs/calculators.md)" in a module comment), which
 *   names a file of the repository, is dropped, with its parentheses, so that no empty `()` or `[]` is left.
 * Other links (absolute URLs, anchors) are kept as written.
 * @param pages the design notes' file names (`api.md`, ...)
 */
export function published(text: string, designBase: string, pages: DesignPages): string {
  return text.replace(LINK_OR_REFERENCE, (match, label: string | undefined, target: string | undefined) => {
    if (target === undefined) return '';
    const m = /^(?:\.\/)?(?:docs\/)?([\w-]+\.md)(#[\w-]+)?$/.exec(target);
    if (!m || !pages.has(m[1]!)) return match;
    return `[${label}](${designBase}${m[1]}${m[2] ?? ''})`;
  });
}

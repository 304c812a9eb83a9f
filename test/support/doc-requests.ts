/**
 * The calculator requests the README and `docs/` show: every `curl` in their `sh` code blocks that posts a
 * JSON body to a calculator (`/api/v1/calc/<slug>`), or calls a `calc_*` tool on the public MCP server, read
 * as a shell would (quotes, line continuations, `NAME=value` variables, comments), so that a test can hold
 * each body to the OpenAPI document (test/openapi-client.test.ts). Pages are read as the service publishes
 * them, their published sections written in (scripts/doc-sections.ts: the calculators' examples).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CALCULATORS } from '../../lib/registry.ts';
import { toolName } from '../../lib/calculators/definition.ts';
import { publishedPage } from '../../scripts/doc-sections.ts';

/** One request body a page shows, where it shows it, and the calculator path it is posted to. */
export interface DocRequest {
  /** `README.md:30`: the page and the line the command starts on. */
  where: string;
  /** The calculator's URL path (test/support/declared.ts `calcPath` of its declaration). */
  path: string;
  /** The body (REST) or the tool's arguments (MCP). */
  body: unknown;
}

/** One shell command: its words, and the line it starts on (1-based, in the page). */
interface Command {
  words: string[];
  line: number;
}

/**
 * The commands of a shell snippet, as far as the docs use the shell: words split on blanks, single and double
 * quotes (double quotes expand `$NAME` and `${NAME}`), `\` line continuations, `#` comments, commands ended
 * by a line break, `;` or `&&`, and `NAME=value` / `export NAME=value` assignments kept for later commands.
 * @param firstLine the page line the snippet starts on
 */
export function shellCommands(snippet: string, firstLine: number): Command[] {
  const out: Command[] = [];
  const vars = new Map<string, string>();
  let words: string[] = [];
  let word: string | null = null;
  let line = firstLine;
  let start = firstLine;
  const push = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const end = () => {
    push();
    const assignment = (words[0] === 'export' ? words.slice(1) : words).map((w) => /^([A-Za-z_]\w*)=([\s\S]*)$/.exec(w));
    if (words.length && assignment.length && assignment.every(Boolean)) for (const m of assignment) vars.set(m![1]!, m![2]!);
    else if (words.length) out.push({ words, line: start });
    words = [];
  };
  const variable = (at: number): [string, number] => {
    const braced = snippet[at + 1] === '{';
    const m = (braced ? /^\{([^}]*)\}/ : /^(\w+)/).exec(snippet.slice(at + 1));
    return m ? [vars.get(m[1]!) ?? '', at + 1 + m[0].length] : ['$', at + 1];
  };
  let i = 0;
  while (i < snippet.length) {
    const ch = snippet[i]!;
    if (word === null && words.length === 0) start = line;
    if (ch === '\\' && snippet[i + 1] === '\n') {
      line++;
      i += 2;
    } else if (ch === '\n' || ch === ';') {
      if (ch === '\n') line++;
      end();
      i++;
    } else if (ch === '&' && snippet[i + 1] === '&') {
      end();
      i += 2;
    } else if (ch === ' ' || ch === '\t') {
      push();
      i++;
    } else if (ch === '#' && word === null) {
      while (i < snippet.length && snippet[i] !== '\n') i++;
    } else if (ch === "'") {
      const close = snippet.indexOf("'", i + 1);
      const text = snippet.slice(i + 1, close < 0 ? undefined : close);
      line += text.split('\n').length - 1;
      word = (word ?? '') + text;
      i = close < 0 ? snippet.length : close + 1;
    } else if (ch === '"') {
      let text = '';
      i++;
      while (i < snippet.length && snippet[i] !== '"') {
        if (snippet[i] === '\\' && i + 1 < snippet.length) {
          text += snippet[i + 1];
          i += 2;
        } else if (snippet[i] === '$') {
          const [value, next] = variable(i);
          text += value;
          i = next;
        } else {
          if (snippet[i] === '\n') line++;
          text += snippet[i];
          i++;
        }
      }
      word = (word ?? '') + text;
      i++;
    } else if (ch === '$') {
      const [value, next] = variable(i);
      word = (word ?? '') + value;
      i = next;
    } else {
      word = (word ?? '') + ch;
      i++;
    }
  }
  end();
  return out;
}

/** The `sh`/`bash` fenced code blocks of a Markdown page, with the line each starts on. */
function shellBlocks(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)/.exec(lines[i]!);
    if (!open) continue;
    let close = lines.findIndex((l, k) => k > i && /^```\s*$/.test(l));
    if (close < 0) close = lines.length;
    if (['sh', 'bash', 'shell'].includes(open[1]!)) out.push({ text: lines.slice(i + 1, close).join('\n'), line: i + 2 });
    i = close;
  }
  return out;
}

const CALC_PATH = /\/api\/v1\/calc\/([\w-]+)(?:\?|$)/;
const MCP_PATH = /\/api\/mcp\/public(?:\?|$)/;
const DATA_FLAGS = new Set(['-d', '--data', '--data-raw', '--data-binary']);

/** The calculator path of a `calc_*` tool, or undefined. */
function pathOfTool(name: unknown): string | undefined {
  const calc = CALCULATORS.find((c) => toolName(c) === name);
  return calc && `/api/v1/calc/${calc.path}`;
}

/** The calculator requests of one page (see the module comment). */
export function pageRequests(page: string, markdown: string): DocRequest[] {
  const out: DocRequest[] = [];
  for (const block of shellBlocks(markdown)) {
    for (const { words, line } of shellCommands(block.text, block.line)) {
      if (words[0] !== 'curl') continue;
      const data = words.findIndex((w) => DATA_FLAGS.has(w));
      if (data < 0) continue;
      const where = `${page}:${line}`;
      const body = JSON.parse(words[data + 1]!) as unknown;
      const calc = words.map((w) => CALC_PATH.exec(w)?.[1]).find(Boolean);
      if (calc) out.push({ where, path: `/api/v1/calc/${calc}`, body });
      else if (words.some((w) => MCP_PATH.test(w))) {
        for (const message of Array.isArray(body) ? body : [body]) {
          const { method, params } = message as { method?: string; params?: { name?: string; arguments?: unknown } };
          const path = method === 'tools/call' ? pathOfTool(params?.name) : undefined;
          if (path) out.push({ where, path, body: params?.arguments ?? {} });
        }
      }
    }
  }
  return out;
}

/** The calculator requests of the README and every page of `docs/`, as published. */
export function docRequests(root: string): DocRequest[] {
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return pages.flatMap((page) => pageRequests(page, publishedPage(page, readFileSync(join(root, page), 'utf8'))));
}

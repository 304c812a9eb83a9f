/**
 * How each common MCP client connects to the two servers (docs/mcp.md#connecting-a-client): the one thing a
 * user copies, per client, for the public server, the fund server with OAuth and the fund server with a key.
 * The home page (lib/site/), the developer console's quick starts (server-rendered, and filled in with a key
 * just minted by its browser script) and the docs' generated section (scripts/doc-sections.ts) all take their
 * snippets from {@link clientSetups}, so they cannot drift. This module is pure (strings in, strings out) and
 * imports nothing: the console's browser script bundles it.
 *
 * The URLs are handed in (from the route table and the serving origin); none is written out here.
 */

/** The servers' names in `serverInfo` and the OpenAPI document (their operationIds derive from them). */
export const MCP_SERVER_NAMES = { public: 'fund-edge-calculators', fund: 'fund-edge-fund-data' } as const;

/** The names the snippets give the servers in a client's configuration. */
export const CLIENT_ENTRY_NAMES = { public: 'fund-edge-calculators', fund: 'fund-edge' } as const;

/**
 * The mcp-remote release the snippets pin: the one `test/e2e/clients.test.ts` runs (the `mcp-remote`
 * devDependency; test/mcp/clients.test.ts holds the two equal).
 */
export const MCP_REMOTE_VERSION = '0.15.1';
/** The MCP Inspector release the snippets pin, as {@link MCP_REMOTE_VERSION}. */
export const INSPECTOR_VERSION = '2.12.0';

/** mcp-remote's header argument, its value read from the environment (mcp-remote expands `${VAR}` itself). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's variable, not a JavaScript template
const AUTH_FROM_ENV = 'Authorization:${FUND_EDGE_AUTH}';
/** VS Code's variable of the key it asks for (`inputs`). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's variable, not a JavaScript template
const KEY_INPUT = '${input:fund-edge-key}';

/** What a placeholder key reads as where no key is known yet. */
export const KEY_PLACEHOLDER = 'svc_dk_...';

/** The absolute URLs of the two servers. */
export interface McpUrls {
  public: string;
  fund: string;
}

/** The three ways in: the public server (no key, or a key that raises the quota), the fund server with OAuth or a key. */
export type SetupVariant = 'public' | 'fund-oauth' | 'fund-key';

/** One thing to copy. */
export interface Snippet {
  variant: SetupVariant;
  /** The command or the configuration text. */
  text: string;
  /** `sh` for a command, `json` for a configuration file's text. */
  lang: 'sh' | 'json';
  /** A link that installs the server in the client in one click, where the client has one. */
  link?: string;
}

/** One client: what to do with its snippets, and what it shows when a key is wrong. */
export interface ClientSetup {
  id: 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode' | 'inspector';
  name: string;
  /** Where the snippet goes, in one sentence. */
  how: string;
  snippets: Snippet[];
}

/** Keys to fill in: a key for the public server (a `calc` or `fund` key raises the quota), a fund key for the fund server. */
export interface SetupKeys {
  publicKey?: string | undefined;
  fundKey?: string | undefined;
}

/** Base64 of ASCII text (the URLs and keys are ASCII), as `btoa` gives it in the Worker and the browser. */
function base64(text: string): string {
  return btoa(text);
}

/** JSON text with two-space indentation. */
function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** An mcp-remote command entry (Claude Desktop, and Cursor with a key): the key travels in `env`, no space in `args`. */
function mcpRemoteEntry(url: string, key: string | undefined): Record<string, unknown> {
  const args = ['-y', `mcp-remote@${MCP_REMOTE_VERSION}`, url, '--transport', 'http-only'];
  // mcp-remote's README: a space inside an argument breaks on Windows (Cursor, Claude Desktop); the header's
  // value, which has one, comes from the environment instead.
  if (key === undefined) return { command: 'npx', args };
  return { command: 'npx', args: [...args, '--header', AUTH_FROM_ENV], env: { FUND_EDGE_AUTH: `Bearer ${key}` } };
}

/**
 * The three snippets of a client whose snippet is one text made from the entry's name, the server's URL and
 * the key (none with OAuth; the placeholder where the fund key is not known).
 */
function threeWays(
  urls: McpUrls,
  keys: SetupKeys,
  lang: Snippet['lang'],
  make: (name: string, url: string, key?: string) => string,
): Snippet[] {
  return [
    { variant: 'public', lang, text: make(CLIENT_ENTRY_NAMES.public, urls.public, keys.publicKey) },
    { variant: 'fund-oauth', lang, text: make(CLIENT_ENTRY_NAMES.fund, urls.fund) },
    { variant: 'fund-key', lang, text: make(CLIENT_ENTRY_NAMES.fund, urls.fund, keys.fundKey ?? KEY_PLACEHOLDER) },
  ];
}

/** Claude Code: `claude mcp add`, flags before the name, the header after the URL (its own help's form). */
function claudeCode(urls: McpUrls, keys: SetupKeys): ClientSetup {
  return {
    id: 'claude-code',
    name: 'Claude Code',
    how: 'Run the command in a terminal (add --scope user to use the server in every project). With OAuth, run /mcp in Claude Code and choose Authenticate: your browser opens the developer console.',
    snippets: threeWays(
      urls,
      keys,
      'sh',
      (name, url, key) =>
        `claude mcp add --transport http ${name} ${url}${key === undefined ? '' : ` --header "Authorization: Bearer ${key}"`}`,
    ),
  };
}

/** Claude Desktop: `claude_desktop_config.json` has no remote entries, so the mcp-remote bridge. */
function claudeDesktop(urls: McpUrls, keys: SetupKeys): ClientSetup {
  return {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    how: 'Settings → Developer → Edit Config opens claude_desktop_config.json: put the entry under "mcpServers" and restart Claude Desktop (it runs mcp-remote with npx, so Node.js must be installed). With OAuth, mcp-remote opens your browser on the developer console.',
    snippets: threeWays(urls, keys, 'json', (name, url, key) => json({ mcpServers: { [name]: mcpRemoteEntry(url, key) } })),
  };
}

/** `snippet` as it is when `keep`, else without its install link. */
function withoutLinkUnless(keep: boolean, snippet: Snippet): Snippet {
  if (keep) return snippet;
  const { link: _link, ...rest } = snippet;
  return rest;
}

/**
 * Cursor: an install deeplink (`cursor://…/mcp/install?name=…&config=<base64>`) and the `.cursor/mcp.json`
 * text; the key form's link only with the key (Cursor's deeplink cannot ask for one, as VS Code's `inputs` do).
 */
function cursor(urls: McpUrls, keys: SetupKeys): ClientSetup {
  const snippet = (variant: SetupVariant, name: string, entry: Record<string, unknown>): Snippet => ({
    variant,
    lang: 'json',
    text: json({ mcpServers: { [name]: entry } }),
    link: `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64(JSON.stringify(entry)))}`,
  });
  const publicEntry = keys.publicKey === undefined ? { url: urls.public } : mcpRemoteEntry(urls.public, keys.publicKey);
  return {
    id: 'cursor',
    name: 'Cursor',
    how: 'Press the install button (Cursor asks to confirm), or put the entry in ~/.cursor/mcp.json. Cursor prefers OAuth when a server offers it and may ignore a configured header, so the key form runs the mcp-remote bridge.',
    snippets: [
      snippet('public', CLIENT_ENTRY_NAMES.public, publicEntry),
      snippet('fund-oauth', CLIENT_ENTRY_NAMES.fund, { url: urls.fund }),
      // No install link with the placeholder: Cursor would install `Bearer svc_dk_...`, which every call
      // refuses as malformed. The link comes with a key (the console, once a fund key is minted).
      withoutLinkUnless(
        keys.fundKey !== undefined,
        snippet('fund-key', CLIENT_ENTRY_NAMES.fund, mcpRemoteEntry(urls.fund, keys.fundKey ?? KEY_PLACEHOLDER)),
      ),
    ],
  };
}

/** VS Code: an install link (`vscode:mcp/install?<JSON>`) and the `.vscode/mcp.json` text; without a key, it asks for one. */
function vscode(urls: McpUrls, keys: SetupKeys): ClientSetup {
  const input = { type: 'promptString', id: 'fund-edge-key', description: 'fund-edge key (svc_dk_…)', password: true };
  const server = (url: string, key: string | null | undefined) => ({
    type: 'http',
    url,
    ...(key === undefined ? {} : { headers: { Authorization: `Bearer ${key ?? KEY_INPUT}` } }),
  });
  const snippet = (variant: SetupVariant, name: string, url: string, key: string | null | undefined): Snippet => {
    const inputs = key === null ? { inputs: [input] } : {};
    return {
      variant,
      lang: 'json',
      text: json({ ...inputs, servers: { [name]: server(url, key) } }),
      link: `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name, ...server(url, key), ...inputs }))}`,
    };
  };
  return {
    id: 'vscode',
    name: 'VS Code',
    how: 'Press the install link (VS Code asks to confirm), or put the text in .vscode/mcp.json and press Start above the server. Without a key in the link, VS Code asks for it once and keeps it in its secret storage.',
    snippets: [
      snippet('public', CLIENT_ENTRY_NAMES.public, urls.public, keys.publicKey),
      snippet('fund-oauth', CLIENT_ENTRY_NAMES.fund, urls.fund, undefined),
      snippet('fund-key', CLIENT_ENTRY_NAMES.fund, urls.fund, keys.fundKey ?? null),
    ],
  };
}

/** The MCP Inspector's CLI (`--transport http`: the public server's URL does not end in `/mcp`, which it needs to guess). */
function inspector(urls: McpUrls, keys: SetupKeys): ClientSetup {
  const run = (_name: string, url: string, key?: string) =>
    `npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${url} --transport http${key === undefined ? '' : ` --header "Authorization: Bearer ${key}"`} --method tools/list`;
  return {
    id: 'inspector',
    name: 'MCP Inspector',
    how: `Run the command in a terminal: it lists the server's tools (with OAuth it prints a sign-in link first, which needs a terminal). Its web UI takes the same server: npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --transport http --server-url <the URL>.`,
    snippets: threeWays(urls, keys, 'sh', run),
  };
}

/**
 * Every client's setup for the two servers at `urls`, with the keys given filled in (the placeholder
 * `svc_dk_...` where the fund key is not known; the public server without a key unless one is given).
 */
export function clientSetups(urls: McpUrls, keys: SetupKeys = {}): ClientSetup[] {
  return [claudeCode, claudeDesktop, cursor, vscode, inspector].map((setup) => setup(urls, keys));
}

/** What each variant is, as a heading. */
export const VARIANT_TITLES: Readonly<Record<SetupVariant, string>> = {
  public: 'Calculators (public server, no key needed)',
  'fund-oauth': 'Fund data, signing in with OAuth',
  'fund-key': 'Fund data with a fund key',
};

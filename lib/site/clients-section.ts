/**
 * The "Connect an MCP client" section, as the home page and the developer console's quick starts show it:
 * per client (lib/mcp/clients.ts), what to do and the one thing to copy for each way in, with the client's
 * install link where it has one. Plain HTML, no script: each client is a `<details>` element. Every snippet
 * carries `data-setup="<client>:<variant>"` and the section the servers' URLs, so that the console's browser
 * script can fill in a key it has just minted with the same module (lib/console/client/console.ts).
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { CONSOLE_PATH } from '../identity.ts';
import { clientSetups, VARIANT_TITLES, type McpUrls, type SetupKeys, type SetupVariant, type Snippet } from '../mcp/clients.ts';

/** The install link's label, by client. */
const INSTALL_LABEL: Record<string, string> = { cursor: 'Add to Cursor', vscode: 'Install in VS Code' };

/**
 * A client's install link for one snippet. A snippet without a link (Cursor's key form before a key is known)
 * says where the link comes from, and holds the link hidden for the console's script to show once a key is
 * minted (lib/console/client/console.ts).
 */
function installLink(clientId: string, snippet: Snippet, label: string) {
  const id = `${clientId}:${snippet.variant}`;
  if (snippet.link) return html`<p><a class="install" data-setup-link="${id}" href="${snippet.link}">${label}</a></p>`;
  return html`<div data-setup-install="${id}"><p class="no-link">The install button needs your key in its link, so it comes with a key: mint a fund key in the <a href="${CONSOLE_PATH}">developer console</a>, whose quick starts then offer it. Or put the entry below in the file, with your key in place of <code>svc_dk_...</code>.</p>
<p hidden><a class="install" data-setup-link="${id}">${label}</a></p></div>`;
}

/** One snippet: its heading, its install link, and the text to copy. */
function snippetHtml(clientId: string, snippet: Snippet) {
  const label = INSTALL_LABEL[clientId];
  return html`<h4>${VARIANT_TITLES[snippet.variant]}</h4>
${label ? installLink(clientId, snippet, label) : ''}
<pre tabindex="0"><code data-setup="${clientId}:${snippet.variant}">${snippet.text}</code></pre>`;
}

/**
 * The section's HTML.
 * @param urls the servers' absolute URLs
 * @param options.variants the ways in to show (all by default; the console shows the fund server's only to
 *   an account invited to the fund)
 * @param options.keys keys to fill in (none on the home page)
 * @param options.heading the heading level's tag and text (`h2` on the home page, `h3` in the console)
 */
export function clientsSection(
  urls: McpUrls,
  options: { variants?: readonly SetupVariant[]; keys?: SetupKeys; heading: { level: 2 | 3; text: string } },
): HtmlEscapedString | Promise<HtmlEscapedString> {
  const variants = options.variants ?? (['public', 'fund-oauth', 'fund-key'] as const);
  const tag = `h${options.heading.level}`;
  const setups = clientSetups(urls, options.keys);
  return html`<section class="clients" id="connect" aria-labelledby="connect-h" data-mcp-public="${urls.public}" data-mcp-fund="${urls.fund}">
${raw(`<${tag} id="connect-h">`)}${options.heading.text}${raw(`</${tag}>`)}
<p>Pick your client and copy one thing. The calculators need no key; for the fund, sign in with OAuth (your passkey, in the developer console) or use a fund key. A wrong key is refused with a sentence saying what to do, which each client shows or logs: it never turns into a sign-in.</p>
${setups.map(
  (setup) => html`<details data-client="${setup.id}">
<summary>${setup.name}</summary>
<p>${setup.how}</p>
${setup.snippets.filter((s) => variants.includes(s.variant)).map((s) => snippetHtml(setup.id, s))}
</details>`,
)}
</section>`;
}

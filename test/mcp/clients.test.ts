/**
 * The per-client setups (lib/mcp/clients.ts) the home page, the console and the docs show: every snippet
 * names the server's URL and the key it was given, each install link decodes to the configuration shown
 * beside it, mcp-remote's arguments hold no space (its README: they break on Windows), and the pinned client
 * versions are the ones the client tests run. The registry's `server.json` of each server is
 * test/mcp/server-json.test.ts's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientSetups, INSPECTOR_VERSION, KEY_PLACEHOLDER, MCP_REMOTE_VERSION, type McpUrls } from '../../lib/mcp/clients.ts';
import { mcpServerPaths } from '../../lib/mcp/endpoint.ts';
import { ROUTES } from '../../lib/registry.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const paths = mcpServerPaths(ROUTES);
const URLS: McpUrls = { public: `https://fund.example.com${paths.public}`, fund: `https://fund.example.com${paths.fund}` };
const FUND_KEY = `svc_dk_${'F'.repeat(32)}`;
const CALC_KEY = `svc_dk_${'C'.repeat(32)}`;

/** Every snippet of every client, with the client's id. */
const all = (keys = {}) => clientSetups(URLS, keys).flatMap((setup) => setup.snippets.map((snippet) => ({ client: setup.id, ...snippet })));

describe('client setups', () => {
  it('cover each client of the issue, each with the public server, the fund server with OAuth and with a key', () => {
    const setups = clientSetups(URLS);
    expect(setups.map((s) => s.name)).toEqual(['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'MCP Inspector']);
    for (const setup of setups) expect(setup.snippets.map((s) => s.variant)).toEqual(['public', 'fund-oauth', 'fund-key']);
  });

  it('name the route table URL of the server each snippet is for, and a key only where one goes', () => {
    for (const s of all()) {
      const url = s.variant === 'public' ? URLS.public : URLS.fund;
      expect(s.text, `${s.client} ${s.variant}`).toContain(url);
      // The public URL extends the fund server's path: the fund URL must not stand alone in a public snippet.
      if (s.variant === 'public') expect(s.text.split(URLS.public).join('')).not.toContain(URLS.fund);
      expect(s.text.includes(KEY_PLACEHOLDER), `${s.client} ${s.variant}`).toBe(s.variant === 'fund-key' && s.client !== 'vscode');
      if (s.variant !== 'fund-key') expect(s.text, `${s.client} ${s.variant}`).not.toContain('Authorization');
    }
  });

  it('fill in the keys given: the fund key in the key form, a calc key on the public server', () => {
    for (const s of all({ fundKey: FUND_KEY, publicKey: CALC_KEY })) {
      const link = s.link ? decodeLink(s.link) : '';
      if (s.variant === 'fund-key') expect(s.text + link, `${s.client}`).toContain(`Bearer ${FUND_KEY}`);
      if (s.variant === 'public') expect(s.text + link, `${s.client}`).toContain(`Bearer ${CALC_KEY}`);
      if (s.variant === 'fund-oauth') expect(s.text + link).not.toMatch(/svc_dk_/);
      expect(s.text).not.toContain(KEY_PLACEHOLDER);
    }
  });

  it('pass mcp-remote no argument with a space, the key coming from env (Claude Desktop, Cursor)', () => {
    const bridged = all({ fundKey: FUND_KEY }).filter((s) => s.lang === 'json' && s.text.includes('mcp-remote@'));
    expect(bridged.map((s) => `${s.client} ${s.variant}`)).toEqual([
      'claude-desktop public',
      'claude-desktop fund-oauth',
      'claude-desktop fund-key',
      'cursor fund-key',
    ]);
    for (const s of bridged) {
      const entry = Object.values(
        (JSON.parse(s.text) as { mcpServers: Record<string, { args: string[]; env?: Record<string, string> }> }).mcpServers,
      )[0]!;
      for (const arg of entry.args) expect(arg).not.toMatch(/\s/);
      expect(entry.args).toContain('http-only');
      if (s.variant === 'fund-key') {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's variable, not a JavaScript template
        expect(entry.args.slice(-2)).toEqual(['--header', 'Authorization:${FUND_EDGE_AUTH}']);
        expect(entry.env).toEqual({ FUND_EDGE_AUTH: `Bearer ${FUND_KEY}` });
      }
    }
  });

  it("give Cursor a deeplink whose base64 config is the entry shown, and VS Code a link with the server's configuration", () => {
    for (const s of all({ fundKey: FUND_KEY })) {
      if (s.client === 'cursor') {
        const link = new URL(s.link!);
        expect(`${link.protocol}//${link.host}${link.pathname}`).toBe('cursor://anysphere.cursor-deeplink/mcp/install');
        const name = link.searchParams.get('name')!;
        const entry = JSON.parse(atob(link.searchParams.get('config')!)) as unknown;
        expect(JSON.parse(s.text)).toEqual({ mcpServers: { [name]: entry } });
      }
      if (s.client === 'vscode') {
        expect(s.link!.startsWith('vscode:mcp/install?')).toBe(true);
        const { name, inputs, ...server } = JSON.parse(decodeURIComponent(s.link!.slice('vscode:mcp/install?'.length))) as Record<
          string,
          unknown
        >;
        const file = JSON.parse(s.text) as { servers: Record<string, unknown>; inputs?: unknown };
        expect(file.servers).toEqual({ [name as string]: server });
        expect(file.inputs).toEqual(inputs);
        expect(server.type).toBe('http');
      }
    }
    // Without a key, VS Code asks for it (a password input) instead of holding a placeholder.
    const vscodeKey = all().find((s) => s.client === 'vscode' && s.variant === 'fund-key')!;
    expect(JSON.parse(vscodeKey.text)).toMatchObject({
      inputs: [{ type: 'promptString', id: 'fund-edge-key', password: true }],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's variable, not a JavaScript template
      servers: { 'fund-edge': { headers: { Authorization: 'Bearer ${input:fund-edge-key}' } } },
    });
  });

  it('run the Inspector with --transport http (the public URL does not end in /mcp) and Claude Code with --transport http', () => {
    for (const s of all()) {
      if (s.client === 'inspector') expect(s.text).toMatch(/ --cli https:\/\/\S+ --transport http /);
      if (s.client === 'claude-code') expect(s.text).toMatch(/^claude mcp add --transport http fund-edge(-calculators)? https:\/\//);
    }
  });

  it('pin the mcp-remote and Inspector releases the client tests run (the devDependencies)', () => {
    const dev = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies;
    expect(dev['mcp-remote']).toBe(MCP_REMOTE_VERSION);
    expect(dev['@modelcontextprotocol/inspector']).toBe(INSPECTOR_VERSION);
    for (const s of all()) {
      for (const m of s.text.matchAll(/mcp-remote@([\w.-]+)/g)) expect(m[1]).toBe(MCP_REMOTE_VERSION);
      for (const m of s.text.matchAll(/inspector@([\w.-]+)/g)) expect(m[1]).toBe(INSPECTOR_VERSION);
    }
  });
});

/** A link's configuration as text (Cursor's base64, VS Code's URL-encoded JSON). */
function decodeLink(link: string): string {
  const url = new URL(link);
  const config = url.searchParams.get('config');
  return config ? atob(config) : decodeURIComponent(link.slice(link.indexOf('?') + 1));
}

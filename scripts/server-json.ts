/**
 * The MCP registry's `server.json` of each MCP server, committed where `mcp-publisher` reads it
 * (lib/mcp/server-json.ts `COMMITTED_PATHS`: `server.json` at the root for the calculators,
 * `mcp-registry/fund-data/server.json` for the fund data). `npm run build` (scripts/build-docs.ts) writes them
 * from the declarations, with the same function the site serves them from, for the origin wrangler.toml
 * configures (`PUBLIC_ORIGIN`), or `EXAMPLE_ORIGIN` while that is empty; test/mcp/server-json.test.ts fails
 * when a committed file is not current. docs/mcp.md#listing-the-servers-in-the-mcp-registry says how to publish.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../lib/generated/routes.ts';
import { COMMITTED_PATHS, EXAMPLE_ORIGIN, serverJsonAt, serverJsonText } from '../lib/mcp/server-json.ts';
import { publicOriginProblem, readWranglerConfig } from './deployment.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The origin the committed documents name: wrangler.toml's `PUBLIC_ORIGIN` when a deployment could use it
 * (scripts/deployment.ts `publicOriginProblem`), else {@link EXAMPLE_ORIGIN}.
 * @throws what wrangler throws for a wrangler.toml it cannot parse
 */
export function registryOrigin(root = ROOT): { origin: string; configured: boolean } {
  const configured = String(readWranglerConfig(join(root, 'wrangler.toml')).vars.PUBLIC_ORIGIN ?? '');
  return publicOriginProblem(configured) === undefined
    ? { origin: configured, configured: true }
    : { origin: EXAMPLE_ORIGIN, configured: false };
}

/** Each committed document: its path relative to the root and its text as the build writes it. */
export function committedServerJson(origin: string): { path: string; text: string }[] {
  return (['public', 'fund'] as const).map((server) => ({
    path: COMMITTED_PATHS[server],
    text: serverJsonText(serverJsonAt(server, origin, ROUTES)),
  }));
}

/**
 * Writes each committed document that is not current.
 * @returns the origin they name and the paths written
 */
export function writeServerJson(root = ROOT): { origin: string; configured: boolean; written: string[] } {
  const { origin, configured } = registryOrigin(root);
  const written: string[] = [];
  for (const { path, text } of committedServerJson(origin)) {
    const file = join(root, path);
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.push(path);
  }
  return { origin, configured, written };
}

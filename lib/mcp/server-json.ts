/**
 * The two servers as the MCP registry describes a server (`server.json`, schema
 * {@link SERVER_JSON_SCHEMA}; docs/mcp.md#listing-the-servers-in-the-mcp-registry). One document per server:
 * a document's `remotes` are alternative endpoints of one server, and these two serve different tools.
 * Served by the site at {@link REGISTRY_PATHS} with the deployment's own URLs, and committed at
 * {@link COMMITTED_PATHS} for `mcp-publisher` (written by `npm run build` from the same function, with the
 * configured `PUBLIC_ORIGIN`: scripts/server-json.ts), so that the two cannot say different things.
 */
import { CONSOLE_PATH } from '../identity.ts';
import type { Route } from '../endpoint.ts';
import { SERVER_VERSION } from './tools.ts';
import type { McpUrls } from './clients.ts';
import { mcpServerPaths } from './endpoint.ts';

/** The registry's current released schema (its CHANGELOG lists only a draft after it). */
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** Where the site serves each server's document. */
export const REGISTRY_PATHS = { public: '/mcp-registry/calculators/server.json', fund: '/mcp-registry/fund-data/server.json' } as const;

/**
 * Where the repository keeps each document, relative to its root: the calculators' at the root, where
 * `mcp-publisher publish` looks by default, the fund server's under the path the site serves it at.
 */
export const COMMITTED_PATHS = { public: 'server.json', fund: 'mcp-registry/fund-data/server.json' } as const;

/** The origin the committed documents name while wrangler.toml's `PUBLIC_ORIGIN` is empty (not publishable as it is). */
export const EXAMPLE_ORIGIN = 'https://fund-edge.example.com';

/** The registry's limit on `description`, in characters. */
export const REGISTRY_DESCRIPTION_MAX = 100;

/** What each document says of its server (the descriptions within {@link REGISTRY_DESCRIPTION_MAX}). */
const SERVERS = {
  public: {
    suffix: 'calculators',
    title: 'fund-edge calculators',
    description: 'Fund-operations calculators (fees with HWM and hurdle, NAV checks, exposure) and a docs search.',
  },
  fund: {
    suffix: 'fund-data',
    title: 'fund-edge fund data',
    description: 'Read-only shadow-NAV data of one fund: positions, exposure, VaR, P&L, capital accounts.',
  },
} as const;

/**
 * The registry namespace of an origin: its host name reversed (`fund-edge.example.com` →
 * `com.example.fund-edge`), which the publisher proves by DNS or HTTP; characters the registry refuses
 * (an IPv6 literal's) become `-`.
 */
export function registryNamespace(origin: string): string {
  const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  return host
    .split('.')
    .reverse()
    .join('.')
    .replace(/[^a-zA-Z0-9.-]/g, '-');
}

/**
 * The `server.json` of one server at `origin`.
 * @param consoleUrl where keys are minted (named in the header's description)
 */
export function serverJson(server: keyof McpUrls, origin: string, urls: McpUrls, consoleUrl: string): Record<string, unknown> {
  const about = SERVERS[server];
  const header =
    server === 'fund'
      ? `A fund key from ${consoleUrl}. Without it the client signs in with OAuth (the server publishes its metadata).`
      : `Optional: a key from ${consoleUrl}, which raises the daily calculator quota.`;
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: `${registryNamespace(origin)}/${about.suffix}`,
    title: about.title,
    description: about.description,
    version: SERVER_VERSION,
    websiteUrl: `${origin}/`,
    remotes: [
      {
        type: 'streamable-http',
        url: urls[server],
        headers: [
          {
            name: 'Authorization',
            description: header,
            isRequired: false,
            isSecret: true,
            value: 'Bearer {key}',
            variables: { key: { description: 'The key (svc_dk_ and 32 letters or digits).', isRequired: true, isSecret: true } },
          },
        ],
      },
    ],
  };
}

/**
 * The `server.json` of one server deployed at `origin`: its URL from the route table, keys minted on that
 * origin's developer console. What the site serves when `PUBLIC_ORIGIN` is `origin`, and what is committed.
 */
export function serverJsonAt(server: keyof McpUrls, origin: string, routes: readonly Route[]): Record<string, unknown> {
  const paths = mcpServerPaths(routes);
  const urls: McpUrls = { public: `${origin}${paths.public ?? ''}`, fund: `${origin}${paths.fund ?? ''}` };
  return serverJson(server, origin, urls, `${origin}${CONSOLE_PATH}`);
}

/** A document as text, as the site serves it and the repository keeps it: two-space JSON and a final newline. */
export function serverJsonText(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * The composition root's registry: everything `npm run build` derived from the declarations and the files
 * under `functions/`, in one place, for lib/service.ts (and lib/worker.ts through it) to hand to the endpoints.
 * Nothing else in `lib/` reads `lib/generated/`; the features receive what they need from here by parameter
 * (docs/architecture.md).
 *
 * - {@link CATALOG}: the route table, the calculator and fund-tool declarations with their paths, the MCP
 *   servers' `tools/list` entries and the embedded funds' asset fingerprints (each request's context).
 * - {@link SITE_CONTENT}: what the home page and the llms files show; {@link CONSOLE_CLIENT}: the developer
 *   console's browser script and stylesheet.
 *
 * The generated modules are git-ignored, so adding an endpoint commits only its own files; each one's shape
 * is committed beside it (`lib/generated/<name>.d.ts`), so a fresh clone type-checks before its first build.
 */
import type { Catalog } from './endpoint.ts';
import type { SiteContent } from './site/pages.ts';
import type { ConsoleClient } from './console/app.tsx';
import { ROUTES } from './generated/routes.ts';
import { CALCULATORS, FUND_TOOLS } from './generated/declarations.ts';
import { FUND_TOOL_DEFINITIONS, PUBLIC_TOOL_DEFINITIONS } from './generated/mcp-tools.ts';
import { FUND_ASSET_FINGERPRINTS } from './generated/fund-assets.ts';
import { LLMS_TXT } from './generated/docs.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './generated/console-client.ts';

export { ROUTES, CALCULATORS, FUND_TOOLS };

/** What every endpoint is handed (lib/endpoint.ts {@link Catalog}). */
export const CATALOG: Catalog = {
  routes: ROUTES,
  calculators: CALCULATORS,
  fundTools: FUND_TOOLS,
  toolDefinitions: { public: PUBLIC_TOOL_DEFINITIONS, fund: FUND_TOOL_DEFINITIONS },
  fundAssetFingerprints: FUND_ASSET_FINGERPRINTS,
};

/** What the site's pages show (lib/site/pages.ts). */
export const SITE_CONTENT: SiteContent = { catalog: CATALOG, llms: { index: LLMS_TXT } };

/** The developer console's browser files (lib/console/app.tsx). */
export const CONSOLE_CLIENT: ConsoleClient = { js: CONSOLE_JS, css: CONSOLE_CSS };

/**
 * The origin the service presents itself at, in the absolute URLs of its documentation (home page,
 * llms.txt, search_docs results, MCP `serverInfo.websiteUrl`). One function, so that moving it to
 * configuration (a public-origin setting instead of the request's own origin) is a change in one place.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';

/** The service's public origin for a request: today the request's own origin (`https://host[:port]`). */
export function publicOrigin(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

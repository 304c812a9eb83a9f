/**
 * The OAuth routes outside the developer console (docs/oauth.md): RFC 9728 protected resource metadata of
 * the fund MCP server (at its path and path-less), and the library's authorization server endpoints: RFC 8414
 * metadata, the token endpoint (which also revokes, RFC 7009) and dynamic client registration (RFC 7591).
 * The authorization page is the console's (lib/oauth/consent.tsx). Served locally to loopback hosts only
 * (421 otherwise, the DNS-rebinding guard of lib/origin.ts), like the MCP servers.
 */
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { originPolicy, checkHostAndOrigin, requestHost } from '../origin.ts';
import {
  AUTHORIZATION_SERVER_WELL_KNOWN,
  MCP_RESOURCE_PATH,
  PROTECTED_RESOURCE_WELL_KNOWN,
  REGISTER_PATH,
  TOKEN_PATH,
  authorizationServer,
  protectedResourceMetadata,
} from './provider.ts';

/** The request's execution context, or a stand-in where there is none (the app driven by `app.request`). */
function executionContext(c: Context<AppEnv>): ExecutionContext {
  try {
    return c.executionCtx as unknown as ExecutionContext;
  } catch {
    return { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
  }
}

/** Mounts the routes on the app (before the route table). */
export function mountOAuth(app: Hono<AppEnv>): void {
  for (const path of [PROTECTED_RESOURCE_WELL_KNOWN, `${PROTECTED_RESOURCE_WELL_KNOWN}${MCP_RESOURCE_PATH}`]) {
    app.get(path, (c) => {
      checkHostAndOrigin(c.env, requestHost(c.req.raw), undefined);
      // Deployed, the document is the same for every request; locally it names the request's loopback host.
      const cache = originPolicy(c.env).publicOrigin ? 'public, max-age=300' : 'no-store';
      return c.json(protectedResourceMetadata(c), 200, { 'Cache-Control': cache });
    });
  }
  for (const path of [AUTHORIZATION_SERVER_WELL_KNOWN, TOKEN_PATH, REGISTER_PATH]) {
    app.all(path, async (c) => {
      checkHostAndOrigin(c.env, requestHost(c.req.raw), undefined);
      const res = await (await authorizationServer(c)).fetch(c.req.raw, c.env, executionContext(c));
      const out = new Response(res.body, res);
      if (path !== AUTHORIZATION_SERVER_WELL_KNOWN) out.headers.set('Cache-Control', 'no-store');
      return out;
    });
  }
}

/**
 * Stand-in for workerd's built-in `cloudflare:workers` module, aliased in its place (wrangler.toml `[alias]`,
 * vitest.config.ts). `@cloudflare/workers-oauth-provider` imports `WorkerEntrypoint` from it only to tell
 * handler classes from handler objects; the service hands the library no handler (it uses the
 * authorization-server role, lib/oauth/provider.ts), so the check is never reached. Without the alias the
 * bundle starts with a static import of the built-in, which Node cannot load (the CPU and startup benches
 * import the bundle in Node) and which would be evaluated at Worker startup although OAuth is loaded lazily.
 */
export class WorkerEntrypoint {
  constructor() {
    throw new Error('cloudflare:workers is not available: the OAuth library was handed a WorkerEntrypoint handler.');
  }
}

/**
 * The shape of `routes.ts`, which `npm run build` writes (scripts/build-routes.ts) and git ignores: what a fresh
 * clone type-checks against before its first build. Read only by the composition root (lib/registry.ts), the
 * build, the tests and the bench.
 */
import type { Route } from '../endpoint.ts';

/** Every route of the service: each file under `functions/` and the URL path it serves, in path order. */
export declare const ROUTES: readonly Route[];

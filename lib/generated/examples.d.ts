/**
 * The shape of `examples.ts`, which `npm run build` writes (scripts/build-docs.ts) and git ignores: what a
 * fresh clone type-checks against before its first build.
 */

/** The response example of each operation, by operationId: its handler run on its declared request example. */
export declare const RESPONSE_EXAMPLES: Readonly<Record<string, unknown>>;

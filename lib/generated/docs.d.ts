/**
 * The shape of `docs.ts`, which `npm run build` writes (scripts/build-docs.ts) and git ignores: what a fresh
 * clone type-checks against before its first build.
 */

/** `/llms.txt`, with `{{origin}}` where the serving origin goes. */
export declare const LLMS_TXT: string;

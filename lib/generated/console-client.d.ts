/**
 * The shape of `console-client.ts`, which `npm run build` writes (scripts/build-console.ts) and git ignores:
 * what a fresh clone type-checks against before its first build.
 */

/** The developer console's browser script, bundled. */
export declare const CONSOLE_JS: string;
/** The developer console's stylesheet. */
export declare const CONSOLE_CSS: string;

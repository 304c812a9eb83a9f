/**
 * The shape of `fund-assets.ts`, which `npm run build` writes (scripts/build-fund.ts) and git ignores: what a
 * fresh clone type-checks against before its first build.
 */

/** The fingerprint each embedded fund's asset (`public/_fund/<fundId>.bin`) carries, by fund id. */
export declare const FUND_ASSET_FINGERPRINTS: Readonly<Record<string, string>>;

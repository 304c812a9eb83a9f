/**
 * `/llms-full.txt`, the full reference in one Markdown file (every operation, the calculators' formulas, the
 * errors, the design notes and the README), as `scripts/build-docs.ts` writes it: the static asset
 * {@link LLMS_FULL_TEMPLATE_PATH} (public/, not committed) with `{{origin}}` where the serving origin goes.
 * An isolate reads it through the assets binding on its first request for it, as it does the OpenAPI
 * template (lib/openapi-json.ts) and the search index: bundled, its ~260 KB of text took the Worker over
 * its size budget (docs/performance.md) and cost every isolate's startup a string it rarely serves.
 */
import { assetText, keptOnceLoaded } from '../assets.ts';
import type { Env } from '../env.ts';

/** Path of the template among the static assets; `wrangler.toml` runs the Worker first for it, so it is served only filled in. */
export const LLMS_FULL_TEMPLATE_PATH = '/docs/llms-full.template.md';

/**
 * The template's text, read once per isolate ({@link keptOnceLoaded}: a load in progress is never shared).
 * @param assets the Worker's `ASSETS` binding
 * @returns the Markdown with `{{origin}}` marks
 * @throws {Error} when the binding is missing or the asset is not there (a deployment fault: a generic 500)
 */
export const llmsFullTemplate = keptOnceLoaded((assets: Env['ASSETS'] | undefined) =>
  assetText(assets, LLMS_FULL_TEMPLATE_PATH, 'The llms-full template'),
);

/**
 * The OpenAPI document as `GET /api/v1/openapi.json` serves it: JSON text computed at build time from the
 * declarations (`openApiDocument` in lib/openapi.ts), with {@link SERVER_URL_MARK} as its server URL, and
 * published by `scripts/build-docs.ts` as the static asset {@link OPENAPI_TEMPLATE_PATH} (public/). An
 * isolate reads it through the assets binding on its first request for the document (like the search
 * index, lib/docs/search.ts), so the document costs the Worker's code nothing and no isolate converts a zod
 * schema to JSON Schema; the three URLs that depend on the configuration (the server, the contact and the
 * external docs, see `withServer` in lib/openapi.ts) are filled in when served (docs/api.md "OpenAPI").
 * `test/openapi.test.ts` proves the served text equals, byte for byte, `JSON.stringify` of the document the
 * declarations produce now, so a stale asset fails the tests.
 */
import * as z from 'zod';
import { assetText, keptOnceLoaded } from './assets.ts';
import type { Env } from './env.ts';

/** Loose schema of the document itself (for the endpoint's own response declaration). */
export const openApiDocumentSchema = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.');

/**
 * The server URL the document is generated with at build time. It occurs exactly three times in the text
 * (contact, external docs, then `servers`), where {@link openApiJson} puts the configured one.
 */
export const SERVER_URL_MARK = 'https://server-url.invalid';

/** Path of the document's template among the static assets (written by `scripts/build-docs.ts`). */
export const OPENAPI_TEMPLATE_PATH = '/docs/openapi.template.json';

/** A string as it appears inside a JSON string literal (no quotes). */
const jsonText = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * The document's JSON text for a server URL, from its template.
 * @param template the text of {@link OPENAPI_TEMPLATE_PATH}
 * @param serverUrl the configured `PUBLIC_ORIGIN`, else `/` (relative links), as for `openApiDocument`
 * @returns exactly `JSON.stringify(openApiDocument(ROUTES, serverUrl, examples))` of the build
 * @throws {Error} when the template does not hold the mark three times (a deployment fault: 500)
 */
export function openApiJson(template: string, serverUrl: string): string {
  const parts = template.split(SERVER_URL_MARK);
  if (parts.length !== 4) throw new Error('The OpenAPI template does not hold its server URL three times.');
  const base = jsonText(serverUrl === '/' ? '' : serverUrl);
  return parts[0]! + base + parts[1]! + base + parts[2]! + jsonText(serverUrl) + parts[3]!;
}

/**
 * The template's text from the static assets, read once per isolate ({@link keptOnceLoaded}).
 * @param assets the Worker's `ASSETS` binding
 * @throws {Error} when the assets binding is missing or the template is not there (a deployment fault: 500)
 */
export const openApiTemplate = keptOnceLoaded((assets: Env['ASSETS'] | undefined) =>
  assetText(assets, OPENAPI_TEMPLATE_PATH, 'The OpenAPI template'),
);

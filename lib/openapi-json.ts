/**
 * The OpenAPI document as `GET /api/v1/openapi.json` serves it: JSON text computed at build time from the
 * declarations (`openApiDocument` in lib/openapi.ts, written by `scripts/build-docs.ts` to
 * `lib/generated/openapi.ts` as {@link OPENAPI_JSON_PARTS}), so an isolate never converts a zod schema to
 * JSON Schema to answer it (docs/api.md "OpenAPI"). Only the three URLs that depend on the configuration
 * (the server, the contact and the external docs, see `withServer` in lib/openapi.ts) are filled in when
 * served. `test/openapi.test.ts` proves the text equals, byte for byte, `JSON.stringify` of the document
 * the declarations produce now, so a stale generated file fails the tests.
 */
import * as z from 'zod';
import { OPENAPI_JSON_PARTS } from './generated/openapi.ts';

/** Loose schema of the document itself (for the endpoint's own response declaration). */
export const openApiDocumentSchema = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.');

/**
 * The server URL the document is generated with at build time; the text is cut at its three occurrences
 * (contact, external docs, then `servers`), which {@link openApiJson} fills in.
 */
export const SERVER_URL_MARK = 'https://server-url.invalid';

/** A string as it appears inside a JSON string literal (no quotes). */
const jsonText = (s: string) => JSON.stringify(s).slice(1, -1);

/**
 * The OpenAPI document's JSON text for a server URL.
 * @param serverUrl the configured `PUBLIC_ORIGIN`, else `/` (relative links), as for `openApiDocument`
 * @returns exactly `JSON.stringify(openApiDocument(ROUTES, serverUrl))`
 */
export function openApiJson(serverUrl: string): string {
  const base = jsonText(serverUrl === '/' ? '' : serverUrl);
  const fill = [base, base, jsonText(serverUrl)];
  let out = OPENAPI_JSON_PARTS[0] ?? '';
  for (let i = 1; i < OPENAPI_JSON_PARTS.length; i++) out += fill[i - 1]! + OPENAPI_JSON_PARTS[i]!;
  return out;
}

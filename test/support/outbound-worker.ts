/**
 * A test-only Worker entry (never part of the shipped bundle: wrangler.toml's `main` is lib/worker.ts): the
 * real Worker with its outbound `fetch` answered by the test (test/support/worker.ts, the `outbound` option),
 * as Miniflare's `outboundService` would answer it (wrangler's `unstable_startWorker` declares that option but
 * does not pass it to Miniflare). The Worker sees the public URLs it asked for; the test answers them.
 *
 * - Every `fetch()` to a host that is not loopback goes to the test's HTTP server on loopback, named by the
 *   `TEST_OUTBOUND` binding (`http://127.0.0.1:<port>`), with the URL asked for in {@link OUTBOUND_URL_HEADER}
 *   and the request's method, headers, body and abort signal; loopback requests go out as they are.
 * - Redirects keep `fetch`'s semantics (Fetch standard, "HTTP-redirect fetch"), so a test sees every hop:
 *   each hop is sent with `redirect: 'manual'`; a 301, 302, 303, 307 or 308 with a `Location` is returned as
 *   it is under `redirect: 'manual'`, is a `TypeError` under `'error'`, and under `'follow'` (the default) is
 *   requested in turn (its `Location` resolved against the hop's URL; 303, and 301 or 302 after a POST, as a
 *   GET without a body; at most 20 redirects, then a `TypeError`). A body is sent on the first hop only.
 * - The test server answers a request it has no answer for by closing the connection: `fetch` fails, as for
 *   a host that cannot be reached.
 */
import worker from '../../lib/worker.ts';
import type { Env } from '../../lib/env.ts';

/** The Worker's Durable Object classes, exported as the real entry exports them (wrangler.toml binds them). */
export { AtomicRecord } from '../../lib/worker.ts';

/** The header carrying the URL the Worker asked for to the test's server (test/support/worker.ts reads it). */
const OUTBOUND_URL_HEADER = 'x-test-outbound-url';

/** The redirects `fetch` follows before it fails (Fetch standard). */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The test server's origin, from the binding of the request being served (the same for every request). */
let target: string | undefined;
const native = globalThis.fetch;

/** True for a host this machine serves: the Worker's own and the test's servers, left alone. */
function loopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
}

/** Sends one hop to the test server: the URL asked for in the header, never following its answer. */
function hop(url: string, method: string, headers: Headers, body: BodyInit | null, signal: AbortSignal): Promise<Response> {
  const sent = new Headers(headers);
  sent.set(OUTBOUND_URL_HEADER, url);
  return native(`${target}/`, { method, headers: sent, body, redirect: 'manual', signal });
}

/** The Worker's `fetch`, with hosts that are not loopback answered by the test. */
async function intercepted(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (target === undefined || loopback(new URL(request.url).hostname)) return native(request);
  let url = request.url;
  let method = request.method;
  let body: BodyInit | null = request.body;
  for (let redirects = 0; ; redirects++) {
    const answer = await hop(url, method, request.headers, body, request.signal);
    const location = answer.headers.get('location');
    if (!REDIRECT_STATUSES.has(answer.status) || location === null || request.redirect === 'manual') return answer;
    await answer.body?.cancel();
    if (request.redirect === 'error') throw new TypeError('fetch failed: a redirect under redirect: "error"');
    if (redirects >= MAX_REDIRECTS) throw new TypeError('fetch failed: too many redirects');
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) method = 'GET';
    url = new URL(location, url).toString();
    body = null;
  }
}

globalThis.fetch = intercepted as typeof fetch;

export default {
  fetch(request, env, ctx) {
    target = env.TEST_OUTBOUND;
    return worker.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env & { TEST_OUTBOUND?: string }>;

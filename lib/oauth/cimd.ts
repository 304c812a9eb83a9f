/**
 * Client ID Metadata Documents (docs/oauth.md#client-id-metadata-documents): a client may identify itself by
 * the `https` URL of a JSON document describing it (its name, its redirect URIs), which the authorization
 * server fetches instead of asking the client to register. The library fetches, bounds, validates and caches
 * the document (5 KiB, 10 s, the Cache API for at most a week); the runtime's `global_fetch_strictly_public`
 * compatibility flag (wrangler.toml) lets that fetch reach public addresses only, deployed. This module refuses, before anything is fetched, a client id whose host is written as an
 * address that is not public or as a name of this machine or network: locally, where the runtime does not
 * enforce the flag, and as a second line deployed. And the library's fetch of a document follows no redirect
 * ({@link guardMetadataFetch}): the document must be answered at its own URL.
 */

/** IPv4 ranges that are not public (RFC 6890): this network, private, shared, loopback, link-local, documentation, benchmarking, multicast, reserved. */
const PRIVATE_V4: readonly [number, number][] = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0000000, 24],
  [0xc0000200, 24],
  [0xc0a80000, 16],
  [0xc6120000, 15],
  [0xc6336400, 24],
  [0xcb007100, 24],
  [0xe0000000, 3],
];

/** Host names that never name a public server: this machine, and the suffixes of local and internal networks. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|lan|home\.arpa|intranet|corp)$/i;

/** The 32-bit value of a dotted IPv4 address (as `URL` normalizes it: four decimal parts), or null. */
function ipv4(host: string): number | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** True for an IPv4 address in a range of {@link PRIVATE_V4}. */
function privateV4(value: number): boolean {
  return PRIVATE_V4.some(([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/**
 * True for an IPv6 address (as `URL` writes it, in brackets) that is not public: unspecified, loopback,
 * IPv4-mapped or -translated (judged by its IPv4 part), unique local (fc00::/7), link-local (fe80::/10),
 * site-local (fec0::/10), multicast (ff00::/8), documentation (2001:db8::/32).
 */
function privateV6(host: string): boolean {
  const address = host.slice(1, -1).toLowerCase();
  if (address === '::' || address === '::1') return true;
  const mapped = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped) return privateV4(Number.parseInt(mapped[1]!, 16) * 65536 + Number.parseInt(mapped[2]!, 16));
  return /^(f[cd]|fe[89ab]|fe[c-f]|ff)/.test(address) || address.startsWith('2001:db8:') || address.startsWith('::ffff:');
}

/**
 * Why a client id URL may not be fetched as a metadata document, or null when it may (or when it is not a
 * metadata document's URL at all: the library decides that, and such a client id is looked up as a
 * registered client). Linear in the URL's length.
 * @returns a sentence for the authorization page, which never quotes the URL
 */
export function metadataUrlRefusal(clientId: string): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:') return null;
  const host = url.hostname;
  const v4 = ipv4(host);
  const notPublic = host.startsWith('[') ? privateV6(host) : v4 !== null ? privateV4(v4) : LOCAL_NAME.test(host) || !host.includes('.');
  return notPublic
    ? "The application's client id names a metadata document on an address that is not public; the server fetches such documents from public addresses only."
    : null;
}

/** How the library's own outbound requests (its metadata document fetch) name themselves in `User-Agent`. */
const LIBRARY_USER_AGENT = 'workers-oauth-provider/';
/** The statuses `fetch` follows as redirects (Fetch standard, "redirect status"). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Marks the global `fetch` once it is guarded, so it is wrapped once whatever number of calls. */
const GUARDED = Symbol.for('fund-edge.metadata-fetch-guard');

/**
 * A metadata document's fetch refused by {@link guardMetadataFetch}: its URL answered with a redirect, or
 * names an address that is not public. The library wraps it in its `CimdFetchError`, which the authorization
 * page answers 400 and the token endpoint `invalid_client`; the URL is never quoted to the client.
 */
export class MetadataFetchRefusedError extends Error {
  override readonly name = 'MetadataFetchRefusedError';
}

/** The `User-Agent` a `fetch(input, init)` call sends: `init`'s headers win over the request's, as `fetch` applies them. */
function userAgentOf(input: RequestInfo | URL, init: RequestInit | undefined): string {
  const headers = init?.headers !== undefined ? new Headers(init.headers) : input instanceof Request ? input.headers : null;
  return headers?.get('user-agent') ?? '';
}

/**
 * Makes the library's fetch of a metadata document follow no redirect, as the Client ID Metadata Document
 * draft asks ("The authorization server MUST NOT automatically follow HTTP redirects when retrieving the
 * client registration information", the response must be a 200). The pinned library fetches with the
 * global `fetch` and its default, `redirect: 'follow'`, and takes no fetch of ours; so the global `fetch` is
 * wrapped, once per `fetch` in force (the call is cheap to repeat): a request whose `User-Agent` is the
 * library's (`workers-oauth-provider/…`) is sent with `redirect: 'manual'`, and a redirect answer (301, 302,
 * 303, 307, 308) is refused with {@link MetadataFetchRefusedError}, its body cancelled, its `Location` never
 * requested; so is a URL {@link metadataUrlRefusal} refuses. Every other request passes through unchanged.
 * Deployed, `global_fetch_strictly_public` would keep a followed redirect to public addresses; this refuses
 * every redirect, to a public host too, and works where the flag is not enforced (locally).
 */
export function guardMetadataFetch(): void {
  const current = globalThis.fetch as typeof fetch & { [GUARDED]?: true };
  if (current[GUARDED]) return;
  const guarded = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (!userAgentOf(input, init).startsWith(LIBRARY_USER_AGENT)) return Reflect.apply(current, globalThis, [input, init]);
    const url = input instanceof Request ? input.url : String(input);
    if (metadataUrlRefusal(url)) throw new MetadataFetchRefusedError('The metadata document is on an address that is not public.');
    const answer: Response = await Reflect.apply(current, globalThis, [input, { ...init, redirect: 'manual' }]);
    if (REDIRECT_STATUSES.has(answer.status)) {
      await answer.body?.cancel().catch(() => undefined);
      throw new MetadataFetchRefusedError(`The metadata document answered ${answer.status}: it must be answered at its own URL.`);
    }
    return answer;
  };
  globalThis.fetch = Object.assign(guarded, { [GUARDED]: true as const });
}

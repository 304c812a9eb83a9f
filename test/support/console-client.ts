/**
 * A developer-console user over real HTTP, without a browser: cookies kept per user, a client network of
 * its own (`CF-Connecting-IP`, which local workerd passes through), the console's `Origin` and CSRF token
 * on every POST, and sign-up with a software passkey (test/support/passkey.ts).
 */
import { createPasskeyResponse, type CreationOptions } from './passkey.ts';

const API = '/developers/console/api';

/**
 * A request body that sends all of `bytes` but the last at once, and the last once `after` settles: requests
 * given one such promise reach their handlers together (the "last-byte-synchronised" requests).
 */
export function lastByteHeld(bytes: Uint8Array, after: Promise<unknown>): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes.slice(0, -1));
      await after;
      controller.enqueue(bytes.slice(-1));
      controller.close();
    },
  });
  return { body, duplex: 'half' };
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = '';
  accountId = '';
  readonly origin: string;
  readonly ip: string;

  /**
   * @param origin the console's origin, `http://localhost:<port>` (the console serves `localhost` only)
   * @param ip the client address this user's requests come from
   */
  constructor(origin: string, ip: string) {
    this.origin = origin;
    this.ip = ip;
  }

  /** A request with this user's cookies and address; keeps the cookies it sets. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('cf-connecting-ip', this.ip);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(`${this.origin}${path}`, { ...init, headers, redirect: 'manual' });
    for (const line of (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      if (attributes.some((a: string) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1));
    }
    return res;
  }

  /**
   * A console API POST (JSON, the console's Origin, the session's CSRF token once signed in).
   * @param lastByteAfter when given, the body's last byte is held until it settles ({@link lastByteHeld})
   */
  post(path: string, body: unknown = {}, lastByteAfter?: Promise<unknown>): Promise<Response> {
    const text = new TextEncoder().encode(JSON.stringify(body));
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: this.origin, 'x-csrf-token': this.csrf },
      body: text,
    };
    return this.request(`${API}${path}`, lastByteAfter === undefined ? init : { ...init, ...lastByteHeld(text, lastByteAfter) });
  }

  /**
   * Creates an account with a new software passkey (and redeems `invitation` with it when given), then
   * reads the session's CSRF token from the dashboard.
   * @returns the `register/verify` response (201 on success)
   */
  async signUp(invitation?: string): Promise<Response> {
    const started = await this.post('/register/options');
    if (started.status !== 200) return started;
    const { options } = (await started.json()) as { options: CreationOptions };
    const response = await createPasskeyResponse(options, this.origin);
    const verified = await this.post('/register/verify', { response, ...(invitation ? { invitation } : {}) });
    if (verified.status === 201) {
      this.accountId = ((await verified.clone().json()) as { accountId: string }).accountId;
      const page = await (await this.request('/developers/console')).text();
      this.csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? '';
    }
    return verified;
  }
}

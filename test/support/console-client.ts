/**
 * A developer-console user over real HTTP, without a browser: cookies kept per user, a client network of
 * its own (`CF-Connecting-IP`, which local workerd passes through), the console's `Origin` and CSRF token
 * on every POST, and sign-up with a software passkey (test/support/passkey.ts).
 */
import { execFileSync } from 'node:child_process';
import { createPasskeyResponse, type CreationOptions } from './passkey.ts';

const API = '/developers/console/api';

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
   * @param lastByteAfter when given, everything but the body's last byte is sent at once and the last byte
   *   once it settles: requests given one such promise reach their handlers together (the issue's
   *   "last-byte-synchronised" POSTs)
   */
  post(path: string, body: unknown = {}, lastByteAfter?: Promise<unknown>): Promise<Response> {
    const text = new TextEncoder().encode(JSON.stringify(body));
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: this.origin, 'x-csrf-token': this.csrf },
      body: text,
    };
    if (lastByteAfter !== undefined) {
      init.body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(text.slice(0, -1));
          await lastByteAfter;
          controller.enqueue(text.slice(-1));
          controller.close();
        },
      });
      init.duplex = 'half';
    }
    return this.request(`${API}${path}`, init);
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

/**
 * Creates an invitation through the real `npm run console -- invite` CLI in the local KV under `persistDir`.
 * @returns the invitation's token (the 32 characters at the end of the printed link)
 * @throws {Error} when the CLI fails or prints no link
 */
export function invite(persistDir: string, args: readonly string[] = ['--fund', 'sample-fund']): string {
  const printed = execFileSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      'scripts/console.ts',
      'invite',
      ...args,
      '--persist-to',
      persistDir,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
  );
  const token = /([0-9A-Za-z]{32})\s*$/.exec(printed)?.[1];
  if (!token) throw new Error('the console CLI printed no invitation link');
  return token;
}

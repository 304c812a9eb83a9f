/**
 * What the developer console's pages and the OAuth consent pages mounted on it (lib/console/consent.tsx) share:
 * the console's Hono environment and the session's CSRF token. Kept apart from the console app, which mounts
 * the consent pages, so that neither imports the other.
 */
import type { AppEnv } from '../env.ts';
import type { Account } from './standing.ts';
import type { ConsoleConfig, ConsoleSettings } from './config.ts';

/** Hono environment of the console: the app's, plus the request's console configuration and session. */
export interface ConsoleEnv {
  Bindings: AppEnv['Bindings'];
  Variables: AppEnv['Variables'] & {
    consoleSettings: ConsoleSettings;
    consoleConfig: ConsoleConfig;
    session: { sessionId: string; account: Account } | null;
  };
}

/** The CSRF token of a session: HMAC-SHA-256(session secret, "csrf:" + session id), base64url. */
export async function csrfToken(secret: string, sessionId: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`csrf:${sessionId}`)));
  return btoa(String.fromCharCode(...mac))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=/g, '');
}

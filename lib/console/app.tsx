/** @jsxImportSource hono/jsx */
/**
 * The developer console at `/developers/console` (docs/console.md): pages, passkey sign-up and
 * sign-in, sessions, key minting and revocation, invitations. Mounted on the service's app by lib/service.ts.
 *
 * Every request first passes the console's pipeline (lib/console/pipeline.ts): security headers (a
 * Content-Security-Policy with no inline script and `frame-ancestors 'none'`, nosniff, `Referrer-Policy:
 * no-referrer`) through hono's `secure-headers`, `Cache-Control: no-store`, and the console's Host guard
 * (lib/console/config.ts `consoleHostCheck`). Every state-changing request is a JSON POST under `/api/` that
 * must pass hono's `csrf` check, come from the console's own `Origin`, and, once signed in, carry the
 * session's CSRF token in `X-CSRF-Token`. Sign-up, sign-in and minting are rate limited per client network
 * (`CONSOLE_BURST`), and sign-ups are capped per client network and UTC day (an atomic count,
 * lib/atomic.ts). Errors are problem+json (RFC 9457) like the API's; keys, session ids, tokens and
 * credential ids are never logged.
 */
import { Hono, type Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import * as z from 'zod';
import { readJsonObject, type Catalog } from '../endpoint.ts';
import { quickstartCalls } from '../catalog.ts';
import type { AppEnv } from '../env.ts';
import { ApiError, RateLimitedError } from '../errors.ts';
import { ACCOUNT_CALLER, calcCallsByDay, clientNetwork, secondsToUtcMidnight, systemClock, type Clock } from '../rate-limit.ts';
import { giveBack, take } from '../atomic.ts';
import { SIGNUPS_PER_NETWORK_PER_DAY } from '../limits.ts';
import { parseInput } from '../validation.ts';
import { DEFAULT_FUND_ID } from '../fund/source.ts';
import {
  createSession,
  endSession,
  listAccountKeys,
  mintAccountKey,
  revokeAccountKey,
  SESSION_TTL_SECONDS,
  CHALLENGE_TTL_SECONDS,
  type Account,
} from './accounts.ts';
import { redeemInvitation, usableInvitation } from './invitations.ts';
import type { ConsoleConfig } from './config.ts';
import { CONSOLE_PATH, planDailyCalcLimit } from '../identity.ts';
import { DashboardPage, InvitationPage, KeysCard, Layout, WelcomePage, type QuickstartPaths } from './pages.tsx';
import { mcpServerPaths } from '../mcp/endpoint.ts';
import { SESSION_COOKIE, useConsolePipeline } from './pipeline.ts';
import { csrfToken, type ConsoleEnv } from './session.ts';
import { mountConsent } from './consent.tsx';

export { csrfToken, type ConsoleEnv } from './session.ts';
export { SESSION_COOKIE } from './pipeline.ts';

type ConsoleContext = Context<ConsoleEnv>;

/** Name of the cookie holding a pending WebAuthn challenge's id. */
export const CHALLENGE_COOKIE = 'fe_console_challenge';

/** The console's browser script and stylesheet, bundled at build time (`lib/console/client/`). */
export interface ConsoleClient {
  js: string;
  css: string;
}

/** 401 `unauthorized` for a console request without a valid session (no Bearer challenge: this is a cookie). */
export class SessionRequiredError extends ApiError {
  constructor() {
    super('unauthorized', 'Sign in to the developer console first (your session is missing or has ended).');
    this.name = 'SessionRequiredError';
  }
}

/** Body of `POST /api/keys`. */
export const MintKeyBody = z.strictObject({
  /** A name for the key, 1..64 characters, no control characters. */
  label: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[^\p{Cc}]*$/u),
  scope: z.enum(['calc', 'fund']),
  /** The fund of a `fund` key; defaults to the account's invited fund. */
  fundId: z.string().min(1).max(64).optional(),
});

/** Body of the passkey verification endpoints: the browser's response and an optional invitation token. */
const CeremonyBody = z.strictObject({
  response: z.record(z.string(), z.unknown()),
  invitation: z.string().max(64).optional(),
});

const InvitationBody = z.strictObject({ invitation: z.string().max(64) });

const cookieOptions = (config: ConsoleConfig) => ({
  httpOnly: true,
  secure: config.secureCookies,
  sameSite: 'Lax' as const,
  path: '/',
  ...(config.secureCookies ? { prefix: 'host' as const } : {}),
});

/** Asks `CONSOLE_BURST` for one more `action` from the client's network. @throws {RateLimitedError} 429 */
async function consoleBurst(c: ConsoleContext, action: string): Promise<void> {
  const { success } = await c.env.CONSOLE_BURST.limit({ key: `${action}:${clientNetwork(c.req.header('cf-connecting-ip'))}` });
  if (!success) throw new RateLimitedError('Too many attempts in a short time; wait a minute and try again.', 60);
}

/**
 * Asks the client network's sign-up count of the UTC day (an atomic record, lib/atomic.ts) for one more
 * account, or with `peek` only whether one is left: at most {@link SIGNUPS_PER_NETWORK_PER_DAY} accounts
 * are created per network and day (docs/atomic.md#sign-ups-per-network).
 * @returns the count's record name (to give the account back when none was created)
 * @throws {RateLimitedError} 429, `Retry-After` until 00:00 UTC, when the network created its accounts of the day
 */
async function signUpAllowance(c: ConsoleContext, peek: boolean, now: Date): Promise<string> {
  const name = `signups:${clientNetwork(c.req.header('cf-connecting-ip'))}:${now.toISOString().slice(0, 10)}`;
  const untilMidnight = secondsToUtcMidnight(now);
  const { ok } = await take(c.env.ATOMIC, name, SIGNUPS_PER_NETWORK_PER_DAY, now.getTime() + (untilMidnight + 3600) * 1000, peek);
  if (!ok) {
    throw new RateLimitedError(
      `This network created ${SIGNUPS_PER_NETWORK_PER_DAY} developer accounts today; create another after 00:00 UTC, or sign in to an existing one.`,
      untilMidnight,
    );
  }
  return name;
}

/** The signed-in session. @throws {SessionRequiredError} 401 without one */
function requireSession(c: ConsoleContext): { sessionId: string; account: Account } {
  const session = c.get('session');
  if (!session) throw new SessionRequiredError();
  return session;
}

/**
 * The console's routes, to mount at {@link CONSOLE_PATH}.
 * @param options.clock the time source (tests inject one to expire sessions and invitations)
 * @param options.client the browser script and stylesheet (`npm run build` bundles them: scripts/build-console.ts),
 *   handed in by the composition root
 * @param options.catalog the declarations, for the dashboard's quick starts (their URLs)
 */
export function consoleApp(options: {
  clock?: Clock;
  client: ConsoleClient;
  catalog: Pick<Catalog, 'calculators' | 'fundTools' | 'routes'>;
}): Hono<ConsoleEnv> {
  const clock = options.clock ?? systemClock;
  const calls = quickstartCalls(options.catalog);
  const mcp = mcpServerPaths(options.catalog.routes);
  const quickstart: QuickstartPaths = {
    calculator: calls.calculator?.path ?? '',
    fund: calls.fundPath ?? '',
    mcpPublic: mcp.public ?? '',
    mcpFund: mcp.fund ?? '',
  };
  const app = new Hono<ConsoleEnv>();
  useConsolePipeline(app, clock);

  // OAuth 2.1 for the fund MCP server: the authorization page and authorized applications (lib/console/consent.tsx).
  mountConsent(app);

  app.get('/console.js', (c) => c.body(options.client.js, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/console.css', (c) => c.body(options.client.css, 200, { 'Content-Type': 'text/css; charset=utf-8' }));

  mountPages(app, clock, quickstart);
  mountCeremonies(app, clock);
  mountAccountApi(app, clock);
  return app;
}

/** The pages: the welcome page or the dashboard, and an invitation's page. */
function mountPages(app: Hono<ConsoleEnv>, clock: Clock, quickstart: QuickstartPaths): void {
  app.get('/', async (c) => {
    const session = c.get('session');
    if (!session) return c.html(<WelcomePage docsUrl={c.get('consoleSettings').docsUrl ?? undefined} />);
    return c.html(await dashboard(c, clock, quickstart, session));
  });

  // The keys card alone, for the browser script to show a key it has just minted (no state changes: a GET).
  app.get('/keys', async (c) => {
    const { account } = requireSession(c);
    return c.html(<KeysCard keys={await listAccountKeys(c.env.CONSOLE, c.env.API_KEYS, account.accountId)} />);
  });

  // An invitation link carries its token in the fragment (`/invite#<token>`), which browsers never send: it
  // appears in no request path or log. The page's script asks `api/invitations/preview` what it grants.
  app.get('/invite', async (c) => {
    const session = c.get('session');
    const csrf = session ? await csrfToken(c.get('consoleConfig').sessionSecret, session.sessionId) : undefined;
    return c.html(<InvitationPage signedIn={session !== null} csrfToken={csrf} docsUrl={c.get('consoleSettings').docsUrl ?? undefined} />);
  });

  // Links printed before the token moved to the fragment (`/invite/<token>`) are retired: their token travelled
  // in a request path, where access logs keep it. 410 with a page that asks for a new link; the token is not
  // read, looked up, redeemed, echoed or logged (lib/log.ts masks this path), and the answer is not cached.
  app.get('/invite/:token', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.html(
      <Layout title="Link retired · fund-edge developer console" docsUrl={c.get('consoleSettings').docsUrl ?? undefined}>
        <h1>This invitation link is no longer accepted</h1>
        <p>
          Invitation links of this form carried their code in the page address, where logs keep it, so they are retired. Nothing was
          redeemed. Ask the fund operator for a new link: it looks like <code>{`${CONSOLE_PATH}/invite#…`}</code>.
        </p>
      </Layout>,
      410,
    );
  });
}

/** Passkey sign-up and sign-in (lib/console/webauthn.ts, loaded on the first ceremony). */
function mountCeremonies(app: Hono<ConsoleEnv>, clock: Clock): void {
  // Passkey ceremonies: `options` stores a challenge and sets its cookie; `verify` answers it (once), creates
  // the account (register) or finds it (login), redeems an invitation sent along, and starts a session.
  for (const ceremony of ['register', 'login'] as const) {
    app.post(`/api/${ceremony}/options`, async (c) => {
      await consoleBurst(c, ceremony);
      // Refused before the browser asks for a passkey it could not use.
      if (ceremony === 'register') await signUpAllowance(c, true, clock());
      const webauthn = await import('./webauthn.ts');
      const config = c.get('consoleConfig');
      const { options, challengeId } =
        ceremony === 'register'
          ? await webauthn.registrationOptions(c.env.CONSOLE, config)
          : await webauthn.authenticationOptions(c.env.CONSOLE, config);
      await setChallengeCookie(c, challengeId);
      return c.json({ options });
    });

    app.post(`/api/${ceremony}/verify`, async (c) => {
      await consoleBurst(c, ceremony);
      const body = parseInput(CeremonyBody, await readJsonObject(c as unknown as Context<AppEnv>), 'body');
      if (body.invitation !== undefined) await usableInvitation(c.env.CONSOLE, body.invitation, clock());
      const webauthn = await import('./webauthn.ts');
      const config = c.get('consoleConfig');
      const challengeId = await takeChallengeCookie(c);
      let account: Account;
      if (ceremony === 'register') {
        // A sign-up takes one of the network's accounts of the day, given back when no account is created.
        const slot = await signUpAllowance(c, false, clock());
        try {
          account = await webauthn.verifyRegistration(c.env.CONSOLE, config, challengeId, body.response, clock());
        } catch (err) {
          await giveBack(c.env.ATOMIC, slot);
          throw err;
        }
      } else account = await webauthn.verifyAuthentication(c.env.CONSOLE, config, challengeId, body.response);
      if (body.invitation !== undefined) account = await redeemInvitation(c.env.CONSOLE, c.env.ATOMIC, body.invitation, account, clock());
      const prior = c.get('session');
      if (prior) await endSession(c.env.CONSOLE, prior.sessionId);
      await startSession(c, clock, account);
      return c.json({ accountId: account.accountId }, ceremony === 'register' ? 201 : 200);
    });
  }
}

/** What a signed-in developer does: sign out, mint and revoke keys, accept an invitation. */
function mountAccountApi(app: Hono<ConsoleEnv>, clock: Clock): void {
  app.post('/api/logout', async (c) => {
    const { sessionId } = requireSession(c);
    await endSession(c.env.CONSOLE, sessionId);
    const config = c.get('consoleConfig');
    deleteCookie(c, SESSION_COOKIE, cookieOptions(config));
    return c.json({ signedOut: true });
  });

  app.post('/api/keys', async (c) => {
    const { account } = requireSession(c);
    await consoleBurst(c, 'mint');
    const body = parseInput(MintKeyBody, await readJsonObject(c as unknown as Context<AppEnv>), 'body');
    const { key, record } = await mintAccountKey(c.env.CONSOLE, c.env.API_KEYS, c.env.ATOMIC, account, {
      scope: body.scope,
      label: body.label,
      ...(body.fundId !== undefined ? { fundId: body.fundId } : {}),
      now: clock(),
    });
    const { dailyCalcLimit: _unused, ...shown } = record;
    return c.json({ key, ...shown, dailyCalcLimit: planDailyCalcLimit(account.plan) }, 201);
  });

  app.post('/api/keys/:keyId/revoke', async (c) => {
    const { account } = requireSession(c);
    const keyId = c.req.param('keyId');
    if (!/^key_[0-9A-Za-z]{16}$/.test(keyId)) throw new ApiError('not_found', 'This account has no such key.');
    const record = await revokeAccountKey(c.env.CONSOLE, c.env.API_KEYS, c.env.ATOMIC, account.accountId, keyId, clock());
    return c.json({ keyId: record.keyId, prefix: record.prefix, revokedAt: record.revokedAt });
  });

  // What an invitation grants, for its page (the token travels in the body, never in a path).
  app.post('/api/invitations/preview', async (c) => {
    const body = parseInput(InvitationBody, await readJsonObject(c as unknown as Context<AppEnv>), 'body');
    const invitation = await usableInvitation(c.env.CONSOLE, body.invitation, clock());
    return c.json({ fundId: invitation.fundId, plan: invitation.plan });
  });

  app.post('/api/invitations/accept', async (c) => {
    const { account } = requireSession(c);
    const body = parseInput(InvitationBody, await readJsonObject(c as unknown as Context<AppEnv>), 'body');
    const updated = await redeemInvitation(c.env.CONSOLE, c.env.ATOMIC, body.invitation, account, clock());
    return c.json({ accountId: updated.accountId, fundIds: updated.fundIds, plan: updated.plan });
  });
}

/** The dashboard's data for a session. */
async function dashboard(c: ConsoleContext, clock: Clock, quickstart: QuickstartPaths, session: { sessionId: string; account: Account }) {
  const config = c.get('consoleConfig');
  const { account } = session;
  // One KV bulk read of the days not yet known final in this isolate (lib/rate-limit.ts calcCallsByDay).
  const days = await calcCallsByDay(c.env.RATE_LIMITS, `${ACCOUNT_CALLER}${account.accountId}`, clock());
  const servedFund = c.env.FUND_ID || DEFAULT_FUND_ID;
  return (
    <DashboardPage
      account={account}
      keys={await listAccountKeys(c.env.CONSOLE, c.env.API_KEYS, account.accountId)}
      usage={{ used: days.at(-1)?.calls ?? 0, limit: planDailyCalcLimit(account.plan), days }}
      base={config.origin}
      mcp={{ public: `${config.origin}${quickstart.mcpPublic}`, fund: `${config.origin}${quickstart.mcpFund}` }}
      csrfToken={await csrfToken(config.sessionSecret, session.sessionId)}
      fundId={account.fundIds.includes(servedFund) ? servedFund : (account.fundIds[0] ?? null)}
      docsUrl={c.get('consoleSettings').docsUrl ?? undefined}
      quickstart={quickstart}
    />
  );
}

/** Starts a session for `account` and sets its signed cookie. */
async function startSession(c: ConsoleContext, clock: Clock, account: Account): Promise<void> {
  const config = c.get('consoleConfig');
  const { sessionId } = await createSession(c.env.CONSOLE, account.accountId, clock());
  await setSignedCookie(c, SESSION_COOKIE, sessionId, config.sessionSecret, { ...cookieOptions(config), maxAge: SESSION_TTL_SECONDS });
}

/** Sets the signed cookie of a pending passkey challenge (strict same-site, short-lived). */
async function setChallengeCookie(c: ConsoleContext, challengeId: string): Promise<void> {
  const config = c.get('consoleConfig');
  await setSignedCookie(c, CHALLENGE_COOKIE, challengeId, config.sessionSecret, {
    ...cookieOptions(config),
    sameSite: 'Strict',
    maxAge: CHALLENGE_TTL_SECONDS,
  });
}

/** The pending passkey challenge's id from its cookie, which is deleted (a challenge is answered once). */
async function takeChallengeCookie(c: ConsoleContext): Promise<string | undefined> {
  const config = c.get('consoleConfig');
  const value = await getSignedCookie(c, config.sessionSecret, CHALLENGE_COOKIE, config.secureCookies ? 'host' : undefined);
  deleteCookie(c, CHALLENGE_COOKIE, cookieOptions(config));
  return typeof value === 'string' ? value : undefined;
}

export { CONSOLE_PATH };

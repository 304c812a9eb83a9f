/** @jsxImportSource hono/jsx */
/**
 * The authorization page of the fund MCP server's OAuth flow, and the list of authorized applications, in
 * the developer console (docs/oauth.md). Mounted on the console app, so the console's Host guard, security
 * headers, `no-store` and session apply.
 *
 * `GET /developers/console/oauth/authorize`: the library parses and checks the request (client, exact
 * redirect URI, PKCE S256, resource); an error it may send back to the client is redirected there, any
 * other is shown here (400). A request for a scope this server does not grant ({@link REQUESTABLE_SCOPES})
 * is sent back with `invalid_scope` (RFC 6749 §4.1.2.1). Without a session the console's passkey sign-in
 * is shown, and the page comes back after it. Signed in: the client's name (self-asserted: dynamic
 * registration), where access goes (the redirect host, with a warning for an app on this computer) and what
 * will be granted, whatever was asked for: `fund:read`, "read this fund's data", with Approve and Deny; an
 * account without the served fund sees why, and can only cancel.
 *
 * `POST` the same path (a form of at most 16 KiB and 32 fields, lib/oauth/routes.ts bounds): the library's
 * one-use, browser-bound handle plus the session's CSRF token. Approve creates the grant (user: the account
 * id; props: `{ accountId }`) and redirects with the code; Deny redirects with `access_denied`.
 *
 * `GET /developers/console/oauth/applications` lists the account's grants; `POST
 * /developers/console/oauth/applications/revoke` (form: grant id, CSRF token) revokes one with its tokens.
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import { constantTimeEqual } from '../keys.ts';
import type { Account } from './standing.ts';
import { Layout, WelcomePage } from './pages.tsx';
import { CONSOLE_PATH } from '../identity.ts';
import { csrfToken, type ConsoleEnv } from './session.ts';
import { FUND_READ_SCOPE, authorizationServer } from '../oauth/provider.ts';
import { ACCOUNT_NO_FUND_DETAIL } from '../oauth/resource.ts';
import { oauthBodyTooLarge } from '../oauth/routes.ts';
import { metadataUrlRefusal } from '../oauth/cimd.ts';
import { readBoundedForm } from '../body.ts';
import { OAUTH_MAX_BODY_BYTES, OAUTH_MAX_FORM_FIELDS } from '../limits.ts';

/** What the page says a scope lets the client do. */
export const SCOPE_TEXT: Record<string, string> = { [FUND_READ_SCOPE]: "read this fund's data (read-only)" };

/** What an approval grants, whatever the request asked for (the one scope of this server). */
export const GRANTED_SCOPES: readonly string[] = [FUND_READ_SCOPE];

/**
 * Scopes an authorization request may name: `fund:read`, and `offline_access`, which clients add to ask for a
 * refresh token (always issued here). Any other is refused with `invalid_scope`.
 */
export const REQUESTABLE_SCOPES: ReadonlySet<string> = new Set([FUND_READ_SCOPE, 'offline_access']);

/** The `error_description` of an authorization request naming a scope this server does not grant. */
export const UNKNOWN_SCOPE_DESCRIPTION = `This server grants only the "${FUND_READ_SCOPE}" scope (read this fund's data).`;

type ConsoleContext = Context<ConsoleEnv>;

/** The sentence of an authorization request whose client metadata document could not be fetched or used. */
export const CIMD_UNUSABLE =
  "The application's metadata document (its client id) could not be used: it must be a JSON document of at most 5 KiB, served within 10 seconds at its own URL (no redirect), naming its own URL as client_id, a client_name and the redirect URIs.";

/** The consent page. */
export const ConsentPage: FC<{
  clientName: string;
  /** The host of the client's metadata document, for a client identified by one (its name is its owner's word, the host is verified). */
  clientDomain?: string | undefined;
  redirectHost: string;
  redirectIsLoopback: boolean;
  scopes: string[];
  fundId: string;
  handle: string;
  csrf: string;
  allowed: boolean;
}> = (p) => (
  <Layout title={`Authorize ${p.clientName} · fund-edge`}>
    <h1>Authorize an application</h1>
    <section class="card" aria-labelledby="consent-h">
      <h2 id="consent-h">
        <span id="client-name">{p.clientName}</span> asks to connect to the fund MCP server
      </h2>
      {p.clientDomain ? (
        <p>
          The application is identified by its metadata document at <strong id="client-domain">{p.clientDomain}</strong>; its name is what
          that document says.
        </p>
      ) : (
        <p>The application registered itself; its name is not verified.</p>
      )}
      <p>
        Access will be sent to <strong id="redirect-host">{p.redirectHost}</strong>.
      </p>
      {p.redirectIsLoopback ? (
        <p class="warning">This sends access to an application on your computer. Continue only if you just started connecting from it.</p>
      ) : null}
      <p>It will be able to:</p>
      <ul id="scopes">
        {p.scopes.map((s) => (
          <li>
            {SCOPE_TEXT[s]} of <code>{p.fundId}</code>
          </li>
        ))}
      </ul>
      {p.allowed ? null : <p id="no-fund">{ACCOUNT_NO_FUND_DETAIL}</p>}
      <form method="post">
        <input type="hidden" name="handle" value={p.handle} />
        <input type="hidden" name="csrf" value={p.csrf} />
        <div class="actions">
          {p.allowed ? (
            <button type="submit" name="decision" value="approve">
              Approve
            </button>
          ) : null}
          <button type="submit" class="secondary" name="decision" value="deny">
            {p.allowed ? 'Deny' : 'Cancel'}
          </button>
        </div>
      </form>
    </section>
  </Layout>
);

/** A page for an authorization request that cannot go on (and may not be sent back to the client). */
const ProblemPage: FC<{ title: string; text: string }> = ({ title, text }) => (
  <Layout title={`${title} · fund-edge`}>
    <h1>{title}</h1>
    <p id="oauth-problem">{text}</p>
    <p>
      <a href={CONSOLE_PATH}>Go to the developer console</a>
    </p>
  </Layout>
);

/** A grant as the applications page shows it. */
export interface ApplicationRow {
  grantId: string;
  clientName: string;
  redirectHost: string;
  scope: string[];
  /** RFC 3339 UTC. */
  createdAt: string;
}

/** The authorized applications of an account, each with a Revoke button. */
export const ApplicationsPage: FC<{ rows: ApplicationRow[]; csrf: string }> = ({ rows, csrf }) => (
  <Layout title="Authorized applications · fund-edge">
    <h1>Authorized applications</h1>
    <p>Applications you let read fund data over OAuth. Revoking one stops its tokens at once.</p>
    {rows.length === 0 ? (
      <p id="no-applications">No application is authorized.</p>
    ) : (
      <div class="scroll">
        <table id="applications">
          <thead>
            <tr>
              <th scope="col">Application</th>
              <th scope="col">Sends access to</th>
              <th scope="col">Scope</th>
              <th scope="col">Authorized</th>
              <th scope="col"></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <td>{r.clientName}</td>
                <td>{r.redirectHost}</td>
                <td>{r.scope.map((s) => SCOPE_TEXT[s] ?? s).join(', ')}</td>
                <td>{r.createdAt}</td>
                <td>
                  <form method="post" action={`${CONSOLE_PATH}/oauth/applications/revoke`}>
                    <input type="hidden" name="grant" value={r.grantId} />
                    <input type="hidden" name="csrf" value={csrf} />
                    <button type="submit" class="secondary">
                      Revoke
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <p>
      <a href={CONSOLE_PATH}>Back to the developer console</a>
    </p>
  </Layout>
);

/**
 * The extra CSP `form-action` source of a console page: on the authorization page, the origin of the
 * request's `redirect_uri`, because the consent form's answer is a redirect there and browsers hold form
 * redirects to `form-action`; elsewhere none. Computed before the page (secure-headers runs first): when the
 * library refuses the `redirect_uri`, no form is shown, so the source allows nothing. Only an `http(s)`
 * origin of plain host characters is ever written into the header.
 */
export function oauthFormAction(c: { req: { path: string; query(name: string): string | undefined } }): string {
  if (!c.req.path.endsWith('/oauth/authorize')) return '';
  try {
    const origin = new URL(c.req.query('redirect_uri') ?? '').origin;
    return /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/.test(origin) ? origin : '';
  } catch {
    return '';
  }
}

/** The served fund id (as lib/config.ts parsed it). */
const servedFund = (c: ConsoleContext) => c.get('config').fundId;

async function sessionCsrf(c: ConsoleContext, sessionId: string): Promise<string> {
  return csrfToken(c.get('consoleConfig').sessionSecret, sessionId);
}

/** True when the form's CSRF token is the session's. */
async function csrfOk(c: ConsoleContext, sessionId: string, sent: unknown): Promise<boolean> {
  return typeof sent === 'string' && constantTimeEqual(sent, await sessionCsrf(c, sessionId));
}

/** Where a redirect URI sends access: its host with the port (an application on this computer is told apart by its port). */
function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/**
 * Mounts the authorization page and the applications page on the console app.
 * @param app the console's app (paths relative to {@link CONSOLE_PATH})
 */
export function mountConsent(app: Hono<ConsoleEnv>): void {
  app.get('/oauth/authorize', showConsent);
  app.post('/oauth/authorize', decideConsent);
  app.get('/oauth/applications', showApplications);
  app.post('/oauth/applications/revoke', revokeApplication);
}

/**
 * `GET /oauth/authorize`: the request parsed and checked by the library (an error it may send back is
 * redirected to the client, any other shown here, 400), a scope this server does not grant sent back with
 * `invalid_scope`; then, signed in, the consent page (with the library's consent cookie), else the sign-in.
 */
async function showConsent(c: ConsoleContext): Promise<Response> {
  const { AuthorizationError, CimdFetchError, authorizationErrorRedirect } = await import('@cloudflare/workers-oauth-provider');
  const oauth = (await authorizationServer(c)).getOAuthApi(c.env);
  // A client id naming a metadata document on an address that is not public is never fetched (lib/oauth/cimd.ts).
  const refused = metadataUrlRefusal(c.req.query('client_id') ?? '');
  if (refused) return c.html(<ProblemPage title="This authorization request is not valid" text={refused} />, 400);
  let request: Awaited<ReturnType<typeof oauth.parseAuthRequest>>;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
  } catch (err) {
    if (err instanceof AuthorizationError) {
      if (err.redirectTo) return c.redirect(err.redirectTo, 302);
      return c.html(<ProblemPage title="This authorization request is not valid" text={err.description} />, 400);
    }
    // The client's metadata document could not be fetched or used (too large, too slow, not JSON, not valid,
    // not its own client id): shown here, never redirected, and its reason never quoted (it may quote the document).
    if (err instanceof CimdFetchError)
      return c.html(<ProblemPage title="This authorization request is not valid" text={CIMD_UNUSABLE} />, 400);
    throw err;
  }
  if (!request.scope.every((s) => REQUESTABLE_SCOPES.has(s))) {
    return c.redirect(authorizationErrorRedirect(request, 'invalid_scope', UNKNOWN_SCOPE_DESCRIPTION), 302);
  }
  const session = c.get('session');
  if (!session) return c.html(<WelcomePage docsUrl={c.get('consoleSettings').docsUrl ?? undefined} />);
  const details = await oauth.describeConsent(request);
  const consent = await oauth.beginConsent(request);
  const allowed = session.account.fundIds.includes(servedFund(c));
  const html = await c.html(
    <ConsentPage
      clientName={details.clientName}
      clientDomain={details.clientDomain}
      redirectHost={hostOf(request.redirectUri)}
      redirectIsLoopback={details.redirectIsLoopback}
      scopes={[...GRANTED_SCOPES]}
      fundId={servedFund(c)}
      handle={consent.handle}
      csrf={await sessionCsrf(c, session.sessionId)}
      allowed={allowed}
    />,
  );
  for (const [name, value] of consent.headers) if (name.toLowerCase() === 'set-cookie') html.headers.append(name, value);
  return html;
}

/**
 * `POST /oauth/authorize`: the form's CSRF token checked against the session (else 403); Approve, by an
 * account that may read the served fund, completes the authorization and redirects with the code; anything
 * else redirects with `access_denied`. A used, expired or foreign handle is 400.
 */
async function decideConsent(c: ConsoleContext): Promise<Response> {
  const { AuthorizationError } = await import('@cloudflare/workers-oauth-provider');
  const session = c.get('session');
  const { form } = await readBoundedForm(c.req.raw, OAUTH_MAX_BODY_BYTES, OAUTH_MAX_FORM_FIELDS, oauthBodyTooLarge);
  if (!session || !(await csrfOk(c, session.sessionId, form.get('csrf')))) {
    return c.html(
      <ProblemPage
        title="Sign in again"
        text="Your console session ended or this form is stale; start connecting again from the application."
      />,
      403,
    );
  }
  const oauth = (await authorizationServer(c)).getOAuthApi(c.env);
  const handle = String(form.get('handle') ?? '');
  const allowed = session.account.fundIds.includes(servedFund(c));
  try {
    if (form.get('decision') !== 'approve' || !allowed) {
      const denied = await oauth.denyConsent(c.req.raw, handle, allowed ? {} : { description: ACCOUNT_NO_FUND_DETAIL });
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [...GRANTED_SCOPES] });
    const client = await oauth.lookupClient(approved.request.clientId);
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: session.account.accountId,
      metadata: { clientName: client?.clientName ?? approved.request.clientId, redirectHost: hostOf(approved.request.redirectUri) },
      scope: [...GRANTED_SCOPES],
      props: { accountId: session.account.accountId },
    });
    approved.headers.set('Location', redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (err) {
    if (err instanceof AuthorizationError) {
      return c.html(
        <ProblemPage
          title="This page has expired"
          text="The authorization page was used already, expired, or opened in another browser. Start connecting again from the application."
        />,
        400,
      );
    }
    throw err;
  }
}

/** `GET /oauth/applications`: the signed-in account's authorized applications (without a session, the console). */
async function showApplications(c: ConsoleContext): Promise<Response> {
  const session = c.get('session');
  if (!session) return c.redirect(CONSOLE_PATH, 302);
  return c.html(<ApplicationsPage rows={await applications(c, session.account)} csrf={await sessionCsrf(c, session.sessionId)} />);
}

/** `POST /oauth/applications/revoke`: revokes one grant of the signed-in account, with its tokens (CSRF-checked, else 403). */
async function revokeApplication(c: ConsoleContext): Promise<Response> {
  const session = c.get('session');
  const { form } = await readBoundedForm(c.req.raw, OAUTH_MAX_BODY_BYTES, OAUTH_MAX_FORM_FIELDS, oauthBodyTooLarge);
  if (!session || !(await csrfOk(c, session.sessionId, form.get('csrf')))) {
    return c.html(<ProblemPage title="Sign in again" text="Your console session ended or this form is stale; reload the page." />, 403);
  }
  const grantId = String(form.get('grant') ?? '');
  const oauth = (await authorizationServer(c)).getOAuthApi(c.env);
  // Only a grant of this account is revoked (the library scopes revocation by user id).
  if (/^[0-9A-Za-z_-]{1,128}$/.test(grantId)) await oauth.revokeGrant(grantId, session.account.accountId);
  return c.redirect(`${CONSOLE_PATH}/oauth/applications`, 303);
}

/** The account's grants, newest first. */
export async function applications(c: ConsoleContext, account: Account): Promise<ApplicationRow[]> {
  const oauth = (await authorizationServer(c)).getOAuthApi(c.env);
  const rows: ApplicationRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(account.accountId, cursor ? { cursor } : {});
    for (const g of page.items) {
      const meta = (g.metadata ?? {}) as { clientName?: string; redirectHost?: string };
      rows.push({
        grantId: g.id,
        clientName: meta.clientName ?? g.clientId,
        redirectHost: meta.redirectHost ?? (g.redirectUri ? hostOf(g.redirectUri) : ''),
        scope: g.scope,
        createdAt: new Date(g.createdAt * 1000).toISOString(),
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** @jsxImportSource hono/jsx */
/**
 * The developer console's server-rendered pages (hono JSX): the welcome page (sign up or sign in with a
 * passkey), an invitation link's page, and the signed-in dashboard (account, usage, keys, quick starts). Every value is
 * escaped by JSX; the only script is `console.js` from the same origin (the CSP allows no inline script).
 * Interactive parts are buttons with `data-action` attributes that the client script wires up.
 */
import { raw } from 'hono/html';
import type { FC, PropsWithChildren } from 'hono/jsx';
import type { AccountKey } from './accounts.ts';
import type { Account } from './standing.ts';
import { CONSOLE_PATH } from '../identity.ts';
import type { DayCount } from '../rate-limit.ts';
import type { McpUrls } from '../mcp/clients.ts';
import { clientsSection } from '../site/clients-section.ts';
import { UsageChart } from './usage-chart.tsx';

/** What the dashboard shows. */
export interface DashboardData extends PageProps {
  account: Account;
  keys: AccountKey[];
  /** Calculator calls today and the plan's limit, and the calls of each of the last 30 UTC days (today last). */
  usage: { used: number; limit: number; days: DayCount[] };
  /** The service's base URL for the quick starts, e.g. `http://localhost:8787`. */
  base: string;
  /** The MCP servers' URLs on `base`. */
  mcp: McpUrls;
  csrfToken: string;
  /** The fund this deployment serves, when the account may mint keys for it. */
  fundId: string | null;
  /** The URL paths of the quick starts' calls. */
  quickstart: QuickstartPaths;
}

/** Props every page takes: `docsUrl` is where the API documentation lives (`DOCS_URL`, optional). */
export interface PageProps {
  docsUrl?: string | undefined;
}

export const Layout: FC<PropsWithChildren<{ title: string; csrfToken?: string } & PageProps>> = ({
  title,
  csrfToken,
  docsUrl,
  children,
}) => (
  <>
    {raw('<!doctype html>')}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {csrfToken ? <meta name="csrf-token" content={csrfToken} /> : null}
        <title>{title}</title>
        <link rel="stylesheet" href={`${CONSOLE_PATH}/console.css`} />
        <script src={`${CONSOLE_PATH}/console.js`} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <p class="brand">
            fund-edge <span>developer console</span>
          </p>
          <nav aria-label="Documentation">
            <a href="/">Home</a>
            <a href={docsUrl ?? '/docs'}>API reference</a>
            <a href="/api/v1/openapi.json">OpenAPI 3.1</a>
          </nav>
        </header>
        <main id="main" tabindex={-1}>
          <p id="status" role="status" aria-live="polite"></p>
          {children}
        </main>
      </body>
    </html>
  </>
);

/** The two passkey buttons: create an account, sign in. */
const PasskeyButtons: FC = () => (
  <div class="actions">
    <button type="button" data-action="register">
      Create an account with a passkey
    </button>
    <button type="button" class="secondary" data-action="login">
      Sign in with a passkey
    </button>
  </div>
);

/** The page for a visitor without a session: create an account or sign in, both with a passkey. */
export const WelcomePage: FC<PageProps> = ({ docsUrl }) => (
  <Layout title="Developer console · fund-edge" docsUrl={docsUrl}>
    <h1>Developer console</h1>
    <p class="lead">
      Mint API keys for the calculators and, when a fund operator invites you, for fund data. No password and no e-mail: your account is a
      passkey on this device.
    </p>
    <section class="card" aria-labelledby="start-h">
      <h2 id="start-h">Get a key in under a minute</h2>
      <ol>
        <li>Create an account with a passkey (your device asks for a fingerprint, face or PIN).</li>
        <li>Mint a key and copy it: it is shown once.</li>
        <li>Paste one of the ready-made commands.</li>
      </ol>
      <PasskeyButtons />
    </section>
    <p>
      No account needed to try: the calculators answer 500 calls a day per network without a key, and the published demo key{' '}
      <code>svc_dk_DemoKeyFundEdgeSyntheticFixture1</code> reads a synthetic fund.
    </p>
  </Layout>
);

/**
 * The page of an invitation link, `/developers/console/invite#<token>`. The token is in the fragment, which
 * browsers never send, so it never appears in a request path or a log: the page's script reads it, asks
 * `POST api/invitations/preview` what it grants, and shows either the invitation (with Accept, or with the
 * passkey buttons, which redeem it with the sign-up or sign-in) or {@link InvitationUnusableText}.
 * @param signedIn whether a session is open (Accept instead of the passkey buttons)
 */
export const InvitationPage: FC<{ signedIn: boolean; csrfToken?: string | undefined } & PageProps> = ({ signedIn, csrfToken, docsUrl }) => (
  <Layout title="Invitation · fund-edge developer console" csrfToken={csrfToken} docsUrl={docsUrl}>
    <div id="invitation-page">
      <div id="invite-checking">
        <h1>Invitation</h1>
        <p>Checking the invitation…</p>
      </div>
      <section id="invite-usable" class="card invite" aria-labelledby="invite-h" hidden>
        <h1 id="invite-h">You are invited to fund data</h1>
        <p>
          This invitation lets your account mint keys for the fund <code id="invite-fund"></code>
          <span id="invite-paid" hidden>
            {' '}
            on the paid plan
          </span>
          . {signedIn ? 'Accept it for the account you are signed in to.' : 'Create an account or sign in to accept it.'}
        </p>
        {signedIn ? (
          <button type="button" data-action="accept-invitation">
            Accept invitation
          </button>
        ) : (
          <PasskeyButtons />
        )}
      </section>
      <div id="invite-unusable" hidden>
        <InvitationUnusableText />
      </div>
    </div>
  </Layout>
);

/** What an unusable invitation shows. */
const InvitationUnusableText: FC = () => (
  <>
    <h1>This invitation is not valid</h1>
    <p>It has expired or has already been used. Ask the fund operator for a new link.</p>
    <p>
      <a href={CONSOLE_PATH}>Go to the developer console</a>
    </p>
  </>
);

/** The quick starts' URL paths: the two calls (lib/endpoint.ts `quickstartCalls`) and the MCP servers (the route table's). */
export interface QuickstartPaths {
  calculator: string;
  fund: string;
  mcpPublic: string;
  mcpFund: string;
}

const QuickStarts: FC<{ base: string; fund: boolean; paths: QuickstartPaths; mcp: McpUrls }> = ({ base, fund, paths, mcp }) => {
  const calc = `curl -s -i -X POST ${base}${paths.calculator} \\\n  -H "authorization: Bearer $FUND_EDGE_KEY" -H 'content-type: application/json' -d '{}'`;
  const fundCurl = `curl -s ${base}${paths.fund} -H "authorization: Bearer $FUND_EDGE_KEY"`;
  return (
    <section class="card" aria-labelledby="qs-h">
      <h2 id="qs-h">Quick starts</h2>
      <p>
        Put your key in the shell first: <code>export FUND_EDGE_KEY=svc_dk_...</code> (after minting, the snippets below carry the new key).
      </p>
      <h3>A calculator</h3>
      <pre tabindex={0}>
        <code data-quickstart="calc">{calc}</code>
      </pre>
      {fund ? (
        <>
          <h3>Fund data</h3>
          <pre tabindex={0}>
            <code data-quickstart="fund">{fundCurl}</code>
          </pre>
        </>
      ) : null}
      {clientsSection(mcp, {
        heading: { level: 3, text: 'MCP clients' },
        variants: fund ? ['public', 'fund-oauth', 'fund-key'] : ['public'],
      })}
      {fund ? null : <p>Without a fund invitation only the calculators' server applies: the fund server refuses a calc key (403).</p>}
    </section>
  );
};

/** The form that mints a key (a `fund` key only with a fund to mint it for), and the panel that shows it once. */
const MintKeyCard: FC<{ fundId: string | null }> = ({ fundId }) => (
  <section class="card" aria-labelledby="mint-h">
    <h2 id="mint-h">Mint a key</h2>
    <form id="mint-form" novalidate>
      <label for="key-label">Label</label>
      <input id="key-label" name="label" required maxlength={64} placeholder="e.g. laptop, CI" autocomplete="off" />
      <fieldset>
        <legend>Scope</legend>
        <label>
          <input type="radio" name="scope" value="calc" checked /> Calculators (<code>calc</code>)
        </label>
        {fundId ? (
          <label>
            <input type="radio" name="scope" value="fund" /> Fund data for <code>{fundId}</code> (<code>fund</code>)
          </label>
        ) : null}
      </fieldset>
      <button type="submit">Mint key</button>
    </form>
    {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the key panel is named by its heading for screen readers, as it was */}
    <div id="new-key" class="new-key" hidden tabindex={-1} aria-labelledby="new-key-h">
      <h3 id="new-key-h">Your new key</h3>
      <p>Copy it now: it is shown once and cannot be recovered.</p>
      <div class="copyrow">
        <code id="new-key-value" data-testid="new-key"></code>
        <button type="button" data-action="copy" data-copy-target="new-key-value">
          Copy key
        </button>
      </div>
      <pre tabindex={0}>
        <code id="new-key-export"></code>
      </pre>
      <button type="button" class="secondary" data-action="reload">
        Done
      </button>
    </div>
  </section>
);

/** A cell's column name, shown beside its value where the table is laid out as one block per key (a phone's width). */
const Label: FC<PropsWithChildren> = ({ children }) => <span class="cell-label">{children}</span>;

/**
 * The account's keys: prefix, label, scope, created, last used, and a revoke button while active. Also served
 * alone (`GET /developers/console/keys`), for the browser script to show a key just minted.
 */
export const KeysCard: FC<{ keys: DashboardData['keys'] }> = ({ keys }) => (
  <section class="card" id="keys-card" aria-labelledby="keys-h">
    <h2 id="keys-h">Keys</h2>
    {keys.length === 0 ? (
      <p>No keys yet.</p>
    ) : (
      <div class="keys">
        <table>
          <thead>
            <tr>
              <th scope="col">Prefix</th>
              <th scope="col">Label</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr data-key-id={k.keyId}>
                <td>
                  <Label>Prefix</Label>
                  <code>{k.prefix}…</code>
                </td>
                <td>
                  <Label>Label</Label>
                  {k.label}
                </td>
                <td>
                  <Label>Scope</Label>
                  {k.scope === 'fund' ? `fund (${k.fundId})` : k.scope}
                </td>
                <td>
                  <Label>Created</Label>
                  {k.createdAt.slice(0, 16).replace('T', ' ')} UTC
                </td>
                <td>
                  <Label>Last used</Label>
                  {k.lastUsedAt ? `${k.lastUsedAt.slice(0, 16).replace('T', ' ')} UTC` : 'not yet'}
                </td>
                <td>
                  <Label>State</Label>
                  {k.revokedAt ? (
                    'revoked'
                  ) : (
                    <button
                      type="button"
                      class="danger"
                      data-action="revoke"
                      data-key-id={k.keyId}
                      aria-label={`Revoke key ${k.prefix} ${k.label}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="note">Last used is noted at most once an hour per key, so a key in steady use can show a time up to an hour old.</p>
      </div>
    )}
  </section>
);

/** The signed-in dashboard. */
export const DashboardPage: FC<DashboardData> = ({ account, keys, usage, base, mcp, csrfToken, fundId, docsUrl, quickstart }) => {
  const scopes = ['calc', ...account.fundIds.map((f) => `fund (${f})`)];
  const pct = usage.limit > 0 ? Math.min(100, Math.round((usage.used / usage.limit) * 100)) : 0;
  return (
    <Layout title="Your keys · fund-edge developer console" csrfToken={csrfToken} docsUrl={docsUrl}>
      <div class="titlebar">
        <h1>Your keys</h1>
        <button type="button" class="secondary" data-action="logout">
          Sign out
        </button>
      </div>
      <section class="card" aria-labelledby="acct-h">
        <h2 id="acct-h">Account</h2>
        <dl class="facts">
          <dt>Account id</dt>
          <dd>
            <code data-testid="account-id">{account.accountId}</code>
          </dd>
          <dt>Plan</dt>
          <dd data-testid="plan">{account.plan}</dd>
          <dt>Scopes</dt>
          <dd data-testid="scopes">{scopes.join(', ')}</dd>
          <dt>MCP clients (OAuth)</dt>
          <dd>
            <a href={`${CONSOLE_PATH}/oauth/applications`}>Authorized applications</a>
          </dd>
          <dt>Calculator calls today</dt>
          <dd>
            <span data-testid="usage">
              {usage.used.toLocaleString('en-US')} of {usage.limit.toLocaleString('en-US')}
            </span>
            <progress max={usage.limit} value={usage.used} aria-label={`${pct}% of today's calculator limit used`}></progress>
            <p class="note">
              Every call counts, all your keys together, including one refused for its input (400, 415, a CSV over its row cap's 413); a
              call refused for its key (401), over the limit (429) or for a body over 1 MiB (413) does not. The count starts again at
              midnight UTC.
            </p>
          </dd>
          <dt>Last 30 days</dt>
          <dd>
            <UsageChart days={usage.days} limit={usage.limit} />
          </dd>
        </dl>
      </section>
      <MintKeyCard fundId={fundId} />
      <KeysCard keys={keys} />
      <QuickStarts base={base} fund={fundId !== null} paths={quickstart} mcp={mcp} />
    </Layout>
  );
};

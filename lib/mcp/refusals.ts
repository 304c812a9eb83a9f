/**
 * How the MCP servers answer the credential a request sent (docs/mcp.md#a-key-the-server-refuses): the one
 * rule is that a 401 goes only where OAuth can fix the problem.
 *
 * Every MCP client that can sign in with OAuth (the SDK's client with an auth provider, mcp-remote, the MCP
 * Inspector, VS Code) starts an OAuth flow on any 401, with or without `WWW-Authenticate`, and mcp-remote and
 * the SDK also on a 403 with `error="insufficient_scope"`; a client configured with a key then waits for an
 * authorization that cannot help it (its configured header replaces the token it would get), and the
 * server's sentence is never shown. A 403 without a challenge starts no OAuth anywhere and each client shows
 * its body. So:
 *
 * - nothing sent, on the fund server: 401 naming the protected resource metadata (OAuth discovery);
 * - an access token of this service (its shape, {@link isAccessTokenShape}) on the fund server: RFC 6750, a 401
 *   `invalid_token` or a 403 `insufficient_scope` (no `fund:read`) with the discovery challenge, since
 *   authorizing again fixes both; an account without the served fund is a 403 with no challenge;
 * - anything else sent, on either server (a `svc_dk_` key that is malformed, unknown or revoked, the demo
 *   key, a calc key, another fund's key, another token, another scheme): 403 problem+json with no
 *   `WWW-Authenticate`, whose detail says first what is wrong with that credential and then what to do.
 *
 * The REST endpoints keep their 401 (docs/api.md#errors): no MCP client reads them.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError, InsufficientScopeError, UnauthorizedError } from '../errors.ts';
import type { Principal } from '../keys.ts';
import { authenticate, presentedCredential, type Access } from '../auth.ts';
import { publicOrigin } from '../origin.ts';
import { CONSOLE_PATH } from '../identity.ts';
import { NO_CREDENTIAL_DETAIL, isAccessTokenShape, withDiscovery } from '../oauth/resource.ts';
import { issuerOf } from '../oauth/provider.ts';
import type { RequestContext, Step } from '../endpoint.ts';
import { FUND_PRINCIPAL } from '../fund/endpoint.ts';
import { CALC_PRINCIPAL } from '../calculators/endpoint.ts';
import { mcpServerPaths } from './endpoint.ts';

/** What is wrong with a credential the request sent (each has its own sentence). */
export type KeyProblem =
  /** The header is not `Bearer <token>`. */
  | 'scheme'
  /** A `Bearer` value that is neither a key (`svc_dk_…`) nor this service's access token. */
  | 'not_a_key'
  /** `svc_dk_` and then not 32 letters or digits: cut or mistyped. */
  | 'malformed'
  /** A key of the right shape that is unknown, revoked, or of a revoked account (one sentence for all three). */
  | 'invalid'
  /** The published demo key, on the fund server. */
  | 'demo'
  /** A `calc` key, on the fund server. */
  | 'calc'
  /** A key of another fund, on the fund server. */
  | 'other_fund';

/** Where the sentences send the reader. */
export interface RefusalLinks {
  /** The developer console, where keys are minted: `<origin>/developers/console` (locally on `localhost`). */
  console: string;
  /** The public MCP server's URL (for a calc key sent to the fund server). */
  publicServer: string;
}

/** The links of a request: the console on the OAuth issuer's origin (`localhost` locally: passkeys), the public server on the request's. */
export function refusalLinks(c: Context<AppEnv>, publicServerPath: string): RefusalLinks {
  return { console: `${issuerOf(c)}${CONSOLE_PATH}`, publicServer: `${publicOrigin(c)}${publicServerPath}` };
}

/** What is wrong, the first sentence of each refusal (never quoting what was sent). */
const WHAT: Record<KeyProblem, string> = {
  scheme: 'The Authorization header is not "Bearer <key>".',
  not_a_key: 'The Authorization header does not carry a key (keys start with svc_dk_).',
  malformed: 'The key in the Authorization header is malformed (a key is svc_dk_ and 32 letters or digits): it was cut or mistyped.',
  invalid: 'The key in the Authorization header is not valid: it is unknown, revoked, or mistyped.',
  demo: 'The demo key reads the synthetic demo fund over REST only; the fund MCP server does not take it.',
  calc: 'This key is a calc key: it raises the calculator quota and reads no fund data.',
  other_fund: 'This key reads another fund than the one this server serves.',
};

/**
 * The refusal of a credential that was sent: 403 with no `WWW-Authenticate` (so no client starts OAuth), a
 * problem+json body whose detail says what is wrong and then what to do.
 * @param server which server refuses (the fund server offers OAuth instead; the public server needs no key)
 * @returns 403 `invalid_key` for a credential that is not a usable key, 403 `insufficient_scope` for a
 *   valid key that may not read the fund
 */
export function keyRefusal(problem: KeyProblem, server: 'fund' | 'public', links: RefusalLinks): ApiError {
  const code = problem === 'demo' || problem === 'calc' || problem === 'other_fund' ? 'insufficient_scope' : 'invalid_key';
  const todo =
    server === 'public'
      ? `The public server needs no key: remove the header, or send a valid key as "Authorization: Bearer svc_dk_..." (mint one at ${links.console}) to raise the calculator quota.`
      : problem === 'calc'
        ? `Use it on the public MCP server, ${links.publicServer}. For fund data, mint a fund key at ${links.console} and send it as "Authorization: Bearer svc_dk_...", or remove the header to sign in with OAuth.`
        : `Mint a fund key at ${links.console} and send it as "Authorization: Bearer svc_dk_...", or remove the header to sign in with OAuth.`;
  return new ApiError(code, `${WHAT[problem]} ${todo}`);
}

/**
 * What an API key may not do on the fund server serving `fundId`, or null when it is a key of that fund.
 * (lib/fund/source.ts refuses the same keys again when the store is chosen.)
 */
export function fundKeyProblem(principal: Principal, fundId: string): 'demo' | 'calc' | 'other_fund' | null {
  if (principal.kind === 'demo') return 'demo';
  if (principal.record.scope !== 'fund') return 'calc';
  return principal.record.fundId === fundId ? null : 'other_fund';
}

/**
 * The fund server's credential step: the caller through the one authentication step (lib/auth.ts) with this
 * service's access tokens verified by lib/oauth/resource.ts, refused by the rule of this module; the
 * principal goes on to the fund route group's scope step (lib/fund/endpoint.ts).
 * @throws {ApiError} 401 with the discovery challenge (nothing sent; an access token not valid here), 403
 *   with it (a token without `fund:read`), 403 without it (everything else; see {@link keyRefusal})
 */
export const fundServerCredential: Step = async (c, ctx, next) => {
  FUND_PRINCIPAL.set(
    c,
    await fundCredential(c, { ...ctx.access(c.env), token: ctx.tokens(c) }, c.get('config').fundId, () => linksOf(c, ctx)),
  );
  return next();
};

/**
 * The public server's credential step: nobody, or the key sent (which raises the quota), refused by the rule
 * of this module when it is not one (403 with no challenge: the public server has no OAuth); the principal
 * goes on to the calculator route group's quota (lib/calculators/endpoint.ts).
 * @throws {ApiError} 403 `invalid_key` for a credential that is not a valid key
 */
export const publicServerCredential: Step = async (c, ctx, next) => {
  CALC_PRINCIPAL.set(c, await publicCredential(c, ctx.access(c.env), () => linksOf(c, ctx)));
  return next();
};

/** The links of a refusal on either server (made only for a refusal: admitting reads no URL). */
function linksOf(c: Context<AppEnv>, ctx: RequestContext): RefusalLinks {
  return refusalLinks(c, mcpServerPaths(ctx.catalog.routes).public ?? '');
}

/**
 * The fund server's caller, refused by the rule of this module ({@link fundServerCredential}).
 * @param access the authentication step's dependencies, with the access-token verifier
 * @param links where a refusal's sentence points (made only for a refusal)
 * @throws {ApiError} as {@link fundServerCredential}
 */
export async function fundCredential(c: Context<AppEnv>, access: Access, fundId: string, links: () => RefusalLinks): Promise<Principal> {
  const header = c.req.header('authorization');
  const sent = presentedCredential(header);
  if (sent.kind === 'none') throw withDiscovery(c, new UnauthorizedError(NO_CREDENTIAL_DETAIL, false));
  if (sent.kind === 'token' && isAccessTokenShape(sent.token)) {
    try {
      // A token was sent, so there is a principal or a refusal.
      return (await authenticate(header, access))!;
    } catch (err) {
      // Authorizing again helps: discovery. (An account without the fund is refused without a challenge.)
      if (err instanceof UnauthorizedError || err instanceof InsufficientScopeError) throw withDiscovery(c, err);
      throw err;
    }
  }
  if (sent.kind !== 'key') throw keyRefusal(sent.kind === 'scheme' ? 'scheme' : 'not_a_key', 'fund', links());
  if (!sent.wellFormed) throw keyRefusal('malformed', 'fund', links());
  const principal = await keyPrincipal(header, access, 'fund', links);
  const problem = fundKeyProblem(principal, fundId);
  if (problem) throw keyRefusal(problem, 'fund', links());
  return principal;
}

/**
 * The public server's caller ({@link publicServerCredential}).
 * @throws {ApiError} 403 `invalid_key` for a credential that is not a valid key
 */
export async function publicCredential(c: Context<AppEnv>, access: Access, links: () => RefusalLinks): Promise<Principal | null> {
  const header = c.req.header('authorization');
  const sent = presentedCredential(header);
  if (sent.kind === 'none') return null;
  if (sent.kind !== 'key') throw keyRefusal(sent.kind === 'scheme' ? 'scheme' : 'not_a_key', 'public', links());
  if (!sent.wellFormed) throw keyRefusal('malformed', 'public', links());
  return keyPrincipal(header, access, 'public', links);
}

/** A well-formed key's principal; an unknown or revoked one (or one of a revoked account) is {@link keyRefusal} `invalid`. */
async function keyPrincipal(
  header: string | undefined,
  access: Access,
  server: 'fund' | 'public',
  links: () => RefusalLinks,
): Promise<Principal> {
  try {
    // Keys only: an access token is never looked up here.
    const principal = await authenticate(header, { keys: access.keys, ...(access.accounts ? { accounts: access.accounts } : {}) });
    if (principal) return principal;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  throw keyRefusal('invalid', server, links());
}

/**
 * The Worker's configuration: its `env` vars and secrets, checked once per `env` object into a typed
 * {@link Config}. Every module reads configuration from here, never from `env` directly (the MCP transport's
 * `MCP_ALLOWED_ORIGINS` is parsed here too and read by `lib/mcp/dispatch.ts`).
 *
 * A malformed value fails the whole service, not part of it: {@link configOf} throws {@link ConfigInvalidError},
 * which the pipeline answers as 500 `internal_error` (fixed detail) and logs once as a `config_invalid` line
 * naming each variable and the rule it broke, never its value (`DATABASE_URL` holds a password).
 *
 * Variables (docs/configuration.md#variables-and-secrets):
 * - `FUND_ID`: the fund served to real keys; 1–64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit
 *   (default `sample-fund`, the embedded local sample fund).
 * - `DATABASE_URL` (secret): `postgres://` or `postgresql://` URL with a host; unset or empty: embedded data.
 * - `DATABASE_WS_PROXY`: local development only, `host:port/path` of the WebSocket proxy.
 * - `INVESTOR_REF_KEY` (secret): HMAC key of investor pseudonyms; at least 16 characters when set. Required
 *   whenever `DATABASE_URL` is set (see `fundSource` in lib/fund/source.ts).
 * - `CORS_ORIGINS`: `*`, or a comma-separated list of origins (`https://app.example`); empty: none.
 * - `MCP_ALLOWED_ORIGINS`: the same shape; browser Origins the MCP servers accept besides the service's own.
 * - `PUBLIC_ORIGIN`: the service's public origin (`https://fund-edge.example.com`, no path); used as the
 *   OpenAPI server URL and by the MCP Origin check.
 * - `OAUTH_ACCESS_TOKEN_TTL`, `OAUTH_REFRESH_TOKEN_TTL`: OAuth token lifetimes in whole seconds (docs/oauth.md),
 *   60..86,400 (default 3,600) and 60..31,536,000 (default 2,592,000, 30 days).
 */
/** `*` (any origin) or a list of exact origins. */
export type OriginList = '*' | readonly string[];

/** The parsed configuration. */
export interface Config {
  fundId: string;
  databaseUrl: string | undefined;
  databaseWsProxy: string | undefined;
  investorRefKey: string | undefined;
  corsOrigins: OriginList;
  mcpAllowedOrigins: OriginList;
  publicOrigin: string | undefined;
  /** OAuth access token lifetime, seconds. */
  oauthAccessTokenTtl: number;
  /** OAuth refresh token (grant) lifetime, seconds. */
  oauthRefreshTokenTtl: number;
}

/** One broken rule: the variable's name and the rule, never the value. */
export interface ConfigIssue {
  variable: string;
  rule: string;
}

/**
 * The configuration is malformed. Not an `ApiError`: it is answered as a generic 500 `internal_error`, and
 * logged (with {@link issues}) as `config_invalid`.
 */
export class ConfigInvalidError extends Error {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    super(`Invalid configuration: ${issues.map((i) => `${i.variable} ${i.rule}`).join('; ')}.`);
    this.name = 'ConfigInvalidError';
    this.issues = issues;
  }
}

/** The fund a deployment serves when `FUND_ID` is not set: the embedded local sample fund. */
export const DEFAULT_FUND_ID = 'sample-fund';

/** Access token lifetime when `OAUTH_ACCESS_TOKEN_TTL` is unset, seconds (1 hour). */
export const DEFAULT_ACCESS_TOKEN_TTL = 3600;
/** Refresh token (grant) lifetime when `OAUTH_REFRESH_TOKEN_TTL` is unset, seconds (30 days). */
export const DEFAULT_REFRESH_TOKEN_TTL = 30 * 86_400;

/** The URL `text` parses as (WHATWG URL), or undefined when it is not one. */
export function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * True for an `http:`/`https:` origin written exactly as its serialization (`https://a.example:8443`): no
 * path, no trailing slash, lower-case scheme and host, no default port. The rule of the origin variables.
 */
export function isOrigin(text: string): boolean {
  const url = urlOf(text);
  return url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text;
}

/** What one variable's rule makes of its text: the value it configures, or the rule it breaks. */
type Checked<T> = { value: T } | { rule: string };

/** Empty or absent → undefined; otherwise the text trimmed. */
function optionalText(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** A comma-separated origin list (`*` alone: any; empty: none); `fallback` when unset. */
function originList(v: string | undefined, fallback: string): Checked<OriginList> {
  const items = (v ?? fallback)
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (items.includes('*')) return items.length > 1 ? { rule: 'must be "*" alone or a list of origins' } : { value: '*' };
  if (!items.every(isOrigin))
    return { rule: 'must be "*" or comma-separated origins such as https://app.example (scheme, host and port only)' };
  return { value: items };
}

/**
 * Whole seconds from 60 to `max`, written as decimal digits (KV, which stores the tokens, expires nothing
 * sooner than 60 s); `fallback` when unset or empty.
 */
function seconds(raw: string | undefined, fallback: number, max: number): Checked<number> {
  const v = optionalText(raw);
  if (v === undefined) return { value: fallback };
  return /^[1-9][0-9]{1,8}$/.test(v) && Number(v) >= 60 && Number(v) <= max
    ? { value: Number(v) }
    : { rule: `must be whole seconds from 60 to ${max}` };
}

/** An optional variable: its trimmed text, or undefined when unset or empty, when `valid` accepts it. */
function optional(raw: string | undefined, valid: (v: string) => boolean, rule: string): Checked<string | undefined> {
  const v = optionalText(raw);
  return v === undefined || valid(v) ? { value: v } : { rule };
}

/**
 * Each variable's rule, in the order its problems are reported. Plain checks rather than a zod schema: the
 * configuration is read on every isolate's first request, and zod preparing a schema on its first parse
 * cost that request 2.5–3.7 ms (docs/performance.md); `test/security/hardening.test.ts` and
 * `test/config.test.ts` pin what is accepted and refused.
 */
const RULES = {
  FUND_ID: (v) =>
    optional(v, (t) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(t), 'must be 1–64 of A-Z a-z 0-9 . _ - starting with a letter or digit'),
  DATABASE_URL: (v) =>
    optional(
      v,
      (t) => {
        const url = urlOf(t);
        return url !== undefined && ['postgres:', 'postgresql:'].includes(url.protocol) && url.hostname !== '';
      },
      'must be a postgres:// or postgresql:// URL with a host',
    ),
  DATABASE_WS_PROXY: (v) => ({ value: optionalText(v) }),
  INVESTOR_REF_KEY: (v) =>
    v === undefined || v === '' ? { value: undefined } : v.length >= 16 ? { value: v } : { rule: 'must be at least 16 characters' },
  CORS_ORIGINS: (v) => originList(v, '*'),
  MCP_ALLOWED_ORIGINS: (v) => originList(v, ''),
  PUBLIC_ORIGIN: (v) =>
    optional(v, isOrigin, 'must be an origin such as https://fund-edge.example.com (scheme, host and port only, no path)'),
  OAUTH_ACCESS_TOKEN_TTL: (v) => seconds(v, DEFAULT_ACCESS_TOKEN_TTL, 86_400),
  OAUTH_REFRESH_TOKEN_TTL: (v) => seconds(v, DEFAULT_REFRESH_TOKEN_TTL, 31_536_000),
} satisfies { [K in keyof ConfigVars]-?: (text: string | undefined) => Checked<unknown> };

/** The value each variable configures, by name. */
type Checks = { [K in keyof typeof RULES]: ReturnType<(typeof RULES)[K]> extends Checked<infer T> | infer _ ? T : never };

/**
 * Checks the Worker's variables (a value that is not text reads as unset, as bindings are not variables).
 * @param vars the Worker's `env`, or some of its variables (scripts/deployment.ts checks wrangler.toml's)
 * @returns the configuration, or every broken rule in the order of {@link RULES}
 */
export function checkConfig(vars: Readonly<Record<string, unknown>>): { config: Config } | { issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const values: Record<string, unknown> = {};
  for (const [variable, check] of Object.entries(RULES) as [string, (text: string | undefined) => Checked<unknown>][]) {
    const raw = Object.hasOwn(vars, variable) ? vars[variable] : undefined;
    const checked = check(typeof raw === 'string' ? raw : undefined);
    if ('rule' in checked) issues.push({ variable, rule: checked.rule });
    else values[variable] = checked.value;
  }
  if (issues.length > 0) return { issues };
  const e = values as Checks;
  return {
    config: {
      fundId: e.FUND_ID ?? DEFAULT_FUND_ID,
      databaseUrl: e.DATABASE_URL,
      databaseWsProxy: e.DATABASE_WS_PROXY,
      investorRefKey: e.INVESTOR_REF_KEY,
      corsOrigins: e.CORS_ORIGINS,
      mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
      publicOrigin: e.PUBLIC_ORIGIN,
      oauthAccessTokenTtl: e.OAUTH_ACCESS_TOKEN_TTL,
      oauthRefreshTokenTtl: e.OAUTH_REFRESH_TOKEN_TTL,
    },
  };
}

/**
 * The variables {@link checkConfig} reads: text, as wrangler hands them to the Worker (the Worker's `Env` in
 * lib/env.ts declares them with the bindings; declared here too so the configuration depends on nothing).
 */
export interface ConfigVars {
  FUND_ID?: string;
  DATABASE_URL?: string;
  DATABASE_WS_PROXY?: string;
  INVESTOR_REF_KEY?: string;
  CORS_ORIGINS?: string;
  MCP_ALLOWED_ORIGINS?: string;
  PUBLIC_ORIGIN?: string;
  OAUTH_ACCESS_TOKEN_TTL?: string;
  OAUTH_REFRESH_TOKEN_TTL?: string;
}

const parsed = new WeakMap<object, Config | ConfigInvalidError>();
const NO_ENV = {};

/**
 * Parses a Worker `env` (memoized per `env` object: once per isolate in production).
 * @param env the Worker's `env`; absent (some tests call the app without bindings) reads as no variables
 * @returns the typed configuration
 * @throws {ConfigInvalidError} naming each malformed variable and its rule (every time it is asked for)
 */
export function configOf(env: ConfigVars | undefined): Config {
  const key = env ?? NO_ENV;
  let result = parsed.get(key);
  if (!result) {
    const out = checkConfig(key);
    result = 'config' in out ? out.config : new ConfigInvalidError(out.issues);
    parsed.set(key, result);
  }
  if (result instanceof ConfigInvalidError) throw result;
  return result;
}

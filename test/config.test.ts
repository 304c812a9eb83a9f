/**
 * The configuration's plain checks (lib/config.ts `checkConfig`) against the zod schema they replaced (kept
 * here as the reference): the same values accepted with the same result, the same ones refused with the same
 * rules, in the same order, on generated variables (fast-check) and on the edge cases of each rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  DEFAULT_ACCESS_TOKEN_TTL,
  DEFAULT_FUND_ID,
  DEFAULT_REFRESH_TOKEN_TTL,
  checkConfig,
  isOrigin,
  urlOf,
  type OriginList,
} from '../lib/config.ts';

// The zod schema lib/config.ts used before its checks became plain rules, verbatim (with the URL helpers it used, imported).
/** Empty or absent → undefined. */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** A comma-separated origin list (`*` alone: any; empty: none); `fallback` when unset. */
const originList = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx): OriginList => {
      const items = (v ?? fallback)
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean);
      if (items.includes('*')) {
        if (items.length > 1) ctx.addIssue({ code: 'custom', message: 'must be "*" alone or a list of origins' });
        return '*';
      }
      if (!items.every(isOrigin))
        ctx.addIssue({
          code: 'custom',
          message: 'must be "*" or comma-separated origins such as https://app.example (scheme, host and port only)',
        });
      return items;
    });

/**
 * Whole seconds from 60 to `max`, written as decimal digits (KV, which stores the tokens, expires nothing
 * sooner than 60 s); `fallback` when unset or empty.
 */
const seconds = (fallback: number, max: number) =>
  optionalText
    .refine((v) => v === undefined || (/^[1-9][0-9]{1,8}$/.test(v) && Number(v) >= 60 && Number(v) <= max), {
      message: `must be whole seconds from 60 to ${max}`,
    })
    .transform((v) => (v === undefined ? fallback : Number(v)));

/** Schema of the Worker's `env` (only the variables; bindings are not checked here). */
const zodConfigSchema = z
  .object({
    FUND_ID: optionalText.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { message: 'must be 1–64 of A-Z a-z 0-9 . _ - starting with a letter or digit' })
        .optional(),
    ),
    DATABASE_URL: optionalText.refine(
      (v) => {
        if (v === undefined) return true;
        const url = urlOf(v);
        return url !== undefined && ['postgres:', 'postgresql:'].includes(url.protocol) && url.hostname !== '';
      },
      { message: 'must be a postgres:// or postgresql:// URL with a host' },
    ),
    DATABASE_WS_PROXY: optionalText,
    INVESTOR_REF_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || v === '' || v.length >= 16, { message: 'must be at least 16 characters' })
      .transform((v) => (v === '' ? undefined : v)),
    CORS_ORIGINS: originList('*'),
    MCP_ALLOWED_ORIGINS: originList(''),
    PUBLIC_ORIGIN: optionalText.refine((v) => v === undefined || isOrigin(v), {
      message: 'must be an origin such as https://fund-edge.example.com (scheme, host and port only, no path)',
    }),
    OAUTH_ACCESS_TOKEN_TTL: seconds(DEFAULT_ACCESS_TOKEN_TTL, 86_400),
    OAUTH_REFRESH_TOKEN_TTL: seconds(DEFAULT_REFRESH_TOKEN_TTL, 31_536_000),
  })
  .transform((e) => ({
    fundId: e.FUND_ID ?? DEFAULT_FUND_ID,
    databaseUrl: e.DATABASE_URL,
    databaseWsProxy: e.DATABASE_WS_PROXY,
    investorRefKey: e.INVESTOR_REF_KEY,
    corsOrigins: e.CORS_ORIGINS,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS,
    publicOrigin: e.PUBLIC_ORIGIN,
    oauthAccessTokenTtl: e.OAUTH_ACCESS_TOKEN_TTL,
    oauthRefreshTokenTtl: e.OAUTH_REFRESH_TOKEN_TTL,
  }));

/** What the zod schema made of `vars`, in the shape of `checkConfig`'s answer (as `configOf` read its issues). */
function reference(vars: Record<string, string>) {
  const out = zodConfigSchema.safeParse(vars, { reportInput: false });
  return out.success
    ? { config: out.data }
    : {
        issues: out.error.issues.map((i) => ({
          variable: String(i.path[0] ?? '?'),
          rule: i.code === 'custom' || i.code === 'invalid_format' ? i.message : 'is invalid',
        })),
      };
}

const NAMES = [
  'FUND_ID',
  'DATABASE_URL',
  'DATABASE_WS_PROXY',
  'INVESTOR_REF_KEY',
  'CORS_ORIGINS',
  'MCP_ALLOWED_ORIGINS',
  'PUBLIC_ORIGIN',
  'OAUTH_ACCESS_TOKEN_TTL',
  'OAUTH_REFRESH_TOKEN_TTL',
] as const;

/** Texts near each rule's edges, and pieces to combine. */
const EDGES = [
  '',
  ' ',
  '*',
  ' * ',
  '*,*',
  ',',
  'https://a.example',
  ' https://a.example ',
  'https://a.example/',
  'https://a.example:8443',
  'http://127.0.0.1:8787',
  'https://a.example,https://b.example',
  'https://a.example, *',
  'ftp://a.example',
  'postgres://u:p@db/x',
  'postgresql://db',
  'postgres://',
  'mysql://db/x',
  'sample-fund',
  'a',
  '-a',
  'a'.repeat(64),
  'a'.repeat(65),
  'fund with spaces',
  'x'.repeat(15),
  'x'.repeat(16),
  '59',
  '60',
  '0600',
  '3600',
  '86400',
  '86401',
  '31536000',
  '31536001',
  '1e3',
  '1h',
  ' 120 ',
];

describe('checkConfig: the same answers as the zod schema it replaced', () => {
  it('on each edge text of each variable', () => {
    for (const name of NAMES)
      for (const text of EDGES)
        expect(checkConfig({ [name]: text }), `${name}=${JSON.stringify(text)}`).toEqual(reference({ [name]: text }));
  });

  it('on generated sets of variables (issues in the same order)', () => {
    const text = fc.oneof(
      fc.constantFrom(...EDGES),
      fc.string({ maxLength: 12 }),
      fc.constantFrom(...EDGES).chain((e) => fc.constant(`${e},${e}`)),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...NAMES), text), (vars) => {
        expect(checkConfig(vars)).toEqual(reference(vars));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a value that is not text as unset, and the defaults as documented', () => {
    const corsOrigins: OriginList = '*';
    expect(checkConfig({ FUND_ID: 5, CORS_ORIGINS: { x: 1 }, OTHER: 'ignored' })).toEqual({
      config: {
        fundId: DEFAULT_FUND_ID,
        databaseUrl: undefined,
        databaseWsProxy: undefined,
        investorRefKey: undefined,
        corsOrigins,
        mcpAllowedOrigins: [],
        publicOrigin: undefined,
        oauthAccessTokenTtl: DEFAULT_ACCESS_TOKEN_TTL,
        oauthRefreshTokenTtl: DEFAULT_REFRESH_TOKEN_TTL,
      },
    });
  });
});

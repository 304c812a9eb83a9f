/**
 * `lib/origin.ts`, the DNS-rebinding guard: loopback Host and Origin recognition, `PUBLIC_ORIGIN` parsing,
 * the policy's decisions (exact tables and fast-check properties: a Host-derived Origin is never what makes
 * a request acceptable), and the Hono middleware the console reuses.
 */
import fc from 'fast-check';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Env } from '../lib/env.ts';
import { ConfigInvalidError } from '../lib/config.ts';
import { problemResponse } from '../lib/errors.ts';
import {
  checkHostAndOrigin,
  hostAllowed,
  hostOriginGuard,
  isLoopbackHost,
  isLoopbackOrigin,
  originAllowed,
  originPolicy,
} from '../lib/origin.ts';
import { expectProblem } from './support/problems.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

describe('isLoopbackHost', () => {
  it.each(['localhost', 'localhost:8787', 'LocalHost:80', '127.0.0.1', '127.0.0.1:0', '[::1]', '[::1]:65535', '127.0.0.1:99999'])(
    'accepts %s',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    '',
    'evil.example',
    'localhost.',
    'localhost.evil.example',
    'evil.localhost',
    '127.0.0.1.evil.example',
    '127.0.0.2',
    '127.1',
    '0.0.0.0',
    '::1',
    '[::1',
    '[0:0:0:0:0:0:0:1]',
    'localhost:',
    'localhost:123456',
    'localhost:80:80',
    'user@localhost',
    'localhost/path',
    ' localhost',
    'localhost\n',
  ])('refuses %j', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });

  it('is exactly a loopback name and an optional port of up to five digits (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LOOPBACK_NAMES), fc.option(fc.integer({ min: 0, max: 99_999 }), { nil: undefined }), (name, port) => {
        expect(isLoopbackHost(port === undefined ? name : `${name}:${port}`)).toBe(true);
      }),
    );
    // An independent oracle: split off the name (bracketed for IPv6), then an optional ":" and 1..5 digits.
    const oracle = (host: string): boolean => {
      const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.includes(':') ? host.indexOf(':') : host.length;
      if (end === 0) return false;
      const rest = host.slice(end);
      const digits = rest.slice(1);
      const portOk =
        rest === '' || (rest[0] === ':' && digits.length >= 1 && digits.length <= 5 && [...digits].every((ch) => ch >= '0' && ch <= '9'));
      return LOOPBACK_NAMES.includes(host.slice(0, end).toLowerCase()) && portOk;
    };
    const near = fc
      .tuple(fc.constantFrom(...LOOPBACK_NAMES, 'LOCALHOST', '[::1', '127.0.0.1.', ''), fc.string({ maxLength: 8 }))
      .map(([a, b]) => a + b);
    fc.assert(
      fc.property(fc.oneof(fc.string(), near), (host) => {
        expect(isLoopbackHost(host)).toBe(oracle(host));
      }),
      { numRuns: 2000 },
    );
  });

  it('answers a 1 MiB Host in one pass (anchored, no nested quantifier)', () => {
    expect(isLoopbackHost(`localhost:${'1'.repeat(1 << 20)}`)).toBe(false);
    expect(isLoopbackHost('l'.repeat(1 << 20))).toBe(false);
  });
});

describe('isLoopbackOrigin', () => {
  it.each(['http://localhost', 'https://localhost:8787', 'http://127.0.0.1:3000', 'http://[::1]:8787', 'HTTP://LOCALHOST'])(
    'accepts %s',
    (origin) => {
      expect(isLoopbackOrigin(origin)).toBe(true);
    },
  );

  it.each([
    'null',
    'http://evil.example',
    'http://localhost.evil.example',
    'http://localhost/',
    'http://localhost:8787/x',
    'ws://localhost',
    'file://',
    'http://127.0.0.1.evil.example',
  ])('refuses %s', (origin) => {
    expect(isLoopbackOrigin(origin)).toBe(false);
  });
});

describe('PUBLIC_ORIGIN as the guard reads it (through lib/config.ts)', () => {
  it.each(['https://fund-edge.example.com', 'http://127.0.0.1:8787', 'https://fund-edge.example.com:8443'])(
    'accepts %s as it is',
    (value) => {
      expect(originPolicy({ PUBLIC_ORIGIN: value }).publicOrigin).toBe(value);
    },
  );

  it.each([
    'fund-edge.example.com',
    'https://fund-edge.example.com/mcp',
    'https://fund-edge.example.com/?a=1',
    'https://fund-edge.example.com/#x',
    'https://u:p@fund-edge.example.com',
    'ftp://fund-edge.example.com',
    'null',
  ])('refuses %j as a configuration error', (value) => {
    expect(() => originPolicy({ PUBLIC_ORIGIN: value })).toThrow(ConfigInvalidError);
  });
});

describe('originPolicy and its decisions', () => {
  it('is local without PUBLIC_ORIGIN, with an empty one, and with a loopback one', () => {
    for (const PUBLIC_ORIGIN of [undefined, '', '  ', 'http://127.0.0.1:8787', 'http://localhost:8787']) {
      expect(originPolicy({ PUBLIC_ORIGIN }).local, String(PUBLIC_ORIGIN)).toBe(true);
    }
  });

  it('is public with a non-loopback PUBLIC_ORIGIN, and a configuration error (fail closed) with a malformed one', () => {
    expect(originPolicy({ PUBLIC_ORIGIN: 'https://fund-edge.example.com' })).toEqual({
      publicOrigin: 'https://fund-edge.example.com',
      local: false,
      allowed: new Set(),
    });
    for (const PUBLIC_ORIGIN of ['fund-edge.example.com', 'https://fund-edge.example.com/path', 'https://u:p@fund-edge.example.com']) {
      expect(() => originPolicy({ PUBLIC_ORIGIN }), PUBLIC_ORIGIN).toThrow(ConfigInvalidError);
      expect(() => checkHostAndOrigin({ PUBLIC_ORIGIN }, 'localhost', undefined), PUBLIC_ORIGIN).toThrow(ConfigInvalidError);
    }
  });

  it('reads MCP_ALLOWED_ORIGINS as a trimmed set, or * for any', () => {
    expect(originPolicy({ MCP_ALLOWED_ORIGINS: ' https://a.example ,, https://b.example' }).allowed).toEqual(
      new Set(['https://a.example', 'https://b.example']),
    );
    expect(originPolicy({ MCP_ALLOWED_ORIGINS: '*' }).allowed).toBe('*');
    expect(() => originPolicy({ MCP_ALLOWED_ORIGINS: 'https://a.example, *' })).toThrow(ConfigInvalidError);
  });

  it('never accepts a rebinding request (Host and Origin naming the same foreign name) when local (property)', () => {
    const foreign = fc.domain().filter((d) => !LOOPBACK_NAMES.includes(d));
    fc.assert(
      fc.property(
        foreign,
        fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }),
        fc.constantFrom('http', 'https'),
        (name, port, scheme) => {
          const host = port === undefined ? name : `${name}:${port}`;
          for (const env of [{}, { PUBLIC_ORIGIN: 'http://127.0.0.1:8787' }, { MCP_ALLOWED_ORIGINS: '*' }]) {
            expect(() => checkHostAndOrigin(env, host, `${scheme}://${host}`)).toThrow(expect.objectContaining({ status: 421 }));
            expect(() => checkHostAndOrigin(env, host, undefined)).toThrow(expect.objectContaining({ status: 421 }));
          }
        },
      ),
    );
  });

  it('with a public origin, accepts as Origin only it or an allow-listed one, whatever the Host (property)', () => {
    const policy = originPolicy({ PUBLIC_ORIGIN: 'https://fund-edge.example.com', MCP_ALLOWED_ORIGINS: 'https://app.example' });
    fc.assert(
      fc.property(fc.webUrl(), fc.domain(), (url, host) => {
        const origin = new URL(url).origin;
        expect(hostAllowed(policy, host)).toBe(true);
        expect(originAllowed(policy, origin)).toBe(origin === 'https://fund-edge.example.com' || origin === 'https://app.example');
        expect(originAllowed(policy, `https://${host}`)).toBe(
          `https://${host}` === 'https://fund-edge.example.com' || `https://${host}` === 'https://app.example',
        );
      }),
    );
    expect(originAllowed(policy, undefined)).toBe(true);
    expect(originAllowed(policy, 'http://localhost:8787')).toBe(false);
  });
});

describe('hostOriginGuard middleware', () => {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('requestId', 'req-1');
    await next();
    c.res.headers.set('X-Request-Id', 'req-1');
  });
  app.use('/guarded/*', hostOriginGuard);
  app.get('/guarded/x', (c) => c.text('ok'));
  app.onError((err, c) => problemResponse(err, c.get('requestId')));
  const get = (headers: Record<string, string>, env: Partial<Env> = {}) => app.request('/guarded/x', { headers }, env as Env);

  it('lets a loopback request through and refuses a rebinding one with 421, a foreign Origin with 403', async () => {
    expect(await (await get({ host: 'localhost:8787', origin: 'http://localhost:8787' })).text()).toBe('ok');
    expect(await (await get({})).text()).toBe('ok');
    const { text } = await expectProblem(await get({ host: 'evil.example', origin: 'http://evil.example' }), 421, 'misdirected_request');
    expect(text).not.toContain('evil.example');
    await expectProblem(await get({ host: 'localhost:8787', origin: 'http://evil.example' }), 403, 'origin_not_allowed');
  });

  it('with PUBLIC_ORIGIN set, serves its Host and Origin and refuses other Origins', async () => {
    const env = { PUBLIC_ORIGIN: 'https://fund-edge.example.com' };
    expect((await get({ host: 'fund-edge.example.com', origin: 'https://fund-edge.example.com' }, env)).status).toBe(200);
    await expectProblem(await get({ host: 'fund-edge.example.com', origin: 'http://localhost:8787' }, env), 403, 'origin_not_allowed');
  });
});

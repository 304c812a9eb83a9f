/**
 * Stands in for `@peculiar/x509` in the Worker bundle (`[alias]` in wrangler.toml). `@simplewebauthn/server`
 * imports it statically to validate attestation certificate chains (and their revocation lists), which the
 * console never asks for: it registers passkeys with `attestationType: 'none'`, and browsers then send the
 * `none` attestation format, which has no certificates. Leaving it out (with `tsyringe` and
 * `reflect-metadata`, which only it uses) saves about 200 KiB of the Worker (raw). Should an authenticator
 * still send a certificate chain, verifying it throws, and the console refuses that registration with its
 * usual 401 (lib/console/webauthn.ts). `test/console/x509-unused.test.ts` checks that these are the names the
 * installed library imports.
 * @throws {Error} if anything ever constructs one of these classes
 */
class X509Unavailable {
  constructor() {
    throw new Error('X.509 attestation is not supported by this Worker.');
  }
}

export class X509Certificate extends X509Unavailable {}
export class X509ChainBuilder extends X509Unavailable {}
export class X509Crl extends X509Unavailable {}
export class AuthorityKeyIdentifierExtension extends X509Unavailable {}
export class CRLDistributionPointsExtension extends X509Unavailable {}
export class SubjectKeyIdentifierExtension extends X509Unavailable {}

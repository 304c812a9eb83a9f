/**
 * A software passkey for tests over HTTP (no browser): it answers the developer console's registration
 * options as a platform authenticator with `none` attestation would (WebAuthn Level 3 §6.5, §8.7), with a
 * fresh P-256 key per credential. What the sign-up abuse used, and what the workerd tests sign up
 * many accounts with (the browser tests use Chromium's virtual authenticator instead).
 */

/** base64url without padding. */
export function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** The few CBOR items (RFC 8949) an attestation object holds: maps, byte and text strings, integers. */
type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function cborHead(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** Encodes a CBOR item. */
export function cbor(item: Cbor): Uint8Array {
  const out: number[] = [];
  const put = (v: Cbor): void => {
    if (typeof v === 'number') out.push(...(v >= 0 ? cborHead(0, v) : cborHead(1, -1 - v)));
    else if (typeof v === 'string') {
      const bytes = new TextEncoder().encode(v);
      out.push(...cborHead(3, bytes.length), ...bytes);
    } else if (v instanceof Uint8Array) out.push(...cborHead(2, v.length), ...v);
    else {
      out.push(...cborHead(5, v.size));
      for (const [k, value] of v) {
        put(k);
        put(value);
      }
    }
  };
  put(item);
  return Uint8Array.from(out);
}

/** What the console's `register/options` returns (the fields used here). */
export interface CreationOptions {
  challenge: string;
  rp: { id: string };
}

/**
 * The browser's `PublicKeyCredential` JSON for a new passkey answering `options`, as created on `origin`.
 * @returns the response to post to `register/verify`
 */
export async function createPasskeyResponse(options: CreationOptions, origin: string): Promise<Record<string, unknown>> {
  const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey('jwk', keys.publicKey)) as JsonWebKey;
  const cose = cbor(
    new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  const credentialId = crypto.getRandomValues(new Uint8Array(16));
  const rpIdHash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(options.rp.id)));
  const flags = 0x01 | 0x04 | 0x40; // user present, user verified, attested credential data
  const authData = Uint8Array.from([
    ...rpIdHash,
    flags,
    0,
    0,
    0,
    0, // signature counter
    ...new Uint8Array(16), // AAGUID
    credentialId.length >> 8,
    credentialId.length & 0xff,
    ...credentialId,
    ...cose,
  ]);
  const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
  const attestationObject = cbor(
    new Map<string, Cbor>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', authData],
    ]),
  );
  return {
    id: b64url(credentialId),
    rawId: b64url(credentialId),
    type: 'public-key',
    response: {
      clientDataJSON: b64url(new TextEncoder().encode(clientData)),
      attestationObject: b64url(attestationObject),
      transports: ['internal'],
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

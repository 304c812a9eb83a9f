/** Bytes as lower-case hex, and the SHA-256 hex digest of a text (Web Crypto: the Worker, Node and scripts alike). */

/** Lower-case hex of bytes, two characters per byte (`[0x0a, 0xff]` → `"0aff"`). */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // One table lookup per byte (a key's hash is made on every authenticated request).
  let out = '';
  for (let i = 0; i < view.length; i++) out += HEX_PAIRS[view[i]!];
  return out;
}

/** `00` … `ff`, by byte value. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex characters. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

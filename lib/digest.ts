/** Bytes as lower-case hex, and the SHA-256 hex digest of a text (Web Crypto: the Worker, Node and scripts alike). */

/** Lower-case hex of bytes, two characters per byte (`[0x0a, 0xff]` → `"0aff"`). */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  return [...(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex characters. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

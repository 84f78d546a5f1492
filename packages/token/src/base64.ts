// Strict standard Base64 (RFC 4648 §4): alphabet A-Z a-z 0-9 + /, '=' padding to a multiple of 4, zero pad bits.
// Node's own decoder silently accepts URL-safe characters, missing padding and trailing junk (docs/token.md, Format: "Envelope").

const STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function sextet(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  return c === 43 ? 62 : 63;
}

/** Decodes strict Base64, or returns undefined with no exception. */
export function decodeBase64Strict(s: string): Buffer | undefined {
  if (!STRICT.test(s)) return undefined;
  // Non-canonical encodings (non-zero bits in the final character before the padding) are refused too.
  if (s.endsWith('==')) {
    if ((sextet(s.charCodeAt(s.length - 3)) & 0x0f) !== 0) return undefined;
  } else if (s.endsWith('=')) {
    if ((sextet(s.charCodeAt(s.length - 2)) & 0x03) !== 0) return undefined;
  }
  return Buffer.from(s, 'base64');
}

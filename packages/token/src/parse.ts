// Strict AccessToken2 parser (docs/token.md, Format: "Reading and checking", steps 1-6). Never throws; every failure is a named rejection.
import { decodeBase64Strict } from './base64.ts';
import { ByteReader, TokenFormatError } from './bytes.ts';
import { MAX_PAYLOAD_BYTES, SIGNATURE_BYTES, VERSION } from './format.ts';
import { inflateCapped } from './inflate.ts';
import { reject, type TokenRejection } from './result.ts';
import { readService, UnknownServiceError } from './service-codec.ts';
import type { TokenService } from './services.ts';

export interface ParsedToken {
  readonly version: '007';
  readonly appId: string;
  /** Unix seconds. */
  readonly issueTs: number;
  /** Lifetime in seconds from issueTs. */
  readonly expire: number;
  readonly salt: number;
  /** The embedded HMAC-SHA256 (32 bytes). */
  readonly signature: Uint8Array;
  /** The original signed bytes (everything after the signature field), as they arrived. */
  readonly signedBytes: Uint8Array;
  /** In token order (ascending type). */
  readonly services: readonly TokenService[];
}

export type ParseResult = { readonly ok: true; readonly token: ParsedToken } | TokenRejection;

// A 64 KiB payload compresses to at most a few bytes more; anything far longer is refused before decoding.
const MAX_TOKEN_CHARS = 4 + Math.ceil(((MAX_PAYLOAD_BYTES + 1024) * 4) / 3);

export function parseToken(token: string): ParseResult {
  if (typeof token !== 'string') return reject('malformed', 'token must be a string');
  if (token.length < VERSION.length) return reject('malformed', 'token is too short');
  if (!token.startsWith(VERSION)) return reject('wrong_version', `token version "${token.slice(0, 3)}" is not ${VERSION}`);
  if (token.length > MAX_TOKEN_CHARS) return reject('malformed', 'token is too long');
  const compressed = decodeBase64Strict(token.slice(VERSION.length));
  if (!compressed) return reject('malformed', 'token body is not standard padded Base64');
  const inflated = inflateCapped(compressed, MAX_PAYLOAD_BYTES);
  if (!inflated.ok) return reject('malformed', `token body: ${inflated.message}`);
  const payload = inflated.data;
  try {
    const r = new ByteReader(payload);
    const signature = r.bytes('signature');
    if (signature.length !== SIGNATURE_BYTES) {
      return reject('malformed', `signature is ${signature.length} bytes, expected ${SIGNATURE_BYTES}`);
    }
    const signedAt = r.pos;
    const appId = r.str('appId');
    const issueTs = r.u32('issueTs');
    const expire = r.u32('expire');
    const salt = r.u32('salt');
    const count = r.u16('service count');
    const services: TokenService[] = [];
    for (let i = 0; i < count; i++) services.push(readService(r));
    if (r.remaining !== 0) return reject('malformed', `${r.remaining} bytes after the last service`);
    return {
      ok: true,
      token: { version: VERSION, appId, issueTs, expire, salt, signature, signedBytes: payload.subarray(signedAt), services },
    };
  } catch (e) {
    if (e instanceof UnknownServiceError) return reject('unknown_service', e.message);
    if (e instanceof TokenFormatError) return reject('malformed', e.message);
    return reject('malformed', 'unreadable token');
  }
}

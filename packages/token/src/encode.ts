// Serialises, signs, compresses and Base64-encodes a token (docs/token.md, Format: "Envelope", "Payload"). Byte-identical to agora-token 2.0.6.
import { ByteWriter, TokenValueError } from './bytes.ts';
import { deflateToBase64 } from './deflate.ts';
import { MAX_PAYLOAD_BYTES, SIGNATURE_BYTES, VERSION } from './format.ts';
import { writeService } from './service-codec.ts';
import type { TokenService } from './services.ts';
import { HEX32, sign } from './signing.ts';


export interface BuildOptions {
  /** u32 nonce; default random 1..99999999 like the official builders. */
  readonly salt?: number;
  /** Unix seconds; default floor(now / 1000). */
  readonly issueTs?: number;
}

export interface TokenFields {
  readonly appId: string;
  readonly appCertificate: string;
  /** Token lifetime in seconds from issueTs. */
  readonly expire: number;
  readonly services: readonly TokenService[];
}

// Building is synchronous, so one writer serves every call without intermediate buffers.
const writer = new ByteWriter(1024);

export function randomSalt(): number {
  return Math.floor(Math.random() * 99999999) + 1;
}

/** Throws TokenValueError when a field cannot be encoded; see buildToken for the '' wrapper. */
export function encodeToken(fields: TokenFields, opts: BuildOptions = {}): string {
  const { appId, appCertificate, expire, services } = fields;
  if (typeof appId !== 'string' || !HEX32.test(appId)) throw new TokenValueError('appId must be 32 hexadecimal characters');
  if (typeof appCertificate !== 'string' || !HEX32.test(appCertificate)) {
    throw new TokenValueError('appCertificate must be 32 hexadecimal characters');
  }
  if (services.length === 0) throw new TokenValueError('a token needs at least one service');
  // As in the official builders, an issue time of 0 (or none) means now.
  const issueTs = Math.trunc(opts.issueTs || Date.now() / 1000);
  const salt = Math.trunc(opts.salt ?? randomSalt());

  const w = writer.reset();
  w.u16(SIGNATURE_BYTES);
  const sigAt = w.skip(SIGNATURE_BYTES);
  const infoAt = w.pos;
  w.str(appId).u32(issueTs).u32(expire).u32(salt).u16(services.length);
  // Stable sort by type: same-type records keep their order (agora-token 2.0.6 behaviour).
  const ordered = services.length === 1 ? services : [...services].sort((a, b) => a.type - b.type);
  for (const s of ordered) writeService(w, s);
  if (w.pos > MAX_PAYLOAD_BYTES) throw new TokenValueError(`payload larger than ${MAX_PAYLOAD_BYTES} bytes`);

  const sig = sign(appCertificate, issueTs >>> 0, salt >>> 0, w.view(infoAt));
  sig.copy(w.buf, sigAt);
  return VERSION + deflateToBase64(w.view());
}

/** Builds a token from arbitrary services; '' when any field is invalid (the official builders' contract). */
export function buildToken(fields: TokenFields, opts?: BuildOptions): string {
  try {
    return encodeToken(fields, opts);
  } catch {
    return '';
  }
}

// AccessToken2 signing (docs/token.md, Format: "Signing"): signing_key = HMAC(u32le(salt), HMAC(u32le(issueTs), certificate)).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const HEX32 = /^[0-9a-fA-F]{32}$/;

function hmac(key: Buffer, message: Buffer | string): Buffer {
  return createHmac('sha256', key).update(message).digest();
}

function u32le(v: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(v >>> 0, 0);
  return b;
}

/**
 * Small FIFO caches: a server signs and verifies many tokens with one certificate within the same second
 * (issueTs) and sees the same tokens again (salt), so most derivations repeat. Bounded so that hostile input
 * cannot grow memory. Keys hold the certificate, but the maps never leave the process.
 */
class BoundedCache {
  private readonly map = new Map<string, Buffer>();
  constructor(private readonly max: number) {}
  get(k: string): Buffer | undefined {
    return this.map.get(k);
  }
  set(k: string, v: Buffer): void {
    if (this.map.size >= this.max) {
      const first = this.map.keys().next();
      if (!first.done) this.map.delete(first.value);
    }
    this.map.set(k, v);
  }
}

const issueKeys = new BoundedCache(64);
const signingKeys = new BoundedCache(1024);

/** k1 = HMAC(key = u32le(issueTs), message = certificate as ASCII). */
export function issueKey(appCertificate: string, issueTs: number): Buffer {
  const k = `${appCertificate}|${issueTs}`;
  let v = issueKeys.get(k);
  if (!v) {
    v = hmac(u32le(issueTs), appCertificate);
    issueKeys.set(k, v);
  }
  return v;
}

/** The HMAC key for signing_info. */
export function signingKey(appCertificate: string, issueTs: number, salt: number): Buffer {
  const k = `${appCertificate}|${issueTs}|${salt}`;
  let v = signingKeys.get(k);
  if (!v) {
    v = hmac(u32le(salt), issueKey(appCertificate, issueTs));
    signingKeys.set(k, v);
  }
  return v;
}

export function sign(appCertificate: string, issueTs: number, salt: number, signingInfo: Uint8Array): Buffer {
  return createHmac('sha256', signingKey(appCertificate, issueTs, salt)).update(signingInfo).digest();
}

/** Constant-time comparison of an expected signature with the embedded one (lengths checked first). */
export function signatureMatches(expected: Uint8Array, actual: Uint8Array): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

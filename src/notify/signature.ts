import { createHmac, timingSafeEqual } from 'node:crypto';

/** The two NCS signature headers: lower-case hex HMAC-SHA1 and HMAC-SHA256 of the raw body bytes (docs/notify.md). */
export function signatureHeaders(body: string | Uint8Array, secret: string): { 'Agora-Signature': string; 'Agora-Signature-V2': string } {
  return {
    'Agora-Signature': createHmac('sha1', secret).update(body).digest('hex'),
    'Agora-Signature-V2': createHmac('sha256', secret).update(body).digest('hex'),
  };
}

/** Receiver side: true when either header matches the raw body (constant-time compare). */
export function verifySignature(
  body: string | Uint8Array,
  secret: string,
  headers: { readonly 'agora-signature'?: string | undefined; readonly 'agora-signature-v2'?: string | undefined },
): boolean {
  const want = signatureHeaders(body, secret);
  const same = (a: string | undefined, b: string) =>
    a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a.toLowerCase()), Buffer.from(b));
  return same(headers['agora-signature-v2'], want['Agora-Signature-V2']) || same(headers['agora-signature'], want['Agora-Signature']);
}

import { createHmac } from 'node:crypto';

/** The two NCS signature headers: lower-case hex HMAC-SHA1 and HMAC-SHA256 of the raw body bytes (notes §2.1). */
export function signatureHeaders(body: string | Uint8Array, secret: string): { 'Agora-Signature': string; 'Agora-Signature-V2': string } {
  return {
    'Agora-Signature': createHmac('sha1', secret).update(body).digest('hex'),
    'Agora-Signature-V2': createHmac('sha256', secret).update(body).digest('hex'),
  };
}

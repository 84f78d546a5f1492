/** Test helpers of the RTMP listener: a Flash-era client's side of the digest handshake. */
import { randomBytes } from 'node:crypto';
import { digestOf, digestOffset, HANDSHAKE_SIZE, hmac, PLAYER_KEY, SERVER_KEY, SERVER_KEY_FULL } from '../../rtmp/handshake.ts';

const DIGEST = 32;

/** A C1 of the digest form, as a Flash-era client makes it, with its digest. */
export function digestC1(scheme: 0 | 1): { c1: Buffer; digest: Buffer } {
  const c1 = randomBytes(HANDSHAKE_SIZE);
  c1.writeUInt32BE(0, 0);
  Buffer.from([0x80, 0x00, 0x07, 0x02]).copy(c1, 4);
  const offset = digestOffset(c1, scheme);
  const digest = digestOf(c1, offset, PLAYER_KEY);
  digest.copy(c1, offset);
  return { c1, digest };
}

/** Whether S1 and S2 are signed as a digest-form client checks them. */
export function verifyServerDigests(s1: Buffer, s2: Buffer, clientDigestBytes: Buffer, scheme: 0 | 1): boolean {
  const offset = digestOffset(s1, scheme);
  const s1ok = digestOf(s1, offset, SERVER_KEY).equals(s1.subarray(offset, offset + DIGEST));
  const key = hmac(SERVER_KEY_FULL, clientDigestBytes);
  const s2ok = hmac(key, s2.subarray(0, HANDSHAKE_SIZE - DIGEST)).equals(s2.subarray(HANDSHAKE_SIZE - DIGEST));
  return s1ok && s2ok;
}

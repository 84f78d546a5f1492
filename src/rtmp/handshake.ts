/**
 * The server side of the RTMP handshake (C0 C1 → S0 S1 S2 → C2), pure. Two forms exist: the plain one of the RTMP
 * specification (S2 echoes C1), and the digest form Flash-era clients use (C1 carries an HMAC-SHA256 digest keyed
 * with the well-known "Genuine Adobe Flash Player 001" constant, and expects S1 and S2 signed in return). A C1 with
 * a non-zero version field and a valid digest gets the digest form; anything else the plain one (ffmpeg and OBS's
 * librtmp send plain RTMP without SWF verification, and read either).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const HANDSHAKE_SIZE = 1536;
const DIGEST = 32;
/** The 32 bytes both published keys end with. */
const KEY_TAIL = Buffer.from('f0eec24a8068bee82e00d0d1029e7e576eec5d2d29806fab93b8e636cfeb31ae', 'hex');
export const PLAYER_KEY = Buffer.from('Genuine Adobe Flash Player 001', 'latin1');
export const SERVER_KEY = Buffer.from('Genuine Adobe Flash Media Server 001', 'latin1');
export const SERVER_KEY_FULL = Buffer.concat([SERVER_KEY, KEY_TAIL]);
/** The version an S1 of the digest form carries (any non-zero value says "digest form"). */
const SERVER_VERSION = Buffer.from([0x04, 0x05, 0x00, 0x01]);

export const hmac = (key: Buffer, ...parts: Buffer[]): Buffer => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Where the digest sits in a 1536-byte block, for each of the two layouts ("schemes"). */
export function digestOffset(block: Buffer, scheme: 0 | 1): number {
  const base = scheme === 0 ? 8 : 772;
  return ((block[base]! + block[base + 1]! + block[base + 2]! + block[base + 3]!) % 728) + base + 4;
}

/** The digest of a block with the 32 bytes at `offset` left out. */
export const digestOf = (block: Buffer, offset: number, key: Buffer): Buffer => hmac(key, block.subarray(0, offset), block.subarray(offset + DIGEST));

/** The client's digest and its scheme, when C1 is of the digest form. */
function clientDigest(c1: Buffer): { scheme: 0 | 1; digest: Buffer } | undefined {
  if (c1.readUInt32BE(4) === 0) return undefined;
  for (const scheme of [1, 0] as const) {
    const offset = digestOffset(c1, scheme);
    const digest = c1.subarray(offset, offset + DIGEST);
    if (digestOf(c1, offset, PLAYER_KEY).equals(digest)) return { scheme, digest: Buffer.from(digest) };
  }
  return undefined;
}

/** S1 and S2 answering a client's C1 (1536 bytes); `nowMs` fills S1's time field. */
export function answerHandshake(c1: Buffer, nowMs: number): { s1: Buffer; s2: Buffer } {
  if (c1.length !== HANDSHAKE_SIZE) throw new Error(`C1 must be ${HANDSHAKE_SIZE} bytes, got ${c1.length}`);
  const s1 = randomBytes(HANDSHAKE_SIZE);
  s1.writeUInt32BE(Math.floor(nowMs / 1000) >>> 0, 0);
  const client = clientDigest(c1);
  if (!client) {
    s1.writeUInt32BE(0, 4);
    // S2 echoes C1, with the time we read it at (bytes 4-7).
    const s2 = Buffer.from(c1);
    s2.writeUInt32BE(Math.floor(nowMs / 1000) >>> 0, 4);
    return { s1, s2 };
  }
  SERVER_VERSION.copy(s1, 4);
  const offset = digestOffset(s1, client.scheme);
  digestOf(s1, offset, SERVER_KEY).copy(s1, offset);
  const s2 = randomBytes(HANDSHAKE_SIZE);
  const key = hmac(SERVER_KEY_FULL, client.digest);
  hmac(key, s2.subarray(0, HANDSHAKE_SIZE - DIGEST)).copy(s2, HANDSHAKE_SIZE - DIGEST);
  return { s1, s2 };
}

/**
 * C0 and C1 of the plain form, as a publishing client sends them (OBS's librtmp sends this form to every CDN): the
 * version byte 3, then 1536 bytes of our time, four zero bytes and random filler.
 */
export function clientHello(nowMs: number): Buffer {
  const c1 = randomBytes(HANDSHAKE_SIZE);
  c1.writeUInt32BE(Math.floor(nowMs / 1000) >>> 0, 0);
  c1.writeUInt32BE(0, 4);
  return Buffer.concat([Buffer.from([3]), c1]);
}

/** C2 answering the server's S1: S1 echoed (both forms accept the echo from a client of the plain form). */
export function clientAck(s1: Buffer): Buffer {
  if (s1.length !== HANDSHAKE_SIZE) throw new Error(`S1 must be ${HANDSHAKE_SIZE} bytes, got ${s1.length}`);
  return Buffer.from(s1);
}

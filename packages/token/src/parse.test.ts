// The strict parser: what it accepts from other zlib engines, and every way it refuses a token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, createDeflate, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import * as T from './index.ts';
import { APP_ID, CERT, ISSUE, payloadOf, wrap } from './testing/fixtures.ts';

const opts = { salt: 7, issueTs: ISSUE };
const rtc = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, T.RtcRole.PUBLISHER, 600, 600, opts);

function reason(token: string): string {
  const r = T.parseToken(token);
  return r.ok ? 'ok' : r.reason;
}

test('parses a built token back to its fields', () => {
  const r = T.parseToken(rtc);
  assert.ok(r.ok);
  assert.equal(r.token.version, '007');
  assert.equal(r.token.appId, APP_ID);
  assert.equal(r.token.issueTs, ISSUE);
  assert.equal(r.token.expire, 600);
  assert.equal(r.token.salt, 7);
  assert.equal(r.token.signature.length, 32);
  assert.deepEqual(r.token.services, [
    { type: 1, name: 'rtc', channelName: 'room', uid: '42', privileges: new Map([[1, 600], [2, 600], [3, 600], [4, 600]]) },
  ]);
});

test('other zlib engines (stored blocks, level 9) are accepted and verify', () => {
  for (const level of [0, 1, 9]) {
    const t = wrap(payloadOf(rtc), level);
    const r = T.parseToken(t);
    assert.ok(r.ok, `level ${level}`);
    assert.equal(T.verifySignature(r.token, CERT), true);
  }
});

test('a Go-style stream (sync flush, then the final block) is accepted and verifies', async () => {
  const d = createDeflate();
  const chunks: Buffer[] = [];
  d.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => d.on('end', resolve));
  d.write(payloadOf(rtc));
  d.flush(constants.Z_SYNC_FLUSH, () => d.end());
  await done;
  const z = Buffer.concat(chunks);
  assert.ok(z.includes(Buffer.from([0, 0, 0xff, 0xff])), 'has the empty stored block of a sync flush');
  const r = T.parseToken('007' + z.toString('base64'));
  assert.ok(r.ok);
  assert.equal(T.verifySignature(r.token, CERT), true);
});

test('version and length: wrong_version or malformed', () => {
  assert.equal(reason(''), 'malformed');
  assert.equal(reason('00'), 'malformed');
  assert.equal(reason('006' + rtc.slice(3)), 'wrong_version');
  assert.equal(reason('abc'), 'wrong_version');
  assert.equal(reason('007'), 'malformed');
  assert.equal(reason(undefined as unknown as string), 'malformed');
  assert.equal(reason('007' + 'A'.repeat(200_000)), 'malformed');
});

test('only standard, padded, canonical Base64 is accepted (Node alone would accept all of these)', () => {
  const withPad = T.buildAppToken(APP_ID, CERT, 600, { salt: 1, issueTs: 1111111 });
  assert.ok(withPad.endsWith('=='));
  assert.equal(reason(withPad.replace(/=+$/, '')), 'malformed');
  assert.equal(reason(withPad + '!!!'), 'malformed');
  assert.equal(reason(withPad + '===='), 'malformed');
  assert.equal(reason(' ' + withPad), 'wrong_version');
  assert.equal(reason(withPad.slice(0, 10) + '\n' + withPad.slice(10)), 'malformed');
  const user = T.buildUserToken(APP_ID, CERT, '2882341273', 600, { salt: 1, issueTs: 1111111 });
  assert.match(user, /[+/]/);
  assert.equal(reason(user.replace(/\+/g, '-').replace(/\//g, '_')), 'malformed');
  // Non-zero bits in the last character before the padding decode to the same bytes in lenient decoders.
  const last = withPad.charAt(withPad.length - 3);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const bumped = alphabet.charAt(alphabet.indexOf(last) + 1);
  assert.equal(reason(withPad.slice(0, -3) + bumped + '=='), 'malformed');
});

test('zlib framing: raw deflate, gzip, truncated streams, trailing data and zip bombs are malformed', () => {
  const p = payloadOf(rtc);
  assert.equal(reason('007' + deflateRawSync(p).toString('base64')), 'malformed');
  assert.equal(reason('007' + gzipSync(p).toString('base64')), 'malformed');
  const z = deflateSync(p);
  assert.equal(reason('007' + z.subarray(0, z.length - 1).toString('base64')), 'malformed');
  assert.equal(reason('007' + z.subarray(0, z.length - 5).toString('base64')), 'malformed');
  assert.equal(reason('007' + Buffer.concat([z, Buffer.from([0])]).toString('base64')), 'malformed');
  const bomb = Buffer.alloc(64 * 1024 + 1);
  p.copy(bomb);
  assert.equal(reason(wrap(bomb)), 'malformed');
  const r = T.parseToken(wrap(bomb));
  assert.ok(!r.ok && /larger than 65536/.test(r.message));
});

test('bounds: every truncation of the payload is malformed, and so are trailing bytes', () => {
  const p = payloadOf(rtc);
  for (let n = 0; n < p.length; n++) assert.equal(reason(wrap(p.subarray(0, n))), 'malformed', `length ${n}`);
  assert.equal(reason(wrap(Buffer.concat([p, Buffer.from([0])]))), 'malformed');
});

test('the signature field must be 32 bytes', () => {
  const p = payloadOf(rtc);
  const short = Buffer.concat([Buffer.from([31, 0]), p.subarray(2, 33), p.subarray(34)]);
  const r = T.parseToken(wrap(short));
  assert.ok(!r.ok);
  assert.equal(r.reason, 'malformed');
  assert.match(r.message, /signature is 31 bytes/);
});

/** A payload with a zero signature and the given bytes after the service count. */
function payloadWithServices(count: number, services: Buffer): Buffer {
  const w = new T.ByteWriter();
  w.u16(32);
  w.skip(32);
  w.buf.fill(0, 2, 34);
  w.str(APP_ID).u32(ISSUE).u32(600).u32(1).u16(count);
  return Buffer.concat([w.view(), services]);
}

test('unknown service types are rejected (0, 11, 999), not skipped', () => {
  for (const type of [0, 11, 999]) {
    const s = Buffer.from([type & 0xff, type >> 8, 0, 0]);
    assert.equal(reason(wrap(payloadWithServices(1, s))), 'unknown_service', `type ${type}`);
  }
});

test('ConvoAI (9) and STT (10) parse as services without fields; APaaS role is signed', () => {
  const w = new T.ByteWriter();
  w.u16(9).u16(0).u16(10).u16(1).u16(1).u32(5).u16(7).u16(0).str('room').str('user').i16(-1);
  const r = T.parseToken(wrap(payloadWithServices(3, w.view())));
  assert.ok(r.ok, !r.ok ? r.message : '');
  assert.deepEqual(
    r.token.services.map((s) => s.name),
    ['convoai', 'stt', 'apaas'],
  );
  const apaas = r.token.services[2];
  assert.ok(apaas?.type === 7);
  assert.equal(apaas.role, -1);
});

test('invalid UTF-8 in a text field is malformed; a zero-service token parses', () => {
  const w = new T.ByteWriter();
  w.u16(5).u16(0).u16(2);
  const bad = Buffer.concat([w.view(), Buffer.from([0xc3, 0x28])]);
  assert.equal(reason(wrap(payloadWithServices(1, bad))), 'malformed');
  const r = T.parseToken(wrap(payloadWithServices(0, Buffer.alloc(0))));
  assert.ok(r.ok);
  assert.equal(r.token.services.length, 0);
});

test('describeToken names services and privileges and reports signature and expiry', () => {
  const r = T.parseToken(rtc);
  assert.ok(r.ok);
  const d = T.describeToken(r.token, { appCertificate: CERT, now: ISSUE + 10 });
  assert.equal(d.signature, 'valid');
  assert.equal(d.expired, false);
  assert.deepEqual(d.services[0]?.privileges, { joinChannel: 600, publishAudioStream: 600, publishVideoStream: 600, publishDataStream: 600 });
  assert.equal(T.describeToken(r.token, { appCertificate: 'a'.repeat(32), now: ISSUE + 600 }).signature, 'invalid');
  assert.equal(T.describeToken(r.token, { now: ISSUE + 600 }).expired, true);
  assert.equal(T.describeToken(r.token).signature, 'unchecked');
});

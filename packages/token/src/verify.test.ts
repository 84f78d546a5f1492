// Verifiers: every rejection reason, expiry boundaries with an injected now, and tampering.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as T from './index.ts';
import { APP_ID, CERT, ISSUE, payloadOf, wrap } from './testing/fixtures.ts';

const o = { salt: 99, issueTs: ISSUE };
const ctx = { appId: APP_ID, appCertificate: CERT, now: ISSUE + 1 };

function reasonOf(c: T.TokenCheck): string {
  return c.ok ? 'ok' : c.reason;
}

test('RTC join: channel, uid (or wildcard), join privilege, expiresAt', () => {
  const pub = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, T.RtcRole.PUBLISHER, 600, 300, o);
  const ok = T.verifyRtcJoin(pub, { ...ctx, channel: 'room', uid: '42', publish: true });
  assert.ok(ok.ok);
  assert.equal(ok.expiresAt, ISSUE + 300);
  assert.equal(reasonOf(T.verifyRtcJoin(pub, { ...ctx, channel: 'other', uid: '42' })), 'wrong_channel');
  assert.equal(reasonOf(T.verifyRtcJoin(pub, { ...ctx, channel: 'room', uid: '43' })), 'wrong_uid');
  assert.equal(reasonOf(T.verifyRtcJoin(pub, { ...ctx, channel: 'Room', uid: '42' })), 'wrong_channel');

  const any = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 0, T.RtcRole.SUBSCRIBER, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtcJoin(any, { ...ctx, channel: 'room', uid: '12345' })), 'ok');
  assert.equal(reasonOf(T.verifyRtcJoin(any, { ...ctx, channel: 'room', uid: 'alice' })), 'ok');
  // The string "0" is an account, not the wildcard.
  const zero = T.buildRtcTokenWithAccount(APP_ID, CERT, 'room', '0', T.RtcRole.SUBSCRIBER, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtcJoin(zero, { ...ctx, channel: 'room', uid: '0' })), 'ok');
  assert.equal(reasonOf(T.verifyRtcJoin(zero, { ...ctx, channel: 'room', uid: '1' })), 'wrong_uid');
  const account = T.buildRtcTokenWithAccount(APP_ID, CERT, 'room', 'alice', T.RtcRole.PUBLISHER, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtcJoin(account, { ...ctx, channel: 'room', uid: 'alice', publish: true })), 'ok');
});

test('RTC publish needs all of audio, video and data; a subscriber token only joins', () => {
  const sub = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, T.RtcRole.SUBSCRIBER, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtcJoin(sub, { ...ctx, channel: 'room', uid: '42' })), 'ok');
  const denied = T.verifyRtcJoin(sub, { ...ctx, channel: 'room', uid: '42', publish: true });
  assert.equal(reasonOf(denied), 'missing_privilege');
  assert.ok(!denied.ok && /publishAudioStream/.test(denied.message));
  for (const missing of [2, 3, 4]) {
    const privileges = new Map([[1, 600], [2, 600], [3, 600], [4, 600]]);
    privileges.delete(missing);
    const t = T.buildToken({ appId: APP_ID, appCertificate: CERT, expire: 600, services: [{ type: 1, name: 'rtc', channelName: 'room', uid: '', privileges }] }, o);
    assert.equal(reasonOf(T.verifyRtcJoin(t, { ...ctx, channel: 'room', uid: '1', publish: true })), 'missing_privilege', `without ${missing}`);
    assert.equal(reasonOf(T.verifyRtcJoin(t, { ...ctx, channel: 'room', uid: '1' })), 'ok');
  }
  // Each publish privilege expiring on its own boundary.
  const t = T.buildRtcTokenWithUidAndPrivilege(APP_ID, CERT, 'room', 42, 600, 600, 100, 200, 300, o);
  const at = (now: number) => reasonOf(T.verifyRtcJoin(t, { ...ctx, now, channel: 'room', uid: '42', publish: true }));
  assert.equal(at(ISSUE + 99), 'ok');
  assert.equal(at(ISSUE + 100), 'expired');
  const joinOnly = T.verifyRtcJoin(t, { ...ctx, now: ISSUE + 100, channel: 'room', uid: '42' });
  assert.ok(joinOnly.ok);
  assert.equal(joinOnly.expiresAt, ISSUE + 600);
  const early = T.verifyRtcJoin(t, { ...ctx, now: ISSUE, channel: 'room', uid: '42', publish: true });
  assert.ok(early.ok);
  assert.equal(early.expiresAt, ISSUE + 100);
});

test('expiry boundaries: token valid iff now < issueTs + expire; privilege iff now < issueTs + min(expire, value)', () => {
  const chat = T.buildAppToken(APP_ID, CERT, 600, o);
  assert.equal(reasonOf(T.verifyChatApp(chat, { ...ctx, now: ISSUE })), 'ok');
  assert.equal(reasonOf(T.verifyChatApp(chat, { ...ctx, now: ISSUE + 599 })), 'ok');
  assert.equal(reasonOf(T.verifyChatApp(chat, { ...ctx, now: ISSUE + 600 })), 'expired');
  assert.equal(reasonOf(T.verifyChatApp(chat, { ...ctx, now: ISSUE + 10_000 })), 'expired');
  // Privilege shorter than the token: its own deadline applies.
  const short = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, T.RtcRole.SUBSCRIBER, 600, 60, o);
  assert.equal(reasonOf(T.verifyRtcJoin(short, { ...ctx, now: ISSUE + 59, channel: 'room', uid: '1' })), 'ok');
  assert.equal(reasonOf(T.verifyRtcJoin(short, { ...ctx, now: ISSUE + 60, channel: 'room', uid: '1' })), 'expired');
  // Privilege longer than the token: limited by the token.
  const long = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, T.RtcRole.SUBSCRIBER, 600, 86_400, o);
  const c = T.verifyRtcJoin(long, { ...ctx, now: ISSUE + 599, channel: 'room', uid: '1' });
  assert.ok(c.ok);
  assert.equal(c.expiresAt, ISSUE + 600);
  assert.equal(reasonOf(T.verifyRtcJoin(long, { ...ctx, now: ISSUE + 600, channel: 'room', uid: '1' })), 'expired');
  // A privilege value of 0 (the official RTC default) is expired from the start: no "0 means forever".
  const zero = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, T.RtcRole.SUBSCRIBER, 600, 0, o);
  assert.equal(reasonOf(T.verifyRtcJoin(zero, { ...ctx, now: ISSUE, channel: 'room', uid: '1' })), 'expired');
  // Like the official builder, an omitted privilegeExpire is 0: byte-identical, and expired for the verifier.
  const dflt = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, T.RtcRole.PUBLISHER, 600, undefined, o);
  assert.equal(dflt, T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, T.RtcRole.PUBLISHER, 600, 0, o));
  assert.equal(reasonOf(T.verifyRtcJoin(dflt, { ...ctx, now: ISSUE, channel: 'room', uid: '1' })), 'expired');
});

test('chat: app privilege for REST, user privilege for the UUID in the token', () => {
  const app = T.buildAppToken(APP_ID, CERT, 600, o);
  const user = T.buildUserToken(APP_ID, CERT, 'uuid-1', 600, o);
  assert.equal(reasonOf(T.verifyChatApp(app, ctx)), 'ok');
  assert.equal(reasonOf(T.verifyChatApp(user, ctx)), 'missing_privilege');
  assert.equal(reasonOf(T.verifyChatUser(user, { ...ctx, uuid: 'uuid-1' })), 'ok');
  assert.equal(reasonOf(T.verifyChatUser(user, { ...ctx, uuid: 'uuid-2' })), 'wrong_user');
  assert.equal(reasonOf(T.verifyChatUser(app, { ...ctx, uuid: '' })), 'missing_privilege');
  const rtc = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, 1, 600, 600, o);
  assert.equal(reasonOf(T.verifyChatApp(rtc, ctx)), 'missing_service');
  assert.equal(reasonOf(T.verifyChatUser(rtc, { ...ctx, uuid: 'u' })), 'missing_service');
  assert.equal(reasonOf(T.verifyRtcJoin(app, { ...ctx, channel: 'room', uid: '1' })), 'missing_service');
});

test('chat: a token valid for more than 24 hours is refused as validity_too_long, 24 hours exactly passes', () => {
  const week = 7 * 86400;
  const app = T.verifyChatApp(T.buildAppToken(APP_ID, CERT, week, o), ctx);
  assert.equal(reasonOf(app), 'validity_too_long');
  assert.ok(!app.ok && /604800 s, more than the maximum of 86400 s/.test(app.message), JSON.stringify(app));
  assert.equal(reasonOf(T.verifyChatUser(T.buildUserToken(APP_ID, CERT, 'u', week, o), { ...ctx, uuid: 'u' })), 'validity_too_long');
  assert.equal(reasonOf(T.verifyChatUser(T.buildUserToken(APP_ID, CERT, 'u', 86400, o), { ...ctx, uuid: 'u' })), 'ok');
  assert.equal(reasonOf(T.verifyChatApp(T.buildAppToken(APP_ID, CERT, 86401, o), ctx)), 'validity_too_long');
  assert.equal(T.CHAT_TOKEN_MAX_VALIDITY_SECONDS, 86400);
  // RTC tokens have no such maximum in the spec.
  assert.equal(reasonOf(T.verifyRtcJoin(T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, 1, week, week, o), { ...ctx, channel: 'room', uid: '1' })), 'ok');
});

test('RTM: user id and login privilege', () => {
  const t = T.buildRtmToken(APP_ID, CERT, 'bob', 600, o);
  const ok = T.verifyRtm(t, { ...ctx, userId: 'bob' });
  assert.ok(ok.ok);
  assert.equal(ok.expiresAt, ISSUE + 600);
  assert.equal(reasonOf(T.verifyRtm(t, { ...ctx, userId: 'eve' })), 'wrong_user');
  assert.equal(reasonOf(T.verifyRtm(T.buildAppToken(APP_ID, CERT, 600, o), { ...ctx, userId: 'bob' })), 'missing_service');
  const both = T.buildRtcTokenWithRtm(APP_ID, CERT, 'room', 'bob', 1, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtm(both, { ...ctx, userId: 'bob' })), 'ok');
  assert.equal(reasonOf(T.verifyRtcJoin(both, { ...ctx, channel: 'room', uid: 'bob', publish: true })), 'ok');
});

test('app and signature: wrong_app, bad_signature for another certificate or tampered bytes', () => {
  const t = T.buildAppToken(APP_ID, CERT, 600, o);
  assert.equal(reasonOf(T.verifyChatApp(t, { ...ctx, appId: 'f'.repeat(32) })), 'wrong_app');
  assert.equal(reasonOf(T.verifyChatApp(t, { ...ctx, appId: APP_ID.toLowerCase() })), 'ok');
  assert.equal(reasonOf(T.verifyChatApp(t, { ...ctx, appCertificate: 'a'.repeat(32) })), 'bad_signature');
  assert.equal(reasonOf(T.verifyChatApp(t, { ...ctx, appCertificate: CERT.toLowerCase() })), 'bad_signature');
  assert.equal(reasonOf(T.verifyChatApp(t, { ...ctx, appCertificate: 'not-a-certificate' })), 'bad_signature');
  // Flip each bit after the signature field that keeps the token parseable: the HMAC must catch it.
  const p = payloadOf(t);
  let tampered = 0;
  for (let i = 34; i < p.length; i++) {
    for (let bit = 0; bit < 8; bit++) {
      const q = Buffer.from(p);
      q[i]! ^= 1 << bit;
      const r = T.verifyChatApp(wrap(q), { ...ctx, now: ISSUE });
      assert.ok(!r.ok, `byte ${i} bit ${bit}`);
      if (r.reason === 'bad_signature') tampered++;
    }
  }
  assert.ok(tampered > 100, `only ${tampered} flips reached the signature check`);
  // A flipped signature byte, and an expired tampered token: bad_signature wins over expired.
  const s = Buffer.from(p);
  s[2]! ^= 0x80;
  assert.equal(reasonOf(T.verifyChatApp(wrap(s), ctx)), 'bad_signature');
  assert.equal(reasonOf(T.verifyChatApp(wrap(s), { ...ctx, now: ISSUE + 10_000 })), 'bad_signature');
});

test('parse failures surface through the verifiers; messages never contain the certificate', () => {
  const t = T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 1, 1, 600, 600, o);
  assert.equal(reasonOf(T.verifyRtcJoin('006abc', { ...ctx, channel: 'room', uid: '1' })), 'wrong_version');
  assert.equal(reasonOf(T.verifyRtcJoin(t + '!', { ...ctx, channel: 'room', uid: '1' })), 'malformed');
  // Service type at offset 82 (signature 34 + appId 34 + three u32 + count 2) becomes 11.
  const unknown = payloadOf(t);
  unknown[82] = 11;
  assert.equal(reasonOf(T.verifyRtcJoin(wrap(unknown), { ...ctx, channel: 'room', uid: '1' })), 'unknown_service');
  const messages = [
    T.verifyRtcJoin(t, { ...ctx, appCertificate: 'b'.repeat(32), channel: 'room', uid: '1' }),
    T.verifyRtcJoin(t, { ...ctx, now: ISSUE + 600, channel: 'room', uid: '1' }),
    T.verifyRtcJoin(t, { ...ctx, channel: 'x', uid: '1' }),
  ];
  for (const m of messages) {
    assert.ok(!m.ok);
    assert.ok(!m.message.includes(CERT) && !m.message.includes('b'.repeat(32)), m.message);
  }
});

test('several RTC records: the one matching channel and uid is used, and the longest-lived wins', () => {
  const services: T.TokenService[] = [
    { type: 1, name: 'rtc', channelName: 'a', uid: '1', privileges: new Map([[1, 600]]) },
    { type: 1, name: 'rtc', channelName: 'b', uid: '1', privileges: new Map([[1, 100]]) },
    { type: 1, name: 'rtc', channelName: 'b', uid: '', privileges: new Map([[1, 500]]) },
  ];
  const t = T.buildToken({ appId: APP_ID, appCertificate: CERT, expire: 600, services }, o);
  const c = T.verifyRtcJoin(t, { ...ctx, channel: 'b', uid: '1' });
  assert.ok(c.ok);
  assert.equal(c.expiresAt, ISSUE + 500);
  assert.equal(reasonOf(T.verifyRtcJoin(t, { ...ctx, channel: 'c', uid: '1' })), 'wrong_channel');
  assert.equal(reasonOf(T.verifyRtcJoin(t, { ...ctx, channel: 'a', uid: '2' })), 'wrong_uid');
});

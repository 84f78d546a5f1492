// Compatibility with the official npm agora-token 2.0.6: identical strings on this Node, identical decoded
// fields, and each side verifies the other's tokens. Property-based (fast-check), plus the official vectors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as T from './index.ts';
import type { TokenService } from './services.ts';
import { issueKey, signingKey } from './signing.ts';
import { agoraBuild, agoraBuilders, agoraParse, agoraVerify } from './testing/oracle.ts';

const RUNS = 500;
const hex32 = fc.stringMatching(/^[0-9a-fA-F]{32}$/);
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constant(''), fc.constant('0'));
// issueTs 0 means "now" to the official constructor, so the oracle can only reproduce issueTs >= 1.
const common = fc.record({ appId: hex32, cert: hex32, salt: u32, issueTs: fc.integer({ min: 1, max: 0xffffffff }), expire: u32 });

function ourPlain(s: TokenService): Record<string, unknown> {
  const privileges = Object.fromEntries([...s.privileges].map(([k, v]) => [String(k), v]));
  const base = { type: s.type, privileges };
  switch (s.type) {
    case 1:
      return { ...base, channel_name: s.channelName, uid: s.uid };
    case 2:
    case 5:
      return { ...base, user_id: s.userId };
    case 3:
    case 6:
      return { ...base, channel_name: s.channelName, account: s.account };
    case 7:
      // The official parser reads the role back unsigned (docs/token.md, Format: "What the builders write").
      return { ...base, room_uuid: s.roomUuid, user_uuid: s.userUuid, role: s.role & 0xffff };
    case 8:
      return { ...base, user_id: s.userId };
    default:
      return base;
  }
}

function agoraPlain(s: Record<string, unknown>): Record<string, unknown> {
  const { permissions: _p, ...rest } = s;
  return { ...rest, privileges: { ...(s.privileges as object) } };
}

/** Full cross-check of one token pair built from the same inputs. */
function crossCheck(ours: string, theirs: string, cert: string): void {
  assert.notEqual(ours, '');
  assert.equal(ours, theirs);
  const p = T.parseToken(theirs);
  assert.ok(p.ok, !p.ok ? p.message : '');
  const o = agoraParse(ours);
  assert.ok(o);
  assert.equal(p.token.appId, o.appId);
  assert.equal(p.token.issueTs, o.issueTs);
  assert.equal(p.token.expire, o.expire);
  assert.equal(p.token.salt, o.salt);
  assert.deepEqual(p.token.services.map(ourPlain), o.services.map(agoraPlain));
  assert.equal(T.verifySignature(p.token, cert), true);
  assert.equal(agoraVerify(ours, cert), true);
}

test('official vectors: byte-identical strings and the documented signature', () => {
  const appId = '970CA35de60c44645bbae8a215061b33';
  const cert = '5CFd2fd1755d40ecb72977518be15d3b';
  const channel = '7d72365eb983485397e3e3f9d460bdda';
  const o = { salt: 1, issueTs: 1111111 };
  const chatApp =
    '007eJxTYNDNaz3snC8huEfHWdz6s98qltq4zqy9fl99Uh0FDvy6F6DAYGlu4OxobJqSamaQbGJiZmKalJSYapFoZGhqYGaYZGzs/kWAIYKJgYGRAYRZGRgZmMB8BgYArfIYaw==';
  const chatUser =
    '007eJxTYNAIsnbS3v/A5t2TC6feR15r+6cq8bqAvfaW+tk/Vzz+p6xTYLA0N3B2NDZNSTUzSDYxMTMxTUpKTLVINDI0NTAzTDI2dv8iwBDBxMDAyADCrAyMDIxgPheDkYWFkbGJoZG5MQAfpR64';
  const rtcUid =
    '007eJxTYBBbsMMnKq7p9Hf/HcIX5kce9b518kCiQgSr5Zrp4X1Tu6UUGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiVwMRhYWRsYmhkbmxgDCaiTj';
  const rtcWildcard =
    '007eJxTYLhzZP08Lxa1Pg57+TcXb/3cZ3wi4V6kbpbOog0G2dOYk20UGCzNDZwdjU1TUs0Mkk1MzExMk5ISUy0SjQxNDcwMk4yN3b8IMEQwMTAwMoAwBIL4CgzmKeZGxmamqUmWFsYmFqbGluapxqnGaZYpJmYGSSkpiQwMADacImo=';
  const rtcRtm =
    '007eJxTYOAQsrQ5s3TfH+1tvy8zZZ46EpCc0V43JXdGd2jS8porKo4KDJbmBs6OxqYpqWYGySYmZiamSUmJqRaJRoamBmaGScbG7l8EGCKYGBgYGRgYmBgYGVgYGMF8JjDJDCZZwKQCg3mKuZGxmWlqkqWFsYmFqbGleapxqnGaZYqJmUFSSkoiF4ORhYWRsYmhkbkxyCyISZwMJanFJfGlxalFACKnKng=';

  assert.equal(T.buildAppToken(appId, cert, 600, o), chatApp);
  assert.equal(T.buildUserToken(appId, cert, '2882341273', 600, o), chatUser);
  // Join-only RTC (any role but PUBLISHER) for a numeric uid, the same uid as an account, and the wildcard.
  assert.equal(T.buildRtcTokenWithUid(appId, cert, channel, 2882341273, T.RtcRole.SUBSCRIBER, 600, 600, o), rtcUid);
  assert.equal(T.buildRtcTokenWithUid(appId, cert, channel, 2882341273, 101, 600, 600, o), rtcUid);
  assert.equal(T.buildRtcTokenWithAccount(appId, cert, channel, '2882341273', T.RtcRole.SUBSCRIBER, 600, 600, o), rtcUid);
  assert.equal(T.buildRtcTokenWithUid(appId, cert, channel, 0, T.RtcRole.SUBSCRIBER, 600, 600, o), rtcWildcard);
  const rtmRtc = T.buildToken(
    {
      appId,
      appCertificate: cert,
      expire: 600,
      services: [
        { type: 2, name: 'rtm', userId: 'test_user', privileges: new Map([[1, 600]]) },
        { type: 1, name: 'rtc', channelName: channel, uid: '2882341273', privileges: new Map([[1, 600], [2, 600], [3, 600], [4, 600]]) },
      ],
    },
    o,
  );
  assert.equal(rtmRtc, rtcRtm);

  // The worked example of the notes (§5): both intermediate keys and the signature.
  assert.equal(issueKey(cert, 1111111).toString('hex'), 'e0f6141e54329d72102500478ec18e0020a5eeef53bbcccc442c6c2f7f178251');
  assert.equal(signingKey(cert, 1111111, 1).toString('hex'), 'cee2fa8dcbe868c30ca8c959d97fad4a5049c634da48449f1b8f59c14fa61073');
  const p = T.parseToken(chatApp);
  assert.ok(p.ok);
  assert.equal(Buffer.from(p.token.signature).toString('hex'), '2d6e85c3436f1811bc2c43173bf34eaa047d5e896abd4ef54c654110c0fade50');
  assert.equal(p.token.signedBytes.length + 34, 94);
  // The certificate is used as ASCII text, so its case matters.
  assert.equal(T.verifySignature(p.token, cert), true);
  assert.equal(T.verifySignature(p.token, cert.toLowerCase()), false);
  assert.equal(T.verifySignature(p.token, 'a'.repeat(32)), false);
  assert.equal(T.verifySignature(p.token, 'z'.repeat(32)), false);
});

test('official C++ vector with Streaming, FCDN and RTM2 services parses and verifies', () => {
  const cpp =
    '007eJxTYPj86Lzdz79M25wNn/lMfvu+TkfmdpiviKvChm8ZV3SWndytwGBpbuDsaGyakmpmkGxiYmZimpSUmGqRaGRoamBmmGRs7P5FgCGCiYGBkYGBgRkImYAsEJ8JTCowmKeYGxmbmaYmWVoYm1iYGluapxqnGqdZppiYGSSlpCRyMRhZWBgZmxgamRuzUaSbA6gXopuToSS1uCS+tDi1iJkB4jQmoGBuanFxYnqqbiKCmcTIAIEcDMUlRamJubqJLGD1jAxsDCD9uokAO/VDvQ==';
  const p = T.parseToken(cpp);
  assert.ok(p.ok, !p.ok ? p.message : '');
  assert.equal(T.verifySignature(p.token, '5CFd2fd1755d40ecb72977518be15d3b'), true);
  const byType = new Map(p.token.services.map((s) => [s.type, s]));
  const streaming = byType.get(3);
  assert.ok(streaming?.type === 3);
  assert.equal(streaming.account, '2882341273');
  assert.deepEqual([...streaming.privileges], [[1, 600], [2, 600]]);
  const fcdn = byType.get(6);
  assert.ok(fcdn?.type === 6);
  assert.deepEqual([...fcdn.privileges], [[1, 600], [2, 600]]);
  const rtm2 = byType.get(8);
  assert.ok(rtm2?.type === 8);
  assert.equal(rtm2.userId, 'test_user');
  assert.deepEqual(rtm2.permissions, [
    { resourceType: 0, permissions: [{ permissionType: 0, resources: ['message-a', 'message-b'] }] },
    { resourceType: 1, permissions: [{ permissionType: 1, resources: ['stream-a'] }] },
    { resourceType: 4, permissions: [{ permissionType: 0, resources: ['user-a'] }] },
  ]);
});

test('property: buildAppToken equals the official builder', () => {
  fc.assert(
    fc.property(common, (c) => {
      const o = { salt: c.salt, issueTs: c.issueTs };
      const theirs = agoraBuild({ appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt, services: [
        { type: 5, name: 'chat', userId: '', privileges: new Map([[2, c.expire]]) },
      ] });
      crossCheck(T.buildAppToken(c.appId, c.cert, c.expire, o), theirs, c.cert);
    }),
    { numRuns: RUNS },
  );
});

test('property: buildUserToken equals the official builder', () => {
  fc.assert(
    fc.property(common, text, (c, uuid) => {
      const theirs = agoraBuild({ appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt, services: [
        { type: 5, name: 'chat', userId: uuid, privileges: new Map([[1, c.expire]]) },
      ] });
      crossCheck(T.buildUserToken(c.appId, c.cert, uuid, c.expire, { salt: c.salt, issueTs: c.issueTs }), theirs, c.cert);
    }),
    { numRuns: RUNS },
  );
});

const role = fc.oneof(fc.constant(1), fc.constant(2), fc.integer({ min: -5, max: 200 }));

function rolePrivs(r: number, v: number): Map<number, number> {
  return new Map(r === 1 ? [[1, v], [2, v], [3, v], [4, v]] : [[1, v]]);
}

test('property: buildRtcTokenWithUid equals the official builder', () => {
  fc.assert(
    fc.property(common, text, fc.oneof(u32, fc.constant(0)), role, u32, (c, channel, uid, r, pe) => {
      const theirs = agoraBuild({ appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt, services: [
        { type: 1, name: 'rtc', channelName: channel, uid: uid === 0 ? '' : String(uid), privileges: rolePrivs(r, pe) },
      ] });
      crossCheck(T.buildRtcTokenWithUid(c.appId, c.cert, channel, uid, r, c.expire, pe, { salt: c.salt, issueTs: c.issueTs }), theirs, c.cert);
    }),
    { numRuns: RUNS },
  );
});

test('property: buildRtcTokenWithAccount equals the official builder', () => {
  fc.assert(
    fc.property(common, text, text, role, u32, (c, channel, account, r, pe) => {
      const theirs = agoraBuild({ appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt, services: [
        { type: 1, name: 'rtc', channelName: channel, uid: account, privileges: rolePrivs(r, pe) },
      ] });
      crossCheck(T.buildRtcTokenWithAccount(c.appId, c.cert, channel, account, r, c.expire, pe, { salt: c.salt, issueTs: c.issueTs }), theirs, c.cert);
    }),
    { numRuns: RUNS },
  );
});

test('property: buildRtcTokenWithUidAndPrivilege / WithAccountAndPrivilege equal the official builder', () => {
  fc.assert(
    fc.property(common, text, u32, text, fc.tuple(u32, u32, u32, u32), (c, channel, uid, account, [j, a, v, d]) => {
      const privileges = new Map([[1, j], [2, a], [3, v], [4, d]]);
      const o = { salt: c.salt, issueTs: c.issueTs };
      const f = { appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt };
      const byUid = agoraBuild({ ...f, services: [{ type: 1, name: 'rtc', channelName: channel, uid: uid === 0 ? '' : String(uid), privileges }] });
      crossCheck(T.buildRtcTokenWithUidAndPrivilege(c.appId, c.cert, channel, uid, c.expire, j, a, v, d, o), byUid, c.cert);
      const byAccount = agoraBuild({ ...f, services: [{ type: 1, name: 'rtc', channelName: channel, uid: account, privileges }] });
      crossCheck(T.buildRtcTokenWithAccountAndPrivilege(c.appId, c.cert, channel, account, c.expire, j, a, v, d, o), byAccount, c.cert);
    }),
    { numRuns: RUNS },
  );
});

test('property: buildRtmToken and buildRtcTokenWithRtm equal the official builder', () => {
  fc.assert(
    fc.property(common, text, text, role, u32, (c, channel, user, r, pe) => {
      const o = { salt: c.salt, issueTs: c.issueTs };
      const f = { appId: c.appId, appCertificate: c.cert, issueTs: c.issueTs, expire: c.expire, salt: c.salt };
      const rtm = agoraBuild({ ...f, services: [{ type: 2, name: 'rtm', userId: user, privileges: new Map([[1, c.expire]]) }] });
      crossCheck(T.buildRtmToken(c.appId, c.cert, user, c.expire, o), rtm, c.cert);
      const both = agoraBuild({ ...f, services: [
        { type: 1, name: 'rtc', channelName: channel, uid: user, privileges: rolePrivs(r, pe) },
        { type: 2, name: 'rtm', userId: user, privileges: new Map([[1, c.expire]]) },
      ] });
      crossCheck(T.buildRtcTokenWithRtm(c.appId, c.cert, channel, user, r, c.expire, pe, o), both, c.cert);
    }),
    { numRuns: RUNS },
  );
});

const privileges = fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 0xffff }), u32), { selector: (p) => p[0], maxLength: 5 }).map((a) => new Map(a));
const service: fc.Arbitrary<TokenService> = fc.oneof(
  fc.record({ type: fc.constant(1 as const), name: fc.constant('rtc' as const), privileges, channelName: text, uid: text }),
  fc.record({ type: fc.constant(2 as const), name: fc.constant('rtm' as const), privileges, userId: text }),
  fc.record({ type: fc.constant(3 as const), name: fc.constant('streaming' as const), privileges, channelName: text, account: text }),
  fc.record({ type: fc.constant(4 as const), name: fc.constant('fpa' as const), privileges }),
  fc.record({ type: fc.constant(5 as const), name: fc.constant('chat' as const), privileges, userId: text }),
  fc.record({ type: fc.constant(6 as const), name: fc.constant('fcdn' as const), privileges, channelName: text, account: text }),
  fc.record({
    type: fc.constant(7 as const),
    name: fc.constant('apaas' as const),
    privileges,
    roomUuid: text,
    userUuid: text,
    // The official builder writes role 0 as -1 (docs/token.md, Format: "What the builders write"), so 0 is left
    // out of the comparison.
    role: fc.integer({ min: -0x8000, max: 0x7fff }).filter((r) => r !== 0),
  }),
  fc.record({
    type: fc.constant(8 as const),
    name: fc.constant('rtm2' as const),
    privileges,
    userId: text,
    permissions: fc
      .uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 3 })
      .chain((types) =>
        fc.tuple(
          ...types.sort((a, b) => a - b).map((resourceType) =>
            fc
              .uniqueArray(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 2 })
              .chain((perms) =>
                fc.tuple(...perms.sort((a, b) => a - b).map((permissionType) => fc.array(text, { maxLength: 3 }).map((resources) => ({ permissionType, resources })))),
              )
              .map((permissions) => ({ resourceType, permissions })),
          ),
        ),
      ),
  }),
);

test('property: multi-service tokens of every buildable type equal the official encoder', () => {
  fc.assert(
    fc.property(common, fc.array(service, { minLength: 1, maxLength: 4 }), (c, services) => {
      const f = { appId: c.appId, appCertificate: c.cert, expire: c.expire, services };
      const ours = T.buildToken(f, { salt: c.salt, issueTs: c.issueTs });
      const theirs = agoraBuild({ ...f, issueTs: c.issueTs, salt: c.salt });
      crossCheck(ours, theirs, c.cert);
      const p = T.parseToken(ours);
      assert.ok(p.ok);
      const rtm2 = services.filter((s) => s.type === 8);
      const parsedRtm2 = p.token.services.filter((s) => s.type === 8);
      assert.deepEqual(
        parsedRtm2.map((s) => s.permissions),
        rtm2.map((s) => s.permissions.map((r) => ({ ...r, permissions: r.permissions.map((e) => ({ ...e, resources: e.resources.map((x) => Buffer.from(x).toString()) })) }))),
      );
    }),
    { numRuns: RUNS },
  );
});

test('tokens from the official high-level builders (random salt, current time) rebuild identically', () => {
  const appId = '970CA35de60c44645bbae8a215061b33';
  const cert = '5CFd2fd1755d40ecb72977518be15d3b';
  const B = agoraBuilders;
  const cases: [string, (o: T.BuildOptions) => string][] = [
    [B.ChatTokenBuilder.buildAppToken(appId, cert, 6000), (o) => T.buildAppToken(appId, cert, 6000, o)],
    [B.ChatTokenBuilder.buildUserToken(appId, cert, 'u-1', 6000), (o) => T.buildUserToken(appId, cert, 'u-1', 6000, o)],
    [B.RtcTokenBuilder.buildTokenWithUid(appId, cert, 'ch', 42, 1, 600, 300), (o) => T.RtcTokenBuilder.buildTokenWithUid(appId, cert, 'ch', 42, 1, 600, 300, o)],
    [B.RtcTokenBuilder.buildTokenWithUserAccount(appId, cert, 'ch', 'alice', 2, 600, 300), (o) => T.RtcTokenBuilder.buildTokenWithUserAccount(appId, cert, 'ch', 'alice', 2, 600, 300, o)],
    [B.RtcTokenBuilder.buildTokenWithUidAndPrivilege(appId, cert, 'ch', 0, 600, 1, 2, 3, 4), (o) => T.RtcTokenBuilder.buildTokenWithUidAndPrivilege(appId, cert, 'ch', 0, 600, 1, 2, 3, 4, o)],
    [B.RtcTokenBuilder.BuildTokenWithUserAccountAndPrivilege(appId, cert, 'ch', 'bob', 600, 1, 2, 3, 4), (o) => T.RtcTokenBuilder.BuildTokenWithUserAccountAndPrivilege(appId, cert, 'ch', 'bob', 600, 1, 2, 3, 4, o)],
    [B.RtcTokenBuilder.buildTokenWithRtm(appId, cert, 'ch', 'carol', 1, 600, 300), (o) => T.RtcTokenBuilder.buildTokenWithRtm(appId, cert, 'ch', 'carol', 1, 600, 300, o)],
    [B.RtmTokenBuilder.buildToken(appId, cert, 'dave', 600), (o) => T.RtmTokenBuilder.buildToken(appId, cert, 'dave', 600, o)],
    // The official RTC default privilegeExpire is 0; ours defaults to tokenExpire, so 0 is passed explicitly.
    [B.RtcTokenBuilder.buildTokenWithUid(appId, cert, 'ch', 7, 1, 600), (o) => T.buildRtcTokenWithUid(appId, cert, 'ch', 7, 1, 600, 0, o)],
  ];
  for (const [theirs, ours] of cases) {
    const p = T.parseToken(theirs);
    assert.ok(p.ok);
    assert.equal(ours({ salt: p.token.salt, issueTs: p.token.issueTs }), theirs);
  }
});

test('builders return "" like the official ones when inputs are invalid', () => {
  const appId = '970CA35de60c44645bbae8a215061b33';
  const cert = '5CFd2fd1755d40ecb72977518be15d3b';
  assert.equal(T.buildAppToken('invalid', cert, 600), '');
  assert.equal(T.buildAppToken(appId, 'z'.repeat(32), 600), '');
  assert.equal(T.buildAppToken(appId, cert, -1), '');
  assert.equal(T.buildAppToken(appId, cert, 2 ** 32), '');
  assert.equal(T.buildAppToken(appId, cert, Number.NaN), '');
  assert.equal(T.buildUserToken(appId, cert, 'x'.repeat(70000), 600), '');
  assert.equal(T.buildRtcTokenWithUid(appId, cert, 'ch', 1, 1, 600, -5), '');
  assert.equal(T.buildToken({ appId, appCertificate: cert, expire: 600, services: [] }), '');
  assert.equal(T.buildAppToken(appId, cert, 600, { salt: 2 ** 32 }), '');
  const twice = [{ permissionType: 0, resources: ['a'] }, { permissionType: 0, resources: ['b'] }];
  const rtm2: T.TokenService = { type: 8, name: 'rtm2', userId: 'u', privileges: new Map(), permissions: [{ resourceType: 0, permissions: twice }] };
  assert.equal(T.buildToken({ appId, appCertificate: cert, expire: 600, services: [rtm2] }), '');
  // Defaults: salt in 1..99999999, issueTs is the current second.
  const before = Math.floor(Date.now() / 1000);
  const p = T.parseToken(T.buildAppToken(appId, cert, 600));
  assert.ok(p.ok);
  assert.ok(p.token.salt >= 1 && p.token.salt <= 99999999);
  assert.ok(p.token.issueTs >= before && p.token.issueTs <= Math.floor(Date.now() / 1000));
});

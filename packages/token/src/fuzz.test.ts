// Fuzz: random and mutated tokens must always yield a named rejection (or, for an unchanged payload, success),
// never an exception. Seeded, so a failure reproduces.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deflateSync } from 'node:zlib';
import * as T from './index.ts';
import { APP_ID, CERT, ISSUE, payloadOf, wrap } from './testing/fixtures.ts';

const REASONS = new Set<string>([
  'malformed', 'wrong_version', 'bad_signature', 'expired', 'wrong_app', 'wrong_channel', 'wrong_uid', 'wrong_user',
  'missing_service', 'missing_privilege', 'unknown_service', 'validity_too_long',
]);

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const o = { salt: 5, issueTs: ISSUE };
const seeds = [
  T.buildAppToken(APP_ID, CERT, 600, o),
  T.buildUserToken(APP_ID, CERT, 'user-ü-1', 600, o),
  T.buildRtcTokenWithUid(APP_ID, CERT, 'room', 42, 1, 600, 600, o),
  T.buildRtcTokenWithRtm(APP_ID, CERT, 'room', 'bob', 1, 600, 600, o),
  T.buildToken(
    {
      appId: APP_ID,
      appCertificate: CERT,
      expire: 600,
      services: [
        { type: 8, name: 'rtm2', userId: 'u', privileges: new Map([[1, 600]]), permissions: [{ resourceType: 0, permissions: [{ permissionType: 1, resources: ['a', 'b'] }] }] },
        { type: 7, name: 'apaas', roomUuid: 'r', userUuid: 'u', role: 2, privileges: new Map([[3, 600]]) },
        { type: 3, name: 'streaming', channelName: 'c', account: '', privileges: new Map([[1, 600]]) },
      ],
    },
    o,
  ),
];
const originals = seeds.map((t) => {
  const p = T.parseToken(t);
  assert.ok(p.ok);
  return Buffer.from(p.token.signedBytes);
});
const ctx = { appId: APP_ID, appCertificate: CERT, now: ISSUE + 1 };
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

/** Runs the parser and every verifier; checks the result shape; returns whether any accepted. */
function exercise(token: string, i: number): void {
  // The parser on every case, and one verifier in rotation (they share the parser, then differ in checks).
  const verifiers = [
    () => T.verifyRtcJoin(token, { ...ctx, channel: 'room', uid: '42', publish: true }),
    () => T.verifyChatApp(token, ctx),
    () => T.verifyChatUser(token, { ...ctx, uuid: 'user-ü-1' }),
    () => T.verifyRtm(token, { ...ctx, userId: 'bob' }),
  ];
  const results: (T.ParseResult | T.TokenCheck)[] = [T.parseToken(token), verifiers[i % verifiers.length]!()];
  for (const [k, r] of results.entries()) {
    if (r.ok) {
      // Acceptance is only legitimate when the signed bytes are exactly an original token's.
      if (k > 0) assert.ok(originals.some((b) => b.equals(r.token.signedBytes)), `case ${i} verified a modified token`);
    } else {
      assert.ok(REASONS.has(r.reason), `case ${i}: reason ${r.reason}`);
      assert.equal(typeof r.message, 'string');
    }
  }
}

test('fuzz: 24,000 random and mutated tokens never throw and never verify when modified', () => {
  const rnd = prng(0x5eed);
  const int = (n: number) => Math.floor(rnd() * n);
  let cases = 0;
  const run = (t: string) => exercise(t, cases++);

  for (let i = 0; i < 4000; i++) {
    // Bit flips in the token text.
    const t = seeds[i % seeds.length]!;
    const chars = [...t];
    for (let f = 1 + int(3); f > 0; f--) {
      const at = 3 + int(chars.length - 3);
      chars[at] = String.fromCharCode(chars[at]!.charCodeAt(0) ^ (1 << int(7)));
    }
    run(chars.join(''));
  }
  for (let i = 0; i < 4000; i++) {
    // Truncations and extensions of the text, and characters swapped for other Base64 characters.
    const t = seeds[i % seeds.length]!;
    if (i % 2 === 0) run(t.slice(0, int(t.length)));
    else {
      const at = 3 + int(t.length - 3);
      run(t.slice(0, at) + B64[int(B64.length)] + t.slice(at + (i % 4 === 1 ? 1 : 0)));
    }
  }
  for (let i = 0; i < 8000; i++) {
    // Mutated inflated payloads, re-compressed and re-encoded so they get past Base64 and zlib.
    const p = payloadOf(seeds[i % seeds.length]!);
    let q: Buffer = Buffer.from(p);
    const kind = i % 5;
    if (kind === 0) q[int(q.length)]! ^= 1 << int(8);
    else if (kind === 1) q = q.subarray(0, int(q.length));
    else if (kind === 2) {
      const at = int(q.length);
      q = Buffer.concat([q.subarray(0, at), Buffer.from([int(256), int(256)]), q.subarray(at)]);
    } else if (kind === 3) {
      // Overwrite a u16 somewhere (length and count fields) with a random or extreme value.
      const at = int(q.length - 1);
      q.writeUInt16LE([0, 1, 0xffff, int(0x10000), 33][int(5)]!, at);
    } else {
      const at = int(q.length);
      q = Buffer.concat([q.subarray(0, at), q.subarray(at + 1 + int(4))]);
    }
    run(wrap(q, int(10)));
  }
  for (let i = 0; i < 4000; i++) {
    // Garbage: random printable strings with and without the prefix, random bytes as zlib and as Base64.
    const len = int(300);
    let s = '';
    for (let k = 0; k < len; k++) s += i % 2 === 0 ? B64[int(B64.length)] : String.fromCharCode(int(0x3000));
    run(i % 3 === 0 ? s : '007' + s);
    const bytes = Buffer.alloc(int(200));
    for (let k = 0; k < bytes.length; k++) bytes[k] = int(256);
    run('007' + (i % 2 === 0 ? bytes : deflateSync(bytes)).toString('base64'));
  }
  assert.ok(cases >= 20_000, `${cases} cases`);
});

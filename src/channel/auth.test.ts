import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid, buildRtcTokenWithUidAndPrivilege } from '@reeltime/token';
import { ManualClock } from '../clock/index.ts';
import { startTestServer, TEST_CUSTOMER_AUTH } from '../testing/index.ts';
import { authorizeJoin } from './auth.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const OFFER = 'v=0\r\n'; // never parsed: the token is checked first

test('token rules over WHIP/WHEP: each refusal names its reason', async () => {
  // The server's clock runs 2 h ahead, so a 600 s token minted now is expired there.
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock });
  try {
    const whip = (cname: string, uid: number, token?: string) =>
      fetch(`${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whip?uid=${uid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: OFFER,
      });
    const cases: [string, Promise<Response>, number, string][] = [
      ['missing token', whip('c1', 1), 401, 'token_missing'],
      ['wrong channel', whip('c1', 1, buildRtcTokenWithUid(APP, CERT, 'other', 1, 1, 600, 600)), 403, 'token_wrong_channel'],
      ['wrong uid', whip('c1', 1, buildRtcTokenWithUid(APP, CERT, 'c1', 2, 1, 600, 600)), 403, 'token_wrong_uid'],
      ['subscriber publishing', whip('c1', 1, buildRtcTokenWithUid(APP, CERT, 'c1', 1, 2, 600, 600)), 403, 'token_no_publish'],
      ['garbage', whip('c1', 1, 'not-a-token'), 401, 'token_invalid'],
      ['other certificate', whip('c1', 1, buildRtcTokenWithUid(APP, 'ffffffffffffffffffffffffffffffff', 'c1', 1, 1, 600, 600)), 401, 'token_invalid'],
    ];
    for (const [name, res, status, code] of cases) {
      const r = await res;
      const body = (await r.json()) as { error: string; reason: string };
      assert.equal(r.status, status, `${name}: ${JSON.stringify(body)}`);
      assert.equal(body.error, code, name);
      assert.ok(body.reason.length > 5, `${name} has a readable reason`);
    }
    clock.advance(2 * 3600 * 1000);
    const expired = await whip('c1', 1, buildRtcTokenWithUid(APP, CERT, 'c1', 1, 1, 600, 600));
    assert.equal(expired.status, 401);
    assert.equal(((await expired.json()) as { error: string }).error, 'token_expired');
    // Join privilege expired while the token itself is still valid.
    const joinGone = await whip('c1', 1, buildRtcTokenWithUidAndPrivilege(APP, CERT, 'c1', 1, 86400, 60, 86400, 86400, 86400));
    assert.equal(((await joinGone.json()) as { error: string }).error, 'token_expired');
  } finally {
    await s.close();
  }
});

test('authorizeJoin: uid wildcard tokens pass, apps without a certificate need no token', () => {
  const now = Math.floor(Date.now() / 1000);
  const app = { appId: APP, appCertificate: CERT };
  const wildcard = buildRtcTokenWithUid(APP, CERT, 'c', 0, 1, 600, 600);
  assert.ok(authorizeJoin({ app, token: wildcard, cname: 'c', uid: 77, publish: true, nowSec: now }).expiresAt! > now);
  assert.deepEqual(authorizeJoin({ app: { appId: APP, appCertificate: undefined }, token: undefined, cname: 'c', uid: 1, publish: true, nowSec: now }), {
    expiresAt: undefined,
  });
  assert.throws(() => authorizeJoin({ app, token: undefined, cname: 'c', uid: 1, publish: false, nowSec: now }), /token_missing/);
});

test('viewer token: the customer gets a join-only token on the server\'s clock; other credentials and bad uids are refused naming the field', async () => {
  // The server's clock runs 2 h ahead: the token it mints is valid there.
  const clock = new ManualClock(Date.now() + 2 * 3600 * 1000);
  const s = await startTestServer({ clock });
  try {
    const base = `${s.url}/rtc/v1/apps/${APP}/channels/vt-channel`;
    const post = (body: unknown, auth?: string) =>
      fetch(`${base}/viewer-token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(body),
      });
    const ok = await post({ uid: 4000000001 }, TEST_CUSTOMER_AUTH);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('cache-control'), 'no-store');
    const body = (await ok.json()) as { appId: string; token: string; uid: number; cname: string; expiresIn: number };
    assert.deepEqual({ appId: body.appId, uid: body.uid, cname: body.cname, expiresIn: body.expiresIn }, { appId: APP, uid: 4000000001, cname: 'vt-channel', expiresIn: 3600 });
    // Join only: publishing with it is refused for the privilege, not the time; reading the channel is allowed.
    const whip = await fetch(`${base}/whip?uid=4000000001`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${body.token}` },
      body: OFFER,
    });
    assert.equal(((await whip.json()) as { error: string }).error, 'token_no_publish');
    const read = await fetch(`${base}?uid=4000000001&token=${encodeURIComponent(body.token)}`);
    assert.equal(read.status, 200);
    // Another uid or channel cannot use it.
    const other = await fetch(`${s.url}/rtc/v1/apps/${APP}/channels/other?uid=4000000001&token=${encodeURIComponent(body.token)}`);
    assert.equal(((await other.json()) as { error: string }).error, 'token_wrong_channel');

    const none = await post({ uid: 1 });
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as { error: string }).error, 'unauthorized');
    const wrong = await post({ uid: 1 }, `Basic ${Buffer.from('test-customer:nope').toString('base64')}`);
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(await wrong.text(), /007/);
    for (const uid of [0, 'x', 2 ** 32, undefined]) {
      const bad = await post({ uid }, TEST_CUSTOMER_AUTH);
      const b = (await bad.json()) as { error: string; reason: string };
      assert.equal(bad.status, 400, JSON.stringify(uid));
      assert.deepEqual(b, { error: 'bad_uid', reason: 'uid must be a decimal integer between 1 and 4294967295' });
    }
  } finally {
    await s.close();
  }
});

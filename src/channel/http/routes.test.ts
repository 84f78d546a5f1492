import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startTestServer } from '../../testing/index.ts';
import { whipPublish, WhipHttpError } from '../client/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('WHIP/WHEP refusals: bad SDP, media type, uid, taken uid, profile mismatch, absent publisher, sessions', async () => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/errs`;
  const post = (path: string, body: string, token: string | undefined, type = 'application/sdp') =>
    fetch(`${base}/${path}`, {
      method: 'POST',
      headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });
  const expectError = async (res: Response | Promise<Response>, status: number, code: string) => {
    const r = await res;
    const body = (await r.json()) as { error: string; reason: string };
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(body.error, code);
    assert.ok(!/at .*\.ts:\d+/.test(body.reason), 'no stack trace');
    return r;
  };
  try {
    await expectError(post('whip?uid=1', 'hello', tok('errs', 1)), 400, 'bad_sdp');
    await expectError(post('whip?uid=1', 'v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n', tok('errs', 1)), 400, 'bad_sdp');
    await expectError(post('whip?uid=1', '{}', tok('errs', 1), 'application/json'), 415, 'unsupported_media_type');
    await expectError(post('whip?uid=abc', 'v=0', tok('errs', 1)), 400, 'bad_uid');
    await expectError(post('whip?uid=4294967296', 'v=0', tok('errs', 1)), 400, 'bad_uid');
    await expectError(post('whip?uid=1&profile=party', 'v=0', tok('errs', 1)), 400, 'bad_profile');
    const badLayer = await post('whep?uid=2&publisher=1&layer=medium', 'v=0', tok('errs', 2, 2));
    assert.equal(badLayer.status, 400);
    assert.deepEqual(await badLayer.json(), { error: 'bad_layer', reason: 'layer must be "auto", "high" or "low"' });
    await expectError(
      fetch(`${s.url}/rtc/v1/apps/00000000000000000000000000000000/channels/errs/whip?uid=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: 'v=0',
      }),
      404,
      'app_not_found',
    );
    const r = await expectError(post('whep?uid=2&publisher=1', 'v=0', tok('errs', 2, 2)), 409, 'publisher_not_found');
    assert.equal(r.headers.get('retry-after'), '2');

    const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok('errs', 1) });
    await pub.ready;
    await assert.rejects(whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok('errs', 1) }), (e: unknown) => {
      assert.ok(e instanceof WhipHttpError);
      assert.equal(e.status, 409);
      assert.equal(e.code, 'uid_taken');
      return true;
    });
    await assert.rejects(whipPublish({ endpoint: `${base}/whip?uid=3&profile=live`, token: tok('errs', 3) }), (e: unknown) => {
      assert.ok(e instanceof WhipHttpError);
      assert.equal(e.code, 'profile_mismatch');
      assert.match(e.reason, /communication/);
      return true;
    });
    // Trickle PATCH needs the ETag; ICE restarts are refused.
    const session = pub.location;
    await expectError(fetch(session, { method: 'PATCH', headers: { 'content-type': 'application/trickle-ice-sdpfrag' }, body: 'a=mid:0\r\n' }), 428, 'etag_required');
    await expectError(
      fetch(session, { method: 'PATCH', headers: { 'content-type': 'application/trickle-ice-sdpfrag', 'if-match': '"nope"' }, body: 'a=mid:0\r\n' }),
      412,
      'etag_mismatch',
    );
    const opts = await fetch(`${base}/whip`, { method: 'OPTIONS' });
    assert.equal(opts.status, 204);
    assert.equal(opts.headers.get('accept-post'), 'application/sdp');
    await pub.close();
    await expectError(fetch(session, { method: 'DELETE' }), 404, 'session_not_found');
  } finally {
    await s.close();
  }
});

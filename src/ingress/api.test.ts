import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allDoubles } from '../recording/testing/recorder-double.ts';
import { startTestServer, TEST_CUSTOMER_AUTH, TEST_DIALECTS, type TestServer } from '../testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const BASE = `/v1/apps/${APP}/ingress`;

for (const dialect of TEST_DIALECTS) {
  describe(`ingress API (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect, recorders: allDoubles(), env: { REELTIME_INGRESS_RTMP_PORT: '0', REELTIME_ALLOW_PRIVATE_URLS: 'false' } });
    });
    after(async () => server.close());
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, auth: string | undefined = TEST_CUSTOMER_AUTH) =>
      server.app.inject({ method, url, ...(payload !== undefined ? { payload: payload as object } : {}), headers: auth ? { authorization: auth } : {} });

    test('create answers the OBS Server and a secret Stream Key; get, list and delete see the same ingress', async () => {
      const r = await call('POST', BASE, { cname: 'stage', uid: '4242', kind: 'rtmp' });
      assert.equal(r.statusCode, 201, r.body);
      const created = r.json();
      assert.match(created.ingressId, /^in_[0-9a-f]{18}$/);
      assert.deepEqual([created.cname, created.uid, created.kind, created.state], ['stage', '4242', 'rtmp', 'waiting']);
      assert.match(created.push.server, /^rtmp:\/\/127\.0\.0\.1:\d+\/live$/);
      assert.ok(created.push.streamKey.startsWith(`${created.ingressId}.`) && created.push.streamKey.length > 40);
      assert.equal(created.push.url, `${created.push.server}/${created.push.streamKey}`);

      const got = await call('GET', `${BASE}/${created.ingressId}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), created);
      const list = await call('GET', BASE);
      assert.deepEqual(list.json().ingresses.map((i: { ingressId: string }) => i.ingressId), [created.ingressId]);

      const again = await call('POST', BASE, { cname: 'stage', uid: 4242, kind: 'rtmp' });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(again.json(), { code: 409, reason: 'uid: 4242 already has an ingress in channel "stage"' });

      assert.equal((await call('DELETE', `${BASE}/${created.ingressId}`)).statusCode, 204);
      const gone = await call('GET', `${BASE}/${created.ingressId}`);
      assert.equal(gone.statusCode, 404);
      assert.deepEqual(gone.json(), { code: 404, reason: 'ingress not found' });
      assert.equal((await call('DELETE', `${BASE}/${created.ingressId}`)).statusCode, 404);
    });

    test('bad input is refused with a reason naming the field, as the recording API words it', async () => {
      const cases: [unknown, string][] = [
        [{ cname: 'stage', uid: '1', kind: 'hls' }, 'kind: must be one of "rtmp", "srt", "rtsp", "whep"'],
        [{ uid: '1', kind: 'rtmp' }, 'cname: must be 1 to 64 characters'],
        [{ cname: 'x'.repeat(65), uid: '1', kind: 'rtmp' }, 'cname: must be 1 to 64 characters'],
        [{ cname: 'stage', uid: '0', kind: 'rtmp' }, 'uid: must be an integer from 1 to 4294967295'],
        [{ cname: 'stage', uid: '4294967296', kind: 'rtmp' }, 'uid: must be an integer from 1 to 4294967295'],
        [{ cname: 'stage', uid: '1', kind: 'rtmp', url: 'rtmp://x/y' }, 'url: must be absent for kind "rtmp"'],
        [{ cname: 'stage', uid: '1', kind: 'rtsp' }, 'url: is required for kind "rtsp"'],
        [{ cname: 'stage', uid: '1', kind: 'rtsp', url: 'not a url' }, 'url: must be an absolute URL'],
        [{ cname: 'stage', uid: '1', kind: 'rtsp', url: 'http://203.0.113.9/cam' }, 'url: must use rtsp or rtsps for kind "rtsp"'],
        [{ cname: 'stage', uid: '1', kind: 'whep', url: 'rtsp://203.0.113.9/cam' }, 'url: must use http or https for kind "whep"'],
        // The outbound guard: a private camera address is refused while private URLs are not allowed.
        [{ cname: 'stage', uid: '1', kind: 'rtsp', url: 'rtsp://10.1.2.3:554/stream' }, 'url: host 10.1.2.3 is a private'],
        [{ cname: 'stage', uid: '1', kind: 'whep', url: 'http://127.0.0.1:9/whep' }, 'url: URL host 127.0.0.1 is a loopback'],
        [{ cname: 'stage', uid: '1', kind: 'rtmp', transport: 'tcp' }, 'transport: is for kind "rtsp" only, not "rtmp"'],
        [{ cname: 'stage', uid: '1', kind: 'rtsp', url: 'rtsp://203.0.113.9/cam', transport: 'sctp' }, 'transport: must be one of "tcp", "udp"'],
        [{ cname: 'stage', uid: '1', kind: 'srt', url: 'udp://203.0.113.9:9000' }, 'url: must use srt for kind "srt"'],
        [{ cname: 'stage', uid: '1', kind: 'srt', url: 'srt://203.0.113.9' }, 'url: must name the port of the SRT listener'],
        [{ cname: 'stage', uid: '1', kind: 'srt', url: 'srt://203.0.113.9:9000?mode=listener' }, 'url: mode: reeltime calls the listener'],
        [{ cname: 'stage', uid: '1', kind: 'srt', url: 'srt://203.0.113.9:9000?passphrase=short' }, 'url: passphrase: SRT takes 10 to 79 characters'],
        [{ cname: 'stage', uid: '1', kind: 'srt', url: 'srt://192.168.1.20:9000' }, 'url: host 192.168.1.20 is a private'],
        [{ cname: 'stage', uid: '1', kind: 'rtmp', extra: true }, 'extra: is not a field of an ingress'],
        [{ cname: 'stage', uid: '1', kind: 'rtsp', url: 'rtsp://203.0.113.9/cam', token: 'abc' }, 'token: is for kind "whep" only, not "rtsp"'],
        [{ cname: 'stage', uid: '1', kind: 'whep', url: 'https://203.0.113.9/whep', token: 'with space' }, 'token: must be 1 to 4096 visible ASCII characters'],
        [{ cname: 'stage', uid: '1', kind: 'whep', url: 'https://203.0.113.9/whep', token: 7 }, 'token: must be 1 to 4096 visible ASCII characters'],
        [[1, 2], 'body: must be a JSON object'],
      ];
      for (const [body, reason] of cases) {
        const r = await call('POST', BASE, body);
        assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
        const j = r.json();
        assert.equal(j.code, 2, r.body);
        assert.ok(j.reason.startsWith(reason), `${JSON.stringify(body)}: got "${j.reason}", want "${reason}…"`);
      }
      const notJson = await server.app.inject({ method: 'POST', url: BASE, payload: '{', headers: { authorization: TEST_CUSTOMER_AUTH, 'content-type': 'application/json' } });
      assert.equal(notJson.statusCode, 400);
      assert.deepEqual(notJson.json(), { code: 8, reason: 'body: must be valid JSON' });
    });

    test('SRT without ports is validated, then answered 501 naming the setting; nothing is stored', async () => {
      const srt = await call('POST', BASE, { cname: 'stage', uid: '8', kind: 'srt' });
      assert.equal(srt.statusCode, 501);
      assert.deepEqual(srt.json(), { code: 501, reason: 'kind: SRT ingest is not enabled on this server (REELTIME_INGRESS_SRT_PORTS)' });
      assert.equal((await call('GET', BASE)).json().ingresses.length, 0);
    });

    test('sources reeltime connects to (RTSP, SRT caller, WHEP): created without a stream key, their secrets never answered', async () => {
      // An API-only process pulls nothing, so these loopback sources are never connected to.
      const api = await startTestServer({ dialect, roles: ['api'], recorders: allDoubles(), env: { REELTIME_ALLOW_PRIVATE_URLS: 'true' } });
      try {
        const post = (payload: object) => api.app.inject({ method: 'POST', url: BASE, payload, headers: { authorization: TEST_CUSTOMER_AUTH } });
        const rtsp = await post({ cname: 'cams', uid: '11', kind: 'rtsp', url: 'rtsp://admin:cam%2Fsecret@127.0.0.1:8554/live?channel=1', transport: 'udp' });
        assert.equal(rtsp.statusCode, 201, rtsp.body);
        const body = rtsp.json();
        assert.deepEqual([body.kind, body.url, body.transport, body.state, body.push], ['rtsp', 'rtsp://admin:***@127.0.0.1:8554/live?channel=1', 'udp', 'waiting', undefined]);
        const srt = await post({ cname: 'cams', uid: '12', kind: 'srt', url: 'srt://127.0.0.1:9000?passphrase=encoder-passphrase&latency=200000' });
        assert.equal(srt.statusCode, 201, srt.body);
        assert.deepEqual([srt.json().url, srt.json().push], ['srt://127.0.0.1:9000?passphrase=***&latency=200000', undefined]);
        const whep = await post({ cname: 'cams', uid: '13', kind: 'whep', url: 'http://127.0.0.1:8080/rtc/v1/apps/a/channels/c/whep?publisher=5', token: 'source-bearer-token' });
        assert.equal(whep.statusCode, 201, whep.body);
        assert.deepEqual([whep.json().kind, whep.json().url, whep.json().state, whep.json().token], ['whep', 'http://127.0.0.1:8080/rtc/v1/apps/a/channels/c/whep?publisher=5', 'waiting', undefined]);
        const list = await api.app.inject({ method: 'GET', url: BASE, headers: { authorization: TEST_CUSTOMER_AUTH } });
        assert.equal(list.json().ingresses.length, 3);
        assert.ok(!/cam%2Fsecret|cam\/secret|encoder-passphrase|source-bearer-token/.test(list.body), list.body);
      } finally {
        await api.close();
      }
    });

    test('Basic auth and app id are checked as on the recording API', async () => {
      assert.deepEqual((await call('GET', BASE, undefined, '')).json(), { message: 'Unauthorized' });
      const wrong = await call('GET', BASE, undefined, `Basic ${Buffer.from('test-customer:nope').toString('base64')}`);
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(wrong.json(), { message: 'Invalid authentication credentials' });
      const app = await call('GET', '/v1/apps/someoneelse/ingress');
      assert.equal(app.statusCode, 400);
      assert.deepEqual(app.json(), { message: 'appid is invalid' });
    });
  });
}

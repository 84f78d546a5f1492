import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startTestServer, TEST_CUSTOMER_AUTH, type TestServer } from '../testing/index.ts';

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/** One raw HTTP/1.1 request, the path sent byte for byte (fetch would normalise it). */
function send(server: TestServer, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const auth = { authorization: TEST_CUSTOMER_AUTH };

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

/** A small JSON body that does not quote the request's URL. */
function assertSmallJson(a: Answer, marker: string): unknown {
  assert.match(a.contentType, /^application\/json/);
  assert.ok(a.text.length < 200, `${a.text.length} bytes: ${a.text.slice(0, 200)}`);
  assert.ok(!a.text.includes(marker), a.text);
  return JSON.parse(a.text);
}

test('a 20 kB URL is answered 431 with a small JSON body, not a reset and not the URL', async () => {
  for (const path of ['/v1/apps/x/cloud_recording/' + 'a'.repeat(20_000), '/' + 'b'.repeat(20_000)]) {
    const a = await send(server, path);
    assert.equal(a.status, 431);
    assert.deepEqual(assertSmallJson(a, 'aaaaaaaaaa'), { error: 'headers_too_large', reason: 'the request line and headers exceed 16 KiB' });
  }
});

test('a path segment over 1024 characters is 414 in the catalogue body under /v1, plain elsewhere', async () => {
  const long = 'r'.repeat(5000);
  const v1 = await send(server, `/v1/apps/${long}/cloud_recording/acquire`, 'POST', auth);
  assert.equal(v1.status, 414);
  assert.deepEqual(assertSmallJson(v1, 'rrrrrrrrrr'), { code: 8, reason: 'url: path segments must be at most 1024 characters' });
  const rtc = await send(server, `/rtc/v1/sessions/${long}`, 'DELETE');
  assert.equal(rtc.status, 414);
  assert.deepEqual(assertSmallJson(rtc, 'rrrrrrrrrr'), { error: 'uri_too_long', reason: 'a path segment is longer than 1024 characters' });
});

test('a resourceId of 256 characters reaches the API (the router does not cut it at 100)', async () => {
  const rid = 'R'.repeat(256);
  const a = await send(server, `/v1/apps/${server.config.appId}/cloud_recording/resourceid/${rid}/sid/s1/mode/mix/query`, 'GET', auth);
  assert.equal(a.status, 404, a.text);
  assert.deepEqual(JSON.parse(a.text), { resourceId: rid, sid: 's1', code: 404, reason: 'failed to find worker' });
});

test('a malformed percent-escape is 400 without the URL, in the catalogue body under /v1', async () => {
  const v1 = await send(server, '/v1/apps/%E0%A4%A/cloud_recording/acquire', 'POST', auth);
  assert.equal(v1.status, 400);
  assert.deepEqual(assertSmallJson(v1, '%E0'), { code: 8, reason: 'url: must be valid percent-encoding' });
  const root = await send(server, '/rtc/v1/sessions/%zz');
  assert.equal(root.status, 400);
  assert.deepEqual(assertSmallJson(root, '%zz'), { error: 'bad_url', reason: 'the URL is not valid percent-encoding' });
});

test('an unknown path or method is 404 without the URL', async () => {
  const marker = 'q'.repeat(1000);
  const root = await send(server, `/nothing/${marker}/here`);
  assert.equal(root.status, 404);
  assert.deepEqual(assertSmallJson(root, 'qqqqqqqqqq'), { error: 'not_found', reason: 'no route for this method and path' });
  const method = await send(server, '/healthz', 'PROPFIND');
  assert.equal(method.status, 404);
  assert.deepEqual(assertSmallJson(method, 'PROPFIND'), { error: 'not_found', reason: 'no route for this method and path' });
  const v1 = await send(server, `/v1/${marker}`);
  assert.equal(v1.status, 404);
  assert.deepEqual(assertSmallJson(v1, 'qqqqqqqqqq'), { message: 'no Route matched with those values' });
});

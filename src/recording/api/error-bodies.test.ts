/**
 * Error bodies through the real HTTP server: identifiers are echoed only when they pass their own rule, and a body
 * over the limit gets a 413 JSON answer the client can read (no connection reset).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { TEST_AUTH } from '../testing/client.ts';
import { rawRequest, recordingPaths, type RawRequest } from '../testing/http-client.ts';
import { allDoubles } from '../testing/recorder-double.ts';

const paths = recordingPaths();
let server: TestServer;

before(async () => {
  server = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
});
after(async () => server.close());

const send = (path: string, r: RawRequest = {}) => rawRequest(server.url, path, r);

test('a 400 echoes cname, uid, resourceId and sid only when each passes its own rule', async () => {
  const megaCname = 'x'.repeat(1_000_000);
  let r = await send(paths.acquire, { body: { cname: megaCname, uid: '1' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { uid: '1', code: 2, reason: 'cname: must be at most 1024 bytes' });
  assert.ok(r.text.length < 200, `answer of ${r.text.length} bytes`);

  r = await send(paths.acquire, { body: { cname: 'room/1', uid: '01' } });
  assert.deepEqual(r.body, { code: 2, reason: 'cname: must use only a-z, A-Z, 0-9, space and !#$%&()+-:;<=.>?@[]^_{}|~,' });
  r = await send(paths.acquire, { body: { cname: 'room', uid: '0'.repeat(5000) } });
  assert.deepEqual(r.body, { cname: 'room', code: 2, reason: 'uid: must be integer text between 1 and 4294967295' });

  // Path parameters longer than 100 characters never reach the API (the router answers 414 first).
  const badRid = `${'A'.repeat(40)}.json`;
  r = await send(paths.start(badRid, 'mix'), { body: { cname: 'room', uid: '1', clientRequest: { storageConfig: {} } } });
  assert.deepEqual([r.status, r.body], [400, { cname: 'room', uid: '1', code: 1001, reason: 'resource id cannot be parsed' }]);

  const wellFormed = 'B'.repeat(64);
  r = await send(paths.query(wellFormed, 'abc.def', 'mix'), { method: 'GET' });
  assert.deepEqual([r.status, r.body], [404, { resourceId: wellFormed, code: 404, reason: 'failed to find worker' }]);
  r = await send(paths.query(wellFormed, 'abc123', 'mix'), { method: 'GET' });
  assert.deepEqual(r.body, { resourceId: wellFormed, sid: 'abc123', code: 404, reason: 'failed to find worker' });
  // An unknown resource named at the rule's longest (256 characters) is echoed like any other.
  const longest = 'C'.repeat(256);
  r = await send(paths.query(longest, 'abc123', 'mix'), { method: 'GET' });
  assert.deepEqual([r.status, r.body], [404, { resourceId: longest, sid: 'abc123', code: 404, reason: 'failed to find worker' }]);
  r = await send(paths.stop(wellFormed, 'abc123', 'nope'), { body: { cname: 'room', uid: '9', clientRequest: {} } });
  assert.deepEqual(r.body, { cname: 'room', uid: '9', resourceId: wellFormed, sid: 'abc123', code: 2, reason: 'mode: must be one of individual, mix, web' });
});

/**
 * Sends a POST of `size` body bytes (declared with Content-Length, or chunked) over a plain socket, then reads the
 * answer. Any socket error (EPIPE, ECONNRESET: the server closed while the body was still coming) is reported.
 */
function upload(size: number, chunked: boolean): Promise<{ status: number; body: unknown; socketError?: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let socketError: string | undefined;
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => (socketError ??= e.code ?? e.message));
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const raw = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: compared as text
      }
      resolve({ status, body, ...(socketError ? { socketError } : {}) });
    });
    const head = [
      `POST ${paths.acquire} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      `authorization: ${TEST_AUTH}`,
      'content-type: application/json',
      chunked ? 'transfer-encoding: chunked' : `content-length: ${size}`,
      'connection: close',
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n`);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < size && !socket.destroyed) {
        const n = Math.min(piece.length, size - sent);
        sent += n;
        const data = n === piece.length ? piece : piece.subarray(0, n);
        const ok = socket.write(chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data);
        if (!ok) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!socket.destroyed) socket.end(chunked ? '0\r\n\r\n' : '');
    };
    pump();
  });
}

test('a body over 1 MiB gets 413 with the usual JSON body, read by the client after it sent everything', async () => {
  const expected = { status: 413, body: { code: 8, reason: 'body: must be at most 1 MiB' } };
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(await upload(20 * 1024 * 1024, false), expected, 'declared length');
    assert.deepEqual(await upload(20 * 1024 * 1024, true), expected, 'chunked');
  }
  assert.deepEqual(await upload(1024 * 1024 + 1, false), expected, 'one byte over');
});

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../../log/index.ts';
import { verifySignature } from '../../../notify/index.ts';
import { Transcriber } from './transcriber.ts';

const lines: string[] = [];
const log = createLogger('info', new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }));
const SECRET = 'transcription-secret';

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** A loopback speech-to-text service: answers each request with the next of `answers`. */
async function service(answers: readonly ((r: Received) => { status: number; type?: string; body: string })[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks) };
      received.push(r);
      const a = (answers[received.length - 1] ?? answers.at(-1)!)(r);
      res.writeHead(a.status, { 'content-type': a.type ?? 'text/plain' }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stt`, received, close: () => new Promise((r) => server.close(r)) };
}

const wav = Buffer.from('RIFF....WAVE');
const interval = { uid: '42', startMs: 1_000_000, endMs: 1_002_500, levelDbfs: -12 };

test('transcription: a 5xx is retried, the text answered fills the interval; each POST signed like a webhook with the interval’s uid and times', async () => {
  const s = await service([() => ({ status: 503, body: 'busy' }), () => ({ status: 200, type: 'application/json', body: JSON.stringify({ text: ' hello there ' }) })]);
  try {
    const t = new Transcriber({ target: { url: s.url, secret: SECRET }, policy: { allowPrivate: true }, log, sid: 'sid1', cname: 'room', retryDelaysMs: [10] });
    t.submit(interval, wav);
    await t.settled(10_000);
    assert.equal(t.textOf(interval), 'hello there');
    assert.equal(t.texts, 1);
    assert.equal(s.received.length, 2, 'the 503, then the one that answered');
    for (const r of s.received) {
      assert.deepEqual(r.body, wav);
      assert.equal(r.headers['content-type'], 'audio/wav');
      assert.ok(verifySignature(r.body, SECRET, { 'agora-signature': r.headers['agora-signature'] as string, 'agora-signature-v2': r.headers['agora-signature-v2'] as string }));
      assert.deepEqual(
        ['x-reeltime-sid', 'x-reeltime-cname', 'x-reeltime-uid', 'x-reeltime-start-utc-ms', 'x-reeltime-end-utc-ms'].map((h) => r.headers[h]),
        ['sid1', 'room', '42', '1000000', '1002500'],
      );
    }
    assert.ok(!lines.join('').includes(SECRET), 'the secret is never logged');
  } finally {
    await s.close();
  }
});

test('transcription: a 4xx is not retried; retries end; a URL the outbound guard refuses is never contacted', async () => {
  const s = await service([() => ({ status: 400, body: 'no' })]);
  try {
    const t = new Transcriber({ target: { url: s.url, secret: SECRET }, policy: { allowPrivate: true }, log, sid: 's', cname: 'c', retryDelaysMs: [10, 10] });
    t.submit(interval, wav);
    await t.settled(10_000);
    assert.equal(s.received.length, 1);
    assert.equal(t.textOf(interval), undefined);
  } finally {
    await s.close();
  }
  const down = await service([() => ({ status: 500, body: '' })]);
  try {
    const t = new Transcriber({ target: { url: down.url, secret: SECRET }, policy: { allowPrivate: true }, log, sid: 's', cname: 'c', retryDelaysMs: [10, 10] });
    t.submit(interval, wav);
    await t.settled(10_000);
    assert.equal(down.received.length, 3, 'the first try and two retries');
    // Loopback is private: with private targets refused, nothing reaches the service.
    const refused = new Transcriber({ target: { url: down.url, secret: SECRET }, policy: { allowPrivate: false }, log, sid: 's', cname: 'c', retryDelaysMs: [10] });
    refused.submit(interval, wav);
    await refused.settled(10_000);
    assert.equal(down.received.length, 3);
    assert.ok(lines.some((l) => l.includes('refused by the outbound guard')));
  } finally {
    await down.close();
  }
});

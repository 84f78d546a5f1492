// reeltime's RTMP publisher (rtmp/, the CDN push's client) against reeltime's RTMP listener, in process: the media
// arrives as sent, a refused key is told without the key.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { encodeAmf0, FlvReader, flvTag, type FlvTagRead, publishTarget, RtmpPublisher } from '../../rtmp/index.ts';
import { waitUntil } from '../../testing/index.ts';
import { startRtmpServer } from './server.ts';

test('the publisher publishes to the listener: metadata, video and audio tags arrive as sent; a wrong key is refused', async () => {
  const received: FlvTagRead[] = [];
  const flv = new FlvReader();
  let ended: string | undefined;
  const server = await startRtmpServer({
    host: '127.0.0.1',
    port: 0,
    app: 'live',
    handshakeTimeoutMs: 10_000,
    now: Date.now,
    authorize: async (key) => {
      if (key !== 'sk-right') return { ok: false, reason: 'unknown stream key' };
      const sink = new Writable({ write: (chunk: Buffer, _e, done) => void (received.push(...flv.push(chunk)), done()) });
      return { ok: true, sink: { flv: sink, end: (why) => void (ended = why) } };
    },
  });
  try {
    const right = new RtmpPublisher({ target: publishTarget(`rtmp://127.0.0.1:${server.port}/live/sk-right`) });
    await right.published;
    const big = Buffer.alloc(20_000, 7); // several chunks of the client's size
    const sent: FlvTagRead[] = [
      { type: 18, timestamp: 0, data: encodeAmf0(['onMetaData', { width: 320, height: 180 }]) },
      { type: 9, timestamp: 0, data: Buffer.concat([Buffer.from([0x17, 0, 0, 0, 0]), big]) },
      { type: 8, timestamp: 21, data: Buffer.from([0xaf, 1, 9, 9]) },
      { type: 9, timestamp: 66, data: Buffer.from([0x27, 1, 0, 0, 0, 5]) },
    ];
    for (const tag of sent) right.send(tag);
    await waitUntil(() => received.length >= sent.length, { timeoutMs: 10_000, intervalMs: 20, what: 'the tags at the listener' });
    assert.deepEqual(received.map((t) => flvTag(t.type, t.timestamp, t.data)), sent.map((t) => flvTag(t.type, t.timestamp, t.data)));
    right.end();
    assert.equal(await right.closed, undefined);
    await waitUntil(() => ended, { timeoutMs: 10_000, intervalMs: 20, what: 'the listener to see the publish end' });

    const wrong = new RtmpPublisher({ target: publishTarget(`rtmp://127.0.0.1:${server.port}/live/sk-wrong-0123`) });
    const end = await wrong.closed;
    assert.match(end?.reason ?? '', /refused the publish: NetStream\.Publish\.BadName/);
    assert.ok(!end?.reason.includes('sk-wrong-0123'), end?.reason);
  } finally {
    await server.close();
  }
});

import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { FFMPEG_BIN } from '../../media/index.ts';
import { decodeMono, dominantFrequency, pixelAt, probeSegment } from '../../media/capture/testing/media-checks.ts';
import { runChild } from '../../process/index.ts';
import { waitUntil } from '../../testing/index.ts';
import { decodeAmf0, encodeAmf0, ChunkReader, encodeMessage, MSG, answerHandshake, HANDSHAKE_SIZE } from '../../rtmp/index.ts';
import { digestC1, verifyServerDigests } from './testing.ts';
import { startRtmpServer } from './server.ts';

/** ffmpeg as OBS: x264 (no B-frames, 2 s keyframes) and AAC of a red picture and a 660 Hz tone, pushed over RTMP. */
const pushArgs = (url: string, seconds: number) => [
  '-hide_banner', '-loglevel', 'error', '-nostdin', '-re',
  '-f', 'lavfi', '-i', `color=c=red:s=320x240:r=15,format=yuv420p`,
  '-re', '-f', 'lavfi', '-i', 'sine=frequency=660:sample_rate=48000',
  '-t', String(seconds),
  '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-g', '30', '-bf', '0', '-b:v', '500k',
  '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2',
  '-f', 'flv', url,
];

test('AMF0 values survive a round trip, and the command decoder takes the shapes encoders send', () => {
  const values = ['connect', 1, { app: 'live', tcUrl: 'rtmp://127.0.0.1/live', nested: { a: [1, 'x', null] }, ok: true }, null, undefined];
  assert.deepEqual(decodeAmf0(encodeAmf0(values)), values);
  assert.throws(() => decodeAmf0(Buffer.from([0x02, 0x00, 0x05, 0x61])), /runs past the message/);
  assert.throws(() => decodeAmf0(Buffer.from([0x11])), /type 0x11 is not supported/);
});

test('the chunk reader reassembles messages cut into chunks and split across reads, with header compression', () => {
  const payload = Buffer.alloc(1000, 7);
  const bytes = Buffer.concat([
    encodeMessage(6, { type: MSG.video, streamId: 1, timestamp: 40, payload }, 128),
    // A format 2 header (timestamp delta only) for the next message of the same chunk stream.
    Buffer.from([0x80 | 6, 0, 0, 33]),
    payload.subarray(0, 128),
    ...Array.from({ length: 7 }, (_, i) => Buffer.concat([Buffer.from([0xc0 | 6]), payload.subarray(128 * (i + 1), 128 * (i + 2))])),
  ]);
  const reader = new ChunkReader();
  const got = [];
  for (let i = 0; i < bytes.length; i += 97) got.push(...reader.push(bytes.subarray(i, i + 97)));
  assert.deepEqual(
    got.map((m) => [m.type, m.streamId, m.timestamp, m.payload.length]),
    [
      [MSG.video, 1, 40, 1000],
      [MSG.video, 1, 73, 1000],
    ],
  );
});

test('a Flash-era client (digest handshake) gets S1 and S2 signed as it checks them; a plain one gets its C1 echoed', () => {
  for (const scheme of [0, 1] as const) {
    const { c1, digest } = digestC1(scheme);
    const { s1, s2 } = answerHandshake(c1, Date.now());
    assert.ok(verifyServerDigests(s1, s2, digest, scheme), `scheme ${scheme}`);
  }
  const plain = Buffer.alloc(HANDSHAKE_SIZE, 9);
  plain.writeUInt32BE(0, 4);
  const { s2 } = answerHandshake(plain, 0);
  assert.ok(s2.subarray(8).equals(plain.subarray(8)));
});

test('ffmpeg publishes with the right stream key: the FLV handed on holds its H.264 and AAC; a wrong key is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rtmp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ends: string[] = [];
  const flvPath = join(dir, 'in.flv');
  const keys: string[] = [];
  const server = await startRtmpServer({
    host: '127.0.0.1',
    port: 0,
    app: 'live',
    handshakeTimeoutMs: 10_000,
    now: () => Date.now(),
    async authorize(key) {
      keys.push(key);
      if (key !== 'sk_right') return { ok: false, reason: 'stream key refused' };
      return { ok: true, sink: { flv: createWriteStream(flvPath), end: (why) => void ends.push(why) } };
    },
  });
  t.after(() => server.close());

  const wrong = await runChild(FFMPEG_BIN, pushArgs(`rtmp://127.0.0.1:${server.port}/live/sk_wrong`, 2));
  assert.notEqual(wrong.code, 0, 'ffmpeg must fail on a refused key');
  assert.match(wrong.stderr, /stream key refused|error/i);

  const right = await runChild(FFMPEG_BIN, pushArgs(`rtmp://127.0.0.1:${server.port}/live/sk_right`, 3));
  assert.equal(right.code, 0, right.stderr);
  await waitUntil(() => ends.length === 1, { what: 'the publish to end' });
  assert.deepEqual(keys, ['sk_wrong', 'sk_right']);
  assert.match(ends[0]!, /unpublished|closed/);

  const probe = await probeSegment(flvPath);
  assert.deepEqual([...probe.codecs].sort(), ['aac', 'h264']);
  assert.equal(probe.width, 320);
  const [r, g, b] = await pixelAt(flvPath, 160, 120);
  assert.ok(r > 200 && g < 60 && b < 60, `red expected, got ${[r, g, b]}`);
  const hz = dominantFrequency(await decodeMono(flvPath));
  assert.ok(Math.abs(hz - 660) <= 5, `660 Hz expected, got ${hz}`);
});

test('a client of another application is refused at connect', async (t) => {
  const server = await startRtmpServer({
    host: '127.0.0.1',
    port: 0,
    app: 'live',
    handshakeTimeoutMs: 10_000,
    now: () => Date.now(),
    authorize: async () => assert.fail('no publish expected'),
  });
  t.after(() => server.close());
  const r = await runChild(FFMPEG_BIN, pushArgs(`rtmp://127.0.0.1:${server.port}/other/key`, 1));
  assert.notEqual(r.code, 0);
});

test('a stream whose video is not H.264 is ended with the reason, before any of it is handed on', async (t) => {
  const ends: string[] = [];
  let bytes = 0;
  const server = await startRtmpServer({
    host: '127.0.0.1',
    port: 0,
    app: 'live',
    handshakeTimeoutMs: 10_000,
    now: () => Date.now(),
    async authorize() {
      const flv = new Writable({ write: (chunk: Buffer, _enc, cb) => ((bytes += chunk.length), cb()) });
      return { ok: true, sink: { flv, end: (why) => void ends.push(why) } };
    },
  });
  t.after(() => server.close());
  // Sorenson H.263 (FLV codec id 2), what ffmpeg's FLV muxer writes for `-c:v flv`.
  const args = pushArgs(`rtmp://127.0.0.1:${server.port}/live/key`, 3).map((a) => (a === 'libx264' ? 'flv' : a));
  const r = await runChild(FFMPEG_BIN, args.filter((a, i, all) => !['-preset', '-tune'].includes(all[i - 1]!) && !['-preset', '-tune'].includes(a)));
  assert.notEqual(r.code, 0, 'the encoder sees its connection closed');
  await waitUntil(() => ends.length === 1, { what: 'the publish to end' });
  assert.match(ends[0]!, /video must be H\.264 \(FLV codec id 7\), got codec id 2/);
  assert.ok(bytes <= 13 + 1024, `only the FLV header and metadata went on (${bytes} bytes)`);
});

test('media an encoder sends before Publish.Start (during the key check) is kept and handed on first, in order', async (t) => {
  const tags: Buffer[] = [];
  const server = await startRtmpServer({
    host: '127.0.0.1',
    port: 0,
    app: 'live',
    handshakeTimeoutMs: 10_000,
    now: () => Date.now(),
    async authorize() {
      await new Promise((resolve) => setTimeout(resolve, 300)); // a slow database
      const flv = new Writable({ write: (chunk: Buffer, _enc, cb) => (tags.push(Buffer.from(chunk)), cb()) });
      return { ok: true, sink: { flv, end: () => undefined } };
    },
  });
  t.after(() => server.close());
  // A client that does not wait: C0+C1, C2 as soon as S0-S2 are in, then connect, createStream, publish and media.
  const socket = connect(server.port, '127.0.0.1');
  t.after(() => socket.destroy());
  let got = Buffer.alloc(0);
  const handshaken = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 1 + 2 * HANDSHAKE_SIZE) resolve();
    });
  });
  socket.write(Buffer.concat([Buffer.from([3]), Buffer.alloc(HANDSHAKE_SIZE)]));
  await handshaken;
  const cmd = (streamId: number, values: Parameters<typeof encodeAmf0>[0]) =>
    encodeMessage(3, { type: MSG.commandAmf0, streamId, timestamp: 0, payload: encodeAmf0(values) }, 128);
  const video = (ts: number, body: number[]) => encodeMessage(6, { type: MSG.video, streamId: 1, timestamp: ts, payload: Buffer.from(body) }, 128);
  socket.write(
    Buffer.concat([
      got.subarray(1, 1 + HANDSHAKE_SIZE), // C2 echoes S1
      cmd(0, ['connect', 1, { app: 'live' }]),
      cmd(0, ['createStream', 2, null]),
      cmd(1, ['publish', 3, null, 'key', 'live']),
      video(0, [0x17, 0x00, 0, 0, 0, 1, 2, 3]), // AVC sequence header
      video(40, [0x17, 0x01, 0, 0, 0, 9, 9]),
    ]),
  );
  await waitUntil(() => tags.length >= 3, { what: 'the header and both early tags' });
  assert.deepEqual(tags[0]!.subarray(0, 3).toString(), 'FLV');
  assert.deepEqual([tags[1]![0], tags[1]![11], tags[1]![12]], [9, 0x17, 0x00], 'the sequence header first');
  assert.deepEqual([tags[2]![0], tags[2]!.readUIntBE(4, 3), tags[2]![12]], [9, 40, 0x01]);
});

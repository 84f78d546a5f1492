// CdnPusher with real ffmpeg on loopback: a live MPEG-TS source, RTMP receivers (ffmpeg -listen 1); a CDN that
// stops reading (the receiver frozen with SIGSTOP) is reported as lost while the source is never held up.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { probeSegment } from '../capture/testing/media-checks.ts';
import { freePort, rtmpReceiver } from '../capture/testing/rtmp-receiver.ts';
import { FfmpegProcess } from '../ffmpeg.ts';
import { CdnPusher, type PushStatusChange } from './index.ts';

async function waitFor<T>(what: string, fn: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a frozen CDN is reported lost (the source keeps flowing), a new target publishes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdn-pusher-'));
  const [port1, port2] = [await freePort(), await freePort()];
  const rx1 = rtmpReceiver(port1, join(dir, 'rx1.ts'));
  const rx2 = rtmpReceiver(port2, join(dir, 'rx2.ts'));
  // A live source at a high rate (lossless H.264, ≈ 1 MB/s), so a CDN that stops reading fills the socket
  // buffers within seconds.
  const source = new FfmpegProcess(
    ['-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=15', '-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-g', '15', '-c:a', 'aac', '-f', 'mpegts', 'pipe:3'],
    { extraPipes: 1 },
  );
  const statuses: PushStatusChange[] = [];
  const url1 = `rtmp://127.0.0.1:${port1}/live/test`;
  const url2 = `rtmp://127.0.0.1:${port2}/live/test`;
  const pusher = new CdnPusher({ rtmpUrl: url1, onStatus: (c) => void statuses.push(c), stallTimeoutMs: 3000 });
  const seen = (url: string, status: string) => statuses.find((c) => c.rtmpUrl === url && c.status === status);
  let sourceBytes = 0;
  try {
    await new Promise((r) => setTimeout(r, 1000)); // the receivers listen once ffmpeg has parsed its arguments
    const feed = pusher.beginStream();
    (source.pipe(3) as Readable).on('data', (b: Buffer) => {
      sourceBytes += b.length;
      feed(b);
    });
    await waitFor('publishing', () => seen(url1, 'publishing'));
    assert.ok(pusher.pid !== undefined);

    rx1.kill('SIGSTOP');
    const lost = await waitFor('disconnected', () => seen(url1, 'disconnected'), 120_000);
    assert.match(lost.message ?? '', /nothing sent to the CDN/);
    const atLoss = sourceBytes;
    await waitFor('the source going on', () => sourceBytes > atLoss + 256 * 1024);
    assert.ok(source.running);

    await pusher.setTarget(url2);
    await waitFor('publishing to the second target', () => seen(url2, 'publishing'));
    const rx2File = join(dir, 'rx2.ts');
    await waitFor('bytes at the second receiver', () => existsSync(rx2File) && statSync(rx2File).size > 256 * 1024);
    assert.deepEqual([...(await probeSegment(rx2File)).codecs].sort(), ['aac', 'h264'], 'joined at a keyframe: picture and sound');
    assert.deepEqual(
      statuses.map((c) => `${c.rtmpUrl === url1 ? 1 : 2}:${c.status}`),
      ['1:connecting', '1:publishing', '1:disconnected', '2:connecting', '2:publishing'],
    );
  } finally {
    await pusher.stop();
    await source.stop(2000);
    rx1.kill('SIGKILL');
    rx2.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a push that fails reports ffmpeg\'s error without the stream key (the last path segment of the URL)', async () => {
  const port = await freePort(); // nothing listens there
  const key = 'sk-live-0123456789abcdef';
  const url = `rtmp://127.0.0.1:${port}/live/${key}`;
  const source = new FfmpegProcess(
    ['-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=15', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-f', 'mpegts', 'pipe:3'],
    { extraPipes: 1 },
  );
  const statuses: PushStatusChange[] = [];
  const pusher = new CdnPusher({ rtmpUrl: url, onStatus: (c) => void statuses.push(c) });
  try {
    const feed = pusher.beginStream();
    (source.pipe(3) as Readable).on('data', (b: Buffer) => feed(b));
    const lost = await waitFor('disconnected', () => statuses.find((c) => c.status === 'disconnected'));
    const message = lost.message ?? '';
    assert.match(message, /pusher exited/);
    assert.ok(!message.includes(key), message);
    assert.match(message, /\[redacted\]/, 'ffmpeg quoted its target, stream key replaced');
  } finally {
    await pusher.stop();
    await source.stop(2000);
  }
});

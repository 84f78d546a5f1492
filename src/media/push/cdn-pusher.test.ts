// CdnPusher with real ffmpeg on loopback: a live MPEG-TS source, RTMP receivers (ffmpeg -listen 1, one behind a TLS
// front); a CDN that stops reading (the receiver frozen with SIGSTOP) is reported as lost while the source is never
// held up.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { test } from 'node:test';
import { probeSegment } from '../capture/testing/media-checks.ts';
import { freePort, listeningOnLoopback, rtmpReceiver } from '../capture/testing/rtmp-receiver.ts';
import { FfmpegProcess } from '../ffmpeg.ts';
import { CdnPusher, type PushStatusChange } from './index.ts';
import { selfSignedCertificate, waitUntil } from '../../testing/index.ts';


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
    await waitUntil(() => listeningOnLoopback(port1) && listeningOnLoopback(port2), { timeoutMs: 60_000, intervalMs: 100, what: 'the RTMP receivers to listen' });
    const feed = pusher.beginStream();
    (source.pipe(3) as Readable).on('data', (b: Buffer) => {
      sourceBytes += b.length;
      feed(b);
    });
    await waitUntil(() => seen(url1, 'publishing'), { timeoutMs: 60_000, intervalMs: 100, what: 'publishing' });
    assert.ok(pusher.pid !== undefined);
    // Any local user can read a process's command line: the target (its stream key) is not on ffmpeg's.
    const cmdline = readFileSync(`/proc/${pusher.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.some((a) => a.includes('ffmpeg')), cmdline.join(' '));
    assert.ok(!cmdline.some((a) => /rtmp|live\/test/.test(a)), cmdline.join(' '));

    rx1.kill('SIGSTOP');
    const lost = await waitUntil(() => seen(url1, 'disconnected'), { timeoutMs: 120_000, intervalMs: 100, what: 'disconnected' });
    assert.match(lost.message ?? '', /nothing sent to the CDN/);
    const atLoss = sourceBytes;
    await waitUntil(() => sourceBytes > atLoss + 256 * 1024, { timeoutMs: 60_000, intervalMs: 100, what: 'the source going on' });
    assert.ok(source.running);

    await pusher.setTarget(url2);
    await waitUntil(() => seen(url2, 'publishing'), { timeoutMs: 60_000, intervalMs: 100, what: 'publishing to the second target' });
    const rx2File = join(dir, 'rx2.ts');
    await waitUntil(() => existsSync(rx2File) && statSync(rx2File).size > 256 * 1024, { timeoutMs: 60_000, intervalMs: 100, what: 'bytes at the second receiver' });
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

test('production guard: a push host that resolves to a private address gets no connection; an allowed one publishes to the pinned address', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdn-pusher-guard-'));
  // A TCP listener standing in for a private service: it must never be connected to.
  let connections = 0;
  const privateService = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => privateService.listen(0, '127.0.0.1', r));
  const privatePort = (privateService.address() as { port: number }).port;
  const port = await freePort();
  const rx = rtmpReceiver(port, join(dir, 'rx.ts'));
  const source = new FfmpegProcess(
    ['-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=15', '-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-c:a', 'aac', '-f', 'mpegts', 'pipe:3'],
    { extraPipes: 1 },
  );
  // Names are answered by the test (never the system resolver): cdn.example.test is not resolvable otherwise, so
  // publishing proves ffmpeg was handed the approved address.
  const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
  const statuses: PushStatusChange[] = [];
  const refusedUrl = `rtmp://cdn.example.test:${privatePort}/live/secret-key`;
  const refused = new CdnPusher({ rtmpUrl: refusedUrl, onStatus: (c) => void statuses.push(c), outbound: { allowPrivate: false, resolve } });
  const allowedUrl = `rtmp://cdn.example.test:${port}/live/test`;
  const allowed = new CdnPusher({
    rtmpUrl: allowedUrl,
    onStatus: (c) => void statuses.push(c),
    outbound: { allowPrivate: false, resolve, allow: ['127.0.0.0/8'] },
  });
  try {
    await waitUntil(() => listeningOnLoopback(port), { timeoutMs: 60_000, intervalMs: 100, what: 'the RTMP receiver to listen' });
    const feeds = [refused.beginStream(), allowed.beginStream()];
    (source.pipe(3) as Readable).on('data', (b: Buffer) => {
      for (const f of feeds) f(b);
    });
    const down = await waitUntil(() => statuses.find((c) => c.rtmpUrl === refusedUrl && c.status === 'disconnected'), { what: 'refused' });
    assert.equal(down.message, 'the CDN host is not a public address');
    assert.equal(refused.pid, undefined, 'no ffmpeg was started for the refused target');
    await waitUntil(() => statuses.find((c) => c.rtmpUrl === allowedUrl && c.status === 'publishing'), { what: 'publishing through the pinned address' });
    assert.equal(connections, 0);
    assert.deepEqual(statuses.filter((c) => c.rtmpUrl === refusedUrl).map((c) => c.status), ['disconnected']);
  } finally {
    await refused.stop();
    await allowed.stop();
    await source.stop(2000);
    rx.kill('SIGKILL');
    privateService.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a push that cannot connect is reported lost, without the stream key (the last path segment of the URL)', async () => {
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
    const lost = await waitUntil(() => statuses.find((c) => c.status === 'disconnected'), { timeoutMs: 60_000, intervalMs: 100, what: 'disconnected' });
    const message = lost.message ?? '';
    assert.match(message, /connection failed: ECONNREFUSED/);
    assert.ok(!message.includes(key), message);
  } finally {
    await pusher.stop();
    await source.stop(2000);
  }
});

test('a stream whose sound starts 4 s after its picture: the push waits for it and publishes picture and sound, one connection', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdn-pusher-late-'));
  const port = await freePort();
  const rx = rtmpReceiver(port, join(dir, 'rx.ts'));
  // A recorded stream whose AAC begins 4 s after its H.264 (the PMT lists both from the start), as a loaded host's
  // capture gave it, replayed in real time. With a 2.5 s probe the pusher connected, then failed its FLV header.
  const late = join(dir, 'late.ts');
  const make = new FfmpegProcess(
    ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=15:duration=14', '-itsoffset', '4', '-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000:duration=10',
      '-map', '0:v', '-map', '1:a', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-c:a', 'aac', '-f', 'mpegts', late],
    {},
  );
  assert.equal((await make.exited).code, 0, 'the late-sound file was written');
  const source = new FfmpegProcess(['-loglevel', 'error', '-re', '-i', late, '-c', 'copy', '-f', 'mpegts', 'pipe:3'], { extraPipes: 1 });
  const statuses: PushStatusChange[] = [];
  const url = `rtmp://127.0.0.1:${port}/live/test`;
  const pusher = new CdnPusher({ rtmpUrl: url, onStatus: (c) => void statuses.push(c) });
  try {
    await waitUntil(() => listeningOnLoopback(port), { timeoutMs: 60_000, intervalMs: 100, what: 'the RTMP receiver to listen' });
    const feed = pusher.beginStream();
    (source.pipe(3) as Readable).on('data', (b: Buffer) => feed(b));
    await waitUntil(() => statuses.some((c) => c.status !== 'connecting'), { timeoutMs: 60_000, intervalMs: 100, what: 'publishing or disconnected' });
    assert.deepEqual(statuses.map((c) => c.status), ['connecting', 'publishing'], JSON.stringify(statuses));
    const rxFile = join(dir, 'rx.ts');
    await waitUntil(() => existsSync(rxFile) && statSync(rxFile).size > 32 * 1024, { timeoutMs: 60_000, intervalMs: 100, what: 'bytes at the receiver' });
    assert.deepEqual([...(await probeSegment(rxFile)).codecs].sort(), ['aac', 'h264'], 'picture and sound at the CDN');
  } finally {
    await pusher.stop();
    await source.stop(2000);
    rx.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rtmps: the connection goes to the approved address and the certificate is checked against the URL\'s host name', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdn-pusher-tls-'));
  const port = await freePort();
  const rx = rtmpReceiver(port, join(dir, 'rx.ts'));
  // The CDN's TLS front: a certificate for cdn.example.test only, in front of the loopback receiver.
  const { key, cert } = selfSignedCertificate('DNS:cdn.example.test');
  const front = createTlsServer({ key, cert }, (tls) => {
    const back = connect(port, '127.0.0.1');
    tls.pipe(back).pipe(tls);
    tls.on('error', () => back.destroy());
    back.on('error', () => tls.destroy());
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const frontPort = (front.address() as { port: number }).port;
  const source = new FfmpegProcess(
    ['-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=15', '-f', 'lavfi', '-i', 'sine=f=440:sample_rate=48000',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-c:a', 'aac', '-f', 'mpegts', 'pipe:3'],
    { extraPipes: 1 },
  );
  // Both names resolve to loopback through the test's resolver (never the system's).
  const outbound = { allowPrivate: false, allow: ['127.0.0.0/8'], resolve: async () => [{ address: '127.0.0.1', family: 4 as const }] };
  const statuses: PushStatusChange[] = [];
  const goodUrl = `rtmps://cdn.example.test:${frontPort}/live/test`;
  const otherUrl = `rtmps://other.example.test:${frontPort}/live/test`;
  const good = new CdnPusher({ rtmpUrl: goodUrl, onStatus: (c) => void statuses.push(c), outbound, ca: cert });
  const other = new CdnPusher({ rtmpUrl: otherUrl, onStatus: (c) => void statuses.push(c), outbound, ca: cert });
  try {
    await waitUntil(() => listeningOnLoopback(port), { timeoutMs: 60_000, intervalMs: 100, what: 'the RTMP receiver to listen' });
    // The name the certificate does not cover is refused by TLS before any byte of RTMP, so it goes first and the
    // one-shot receiver is left for the good one.
    const feedOther = other.beginStream();
    const onOther = (b: Buffer) => feedOther(b);
    (source.pipe(3) as Readable).on('data', onOther);
    const refused = await waitUntil(() => statuses.find((c) => c.rtmpUrl === otherUrl && c.status === 'disconnected'), { timeoutMs: 60_000, intervalMs: 100, what: 'the other name refused' });
    assert.match(refused.message ?? '', /ERR_TLS_CERT_ALTNAME_INVALID/);
    (source.pipe(3) as Readable).off('data', onOther);
    const feed = good.beginStream();
    (source.pipe(3) as Readable).on('data', (b: Buffer) => feed(b));
    await waitUntil(() => statuses.find((c) => c.rtmpUrl === goodUrl && c.status === 'publishing'), { timeoutMs: 60_000, intervalMs: 100, what: 'publishing over TLS' });
    const rxFile = join(dir, 'rx.ts');
    await waitUntil(() => existsSync(rxFile) && statSync(rxFile).size > 32 * 1024, { timeoutMs: 60_000, intervalMs: 100, what: 'bytes at the receiver' });
    assert.deepEqual([...(await probeSegment(rxFile)).codecs].sort(), ['aac', 'h264']);
    assert.deepEqual(statuses.filter((c) => c.rtmpUrl === goodUrl).map((c) => c.status), ['connecting', 'publishing']);
  } finally {
    await other.stop();
    await good.stop();
    await source.stop(2000);
    rx.kill('SIGKILL');
    front.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

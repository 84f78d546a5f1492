/**
 * Web mode through the HTTP API with 3 s slices: onhold and mobile emulation; page failures (readyTimeout, 404,
 * WebGL); the CDN push. The 40 s recording with real 15 s slices is page.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startPageServer } from '../../media/capture/testing/page-server.ts';
import { freePort, listeningOnLoopback, rtmpReceiver } from '../../media/capture/testing/rtmp-receiver.ts';
import { decodeMono, dominantFrequency, probeSegment } from '../../media/capture/testing/media-checks.ts';
import { parsePlaylist } from '../../media/index.ts';
import { processTable } from '../../process/index.ts';
import { startHarness, storageConfig } from '../individual/testing/harness.ts';
import { bucketKeys, centrePixel, isColour, probe, sleep } from '../individual/testing/media-checks.ts';
import { webClient, webService } from './testing/web-client.ts';
import { waitUntil } from '../../testing/wait.ts';

// 3 s slices and 6 s MP4s instead of 15 s and maxVideoDuration, so the test is short (docs/recording-web.md).
const SHORT = { recording: { webSliceSeconds: 3, webMp4SplitSeconds: 6 } } as const;

const RED = [255, 0, 0];

interface WebPayload {
  readonly fileList: { filename: string; sliceStartTime: number }[];
  readonly onhold: boolean;
  readonly state: string;
}
type ServiceState = { serviceName: string; payload: Record<string, unknown> }[];

function webPayload(body: Record<string, unknown>): WebPayload {
  const states = (body.serverResponse as { extensionServiceState: ServiceState }).extensionServiceState;
  const web = states.find((s) => s.serviceName === 'web_recorder_service');
  assert.ok(web, JSON.stringify(body));
  return web.payload as unknown as WebPayload;
}

test('web mode onhold and mobile: a phone-sized page in device emulation, held (no slices) and resumed into the same playlist after one discontinuity', async () => {
  // The page paints yellow unless it runs in mobile emulation at exactly 360×640 (touch, mobile user agent). Its
  // portrait 1080×1920 video is at the size limit, not above it: no event 72.
  const pages = await startPageServer({
    phone: { colour: '#ff0000', toneHz: 440, mobileCheck: { width: 360, height: 640, otherwise: '#ffff00' }, video: { width: 1080, height: 1920 } },
  });
  const h = await startHarness(SHORT);
  try {
    const web = webClient(h.api);
    const cname = 'web.room#1';
    const uid = '5001';
    const { resourceId, sid } = await web.start(cname, uid, {
      storageConfig: storageConfig(),
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
      extensionServiceConfig: {
        extensionServices: [webService(`${pages.origin}/phone`, { readyTimeout: 10, mobile: true, videoWidth: 360, videoHeight: 640 })],
      },
    });
    const slicesInBucket = () => bucketKeys(h.bucketDir).filter((k) => k.endsWith('.ts') && k.includes(sid));
    await waitUntil(() => slicesInBucket().length >= 1, { timeoutMs: 60_000, intervalMs: 200, what: 'first slice in the bucket' });

    const hold = await h.api('POST', web.path(resourceId, sid, 'update'), { cname, uid, clientRequest: { webRecordingConfig: { onhold: true } } });
    assert.equal(hold.status, 200, JSON.stringify(hold.body));
    const held = webPayload((await h.api('GET', web.path(resourceId, sid, 'query'))).body);
    assert.deepEqual([held.onhold, held.state], [true, 'inProgress']);
    // The encoder's last segment is flushed when the hold begins; nothing after it.
    await sleep(1000);
    const atHold = slicesInBucket().length;
    await sleep(4000);
    assert.equal(slicesInBucket().length, atHold, 'no slices while on hold');

    const resume = await h.api('POST', web.path(resourceId, sid, 'update'), { cname, uid, clientRequest: { webRecordingConfig: { onhold: false } } });
    assert.equal(resume.status, 200, JSON.stringify(resume.body));
    await waitUntil(() => slicesInBucket().length >= atHold + 2, { timeoutMs: 90_000, intervalMs: 200, what: 'slices after the hold' });

    const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname, uid, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.equal(webPayload(stop.body).onhold, false);
    assert.ok(!h.events.some((e) => e.payload.sid === sid && e.eventType === 72), 'a video at the size limit is no capability limit');

    const keys = bucketKeys(h.bucketDir).filter((k) => k.includes(sid));
    const playlistKey = `rec/ind/${sid}_web-room-1.m3u8`;
    const text = readFileSync(join(h.bucketDir, playlistKey), 'utf8');
    assert.equal(text.split('#EXT-X-DISCONTINUITY\n').length - 1, 1, text);
    const pl = parsePlaylist(text, 'video');
    assert.ok(pl.ended, 'final playlist has #EXT-X-ENDLIST');
    const slices = keys.filter((k) => k.endsWith('.ts'));
    assert.deepEqual(pl.entries.map((e) => e.uri).sort(), slices.map((k) => k.split('/').pop()!).sort(), 'playlist names every slice');

    // A whole slice after the hold: H.264 + AAC at the phone's size, the page's colour (so emulated), its tone.
    const after = pl.entries.findIndex((e) => e.discontinuity);
    const full = pl.entries.slice(after + 1).find((e) => e.durationSec > 2.5) ?? pl.entries[after]!;
    const slicePath = join(h.bucketDir, 'rec/ind', full.uri);
    const p = await probeSegment(slicePath);
    assert.deepEqual([...p.codecs].sort(), ['aac', 'h264']);
    assert.deepEqual([p.width, p.height], [360, 640]);
    const rgb = await centrePixel(slicePath);
    assert.ok(isColour(rgb, RED), `the page in mobile emulation at 360×640 (yellow = not emulated), got ${rgb}`);
    const hz = dominantFrequency(await decodeMono(slicePath));
    assert.ok(Math.abs(hz - 440) <= 3, `tone ${hz} Hz`);

    // MP4 across the hold: split every 6 s (test setting) of recorded media, named from index 0.
    const mp4s = keys.filter((k) => k.endsWith('.mp4')).sort();
    const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
    assert.ok(mp4s.length >= 2, `${mp4s.length} MP4 files for ${total} s`);
    assert.deepEqual(mp4s.map((k) => k.split('/').pop()), mp4s.map((_, i) => `${sid}_web-room-1_${i}.mp4`));
    let mp4Total = 0;
    for (const m of mp4s) {
      const mp = await probe(join(h.bucketDir, m));
      assert.deepEqual([...mp.codecs].sort(), ['aac', 'h264']);
      mp4Total += mp.duration;
    }
    assert.ok(Math.abs(mp4Total - total) < 1.5, `MP4s ${mp4Total} s vs playlist ${total} s`);
  } finally {
    await h.close();
    await pages.close();
  }
});

test('web mode page failures: no notifyReady → reload (73) then 71 code 4, no slices; a 404 or unreachable page → 71 code 5; WebGL or a video above 1920×1080 → 72, 71 code 2', async () => {
  const pages = await startPageServer({
    silent: { colour: '#0000ff', notifyReady: false },
    gl: { colour: '#00ff00', webgl: true },
    big: { colour: '#00ff00', video: { width: 2560, height: 1440 } },
  });
  const h = await startHarness(SHORT);
  try {
    const web = webClient(h.api);
    const { sid } = await web.start('web-ready', '5002', {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/silent`, { readyTimeout: 1 })] },
    });
    const stopped = await waitUntil(() => h.events.find((e) => e.payload.sid === sid && e.eventType === 71), { timeoutMs: 60_000, intervalMs: 200, what: 'event 71' });
    assert.equal(stopped.payload.details.code, 4);
    assert.equal(stopped.payload.details.message, 'page_load_timeout');
    const mine = h.events.filter((e) => e.payload.sid === sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
    const web6 = mine.filter((e) => e.payload.serviceType === 6).map((e) => e.eventType);
    assert.deepEqual(web6, [70, 73, 71]);
    assert.equal(mine.find((e) => e.eventType === 73)!.payload.details.reason, 'page_load_timeout');
    assert.deepEqual(bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts')), [], 'slices begin only after notifyReady');

    // A page that answers 404: the recorder stops by itself with code 5.
    const gone = await web.start('web-404', '5003', {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/missing`)] },
    });
    const failed = await waitUntil(() => h.events.find((e) => e.payload.sid === gone.sid && e.eventType === 71), { timeoutMs: 60_000, intervalMs: 200, what: 'event 71 of the 404 page' });
    assert.equal(failed.payload.details.code, 5);
    assert.equal(failed.payload.details.message, 'access_url_failed');
    await waitUntil(async () => (await h.api('GET', web.path(gone.resourceId, gone.sid, 'query'))).status === 404, { timeoutMs: 20_000, intervalMs: 200, what: 'session ended' });

    // An unreachable page (nothing listens on the port): code 5 as well, with Chromium's reason.
    const closed = await freePort();
    const down = await web.start('web-down', '5007', {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`http://127.0.0.1:${closed}/page`)] },
    });
    const refused = await waitUntil(() => h.events.find((e) => e.payload.sid === down.sid && e.eventType === 71), { timeoutMs: 60_000, intervalMs: 200, what: 'event 71 of the unreachable page' });
    assert.deepEqual([refused.payload.details.code, refused.payload.details.message], [5, 'access_url_failed']);
    assert.match(String(refused.payload.details.details), /ERR_CONNECTION_REFUSED/);
    assert.ok(!h.events.some((e) => e.payload.sid === down.sid && e.eventType === 70), 'no 70: the page never loaded');

    // A WebGL page: event 72 with the limit, then 71 code 2.
    const gl = await web.start('web-gl', '5005', {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/gl`)] },
    });
    const limited = await waitUntil(() => h.events.find((e) => e.payload.sid === gl.sid && e.eventType === 71), { timeoutMs: 60_000, intervalMs: 200, what: 'event 71 of the WebGL page' });
    assert.equal(limited.payload.details.code, 2);
    assert.equal(limited.payload.details.message, 'capability_limit');
    const limit = h.events.find((e) => e.payload.sid === gl.sid && e.eventType === 72);
    assert.equal(limit?.payload.details.limitType, 'WebGL');

    // A page playing a 2560×1440 stream in a <video>: event 72 `resolution`, then 71 code 2.
    const big = await web.start('web-big', '5006', {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/big`)] },
    });
    const tooBig = await waitUntil(() => h.events.find((e) => e.payload.sid === big.sid && e.eventType === 71), { timeoutMs: 60_000, intervalMs: 200, what: 'event 71 of the 2560×1440 video page' });
    assert.deepEqual([tooBig.payload.details.code, tooBig.payload.details.message], [2, 'capability_limit']);
    const bigLimit = h.events.filter((e) => e.payload.sid === big.sid && e.eventType === 72);
    assert.deepEqual(bigLimit.map((e) => e.payload.details.limitType), ['resolution']);
  } finally {
    await h.close();
    await pages.close();
  }
});

/** The capture encoders (x11grab) this test process runs. */
const encoderPids = () => processTable().filter((p) => p.ppid === process.pid && p.argv.includes('x11grab')).map((p) => p.pid);

test('web mode CDN push: publishing (100), the CDN lost → disconnected while slices go on, update to a second CDN → publishing; one encoder, no gap', async () => {
  const pages = await startPageServer({ blue: { colour: '#0000ff', toneHz: 440 } });
  const rxDir = mkdtempSync(join(tmpdir(), 'web-rtmp-'));
  const received = [join(rxDir, 'rx1.ts'), join(rxDir, 'rx2.ts')];
  const [port1, port2] = [await freePort(), await freePort()];
  const rx1 = rtmpReceiver(port1, received[0]!);
  const rx2 = rtmpReceiver(port2, received[1]!);
  const url1 = `rtmp://127.0.0.1:${port1}/live/test`;
  const url2 = `rtmp://127.0.0.1:${port2}/live/test`;
  const h = await startHarness(SHORT);
  try {
    await waitUntil(() => listeningOnLoopback(port1) && listeningOnLoopback(port2), { timeoutMs: 60_000, intervalMs: 200, what: 'the RTMP receivers to listen' });
    const web = webClient(h.api);
    const cname = 'web-push';
    const uid = '5004';
    const { resourceId, sid } = await web.start(cname, uid, {
      storageConfig: storageConfig(),
      extensionServiceConfig: {
        extensionServices: [
          webService(`${pages.origin}/blue`),
          { serviceName: 'rtmp_publish_service', errorHandlePolicy: 'error_ignore', serviceParam: { outputs: [{ rtmpUrl: url1 }] } },
        ],
      },
    });
    const statuses = (url: string) =>
      h.events
        .filter((e) => e.payload.sid === sid && e.eventType === 100 && e.payload.details.rtmpUrl === url)
        .sort((a, b) => a.payload.sequence - b.payload.sequence)
        .map((e) => e.payload.details.status);
    const outputs = async () => {
      const q = await h.api('GET', web.path(resourceId, sid, 'query'));
      const states = (q.body.serverResponse as { extensionServiceState: ServiceState }).extensionServiceState;
      return states.find((s) => s.serviceName === 'rtmp_publish_service')?.payload.outputs as { rtmpUrl: string; status: string }[] | undefined;
    };
    await waitUntil(() => statuses(url1).includes('publishing'), { timeoutMs: 60_000, intervalMs: 200, what: 'publishing to the first CDN' });
    assert.deepEqual(await outputs(), [{ rtmpUrl: url1, status: 'publishing' }]);
    const encoders = encoderPids();
    assert.equal(encoders.length, 1, 'one capture encoder');
    await waitUntil(() => existsSync(received[0]!) && statSync(received[0]!).size > 64 * 1024, { timeoutMs: 60_000, intervalMs: 200, what: 'bytes at the first CDN' });
    assert.deepEqual([...(await probeSegment(received[0]!)).codecs].sort(), ['aac', 'h264'], 'the CDN got H.264 + AAC');

    const slices = () => bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts')).length;
    rx1.kill('SIGKILL');
    await waitUntil(() => statuses(url1).includes('disconnected'), { timeoutMs: 30_000, intervalMs: 200, what: 'disconnected' });
    const atLoss = slices();
    await waitUntil(() => slices() > atLoss + 1, { timeoutMs: 30_000, intervalMs: 200, what: 'slices after the CDN was lost' });

    const sw = await h.api('POST', web.path(resourceId, sid, 'update'), { cname, uid, clientRequest: { rtmpPublishConfig: { outputs: [{ rtmpUrl: url2 }] } } });
    assert.equal(sw.status, 200, JSON.stringify(sw.body));
    await waitUntil(() => statuses(url2).includes('publishing'), { timeoutMs: 30_000, intervalMs: 200, what: 'publishing to the second CDN' });
    assert.deepEqual(await outputs(), [{ rtmpUrl: url2, status: 'publishing' }]);
    await waitUntil(() => existsSync(received[1]!) && statSync(received[1]!).size > 64 * 1024, { timeoutMs: 30_000, intervalMs: 200, what: 'bytes at the second CDN' });
    assert.deepEqual([...(await probeSegment(received[1]!)).codecs].sort(), ['aac', 'h264'], 'the second CDN got H.264 + AAC');
    // Each change once, in order (event 100 and query agree).
    assert.deepEqual(statuses(url1), ['connecting', 'publishing', 'disconnected']);
    assert.deepEqual(statuses(url2), ['connecting', 'publishing']);
    assert.deepEqual(encoderPids(), encoders, 'neither the lost CDN nor the new target touched the encoder');

    const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname, uid, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.deepEqual(statuses(url2), ['connecting', 'publishing', 'disconnected']);
    const text = readFileSync(join(h.bucketDir, `rec/ind/${sid}_web-push.m3u8`), 'utf8');
    // The push has its own process: HLS goes on in one piece, each slice starting where the one before ended.
    const pl = parsePlaylist(text, 'video');
    assert.ok(pl.entries.length >= 5, text);
    assert.ok(!text.includes('#EXT-X-DISCONTINUITY'), text);
    for (let i = 1; i < pl.entries.length; i++) {
      const [a, b] = [pl.entries[i - 1]!, pl.entries[i]!];
      const gap = b.startMs - (a.startMs + a.durationSec * 1000);
      assert.ok(Math.abs(gap) < 150, `slice ${i} follows slice ${i - 1} (${gap} ms)\n${text}`);
    }
  } finally {
    await h.close();
    rx1.kill('SIGKILL');
    rx2.kill('SIGKILL');
    await pages.close();
    rmSync(rxDir, { recursive: true, force: true });
  }
});

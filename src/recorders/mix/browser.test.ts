// A real browser publisher (headless Debian Chromium, fake camera and microphone, the /rtc/ call page over WHIP)
// in a mix recording next to a synthetic publisher: both are drawn where best fit puts them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchTestChromium } from '../../testing/chromium.ts';
import { rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { joinCallPage, sentSoFar } from '../../testing/call-page.ts';
import { bucketKeys, isColour } from '../individual/testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';
import { SAMPLE_FPS, sampled, sampleRange } from './testing/frames.ts';

const MAGENTA = [255, 0, 255];
const BLUE = [0, 0, 255];

test('mix with a headless Chromium publisher and a synthetic one: both drawn in best fit', async () => {
  // 4 s slices: the test reads each one as it is uploaded (below).
  const h = await startHarness({ mode: 'mix', recording: { mixSliceSeconds: 4 } });
  const browser = await launchTestChromium();
  try {
    const cname = 'mix-chromium';
    // Joined and its publisher connected.
    const page = await joinCallPage(browser, h.server.url, cname, 401);
    await h.publish({ cname, uid: 402, color: 'blue', toneHz: 440, width: 160, height: 90 });
    const { resourceId, sid } = await h.startRecording(cname, '9402', {
      token: rtcToken(cname, 9402, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, transcodingConfig: { width: 320, height: 180, fps: 15, bitrate: 300, mixedVideoLayout: 1, backgroundColor: '#FF00FF' } },
    });
    // 9 s of Chromium's media (its own count of Opus packets sent, 50 a second), not of the wall clock: under the
    // whole suite's load (session 20) 9 s of wall time held no frame of it drawn. And until an uploaded slice draws
    // both: on a slow loaded machine (session 25) 9 s of its media went by before its first picture was drawn.
    const before = await sentSoFar(page);
    await waitUntil(async () => (await sentSoFar(page)).audioPackets - before.audioPackets >= 9 * 50, {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: '9 s of the Chromium publisher’s media',
    });
    const drawsBoth = (f: Awaited<ReturnType<typeof sampled>>, n: number) => !isColour(f.px(n, 0.25, 0.5), MAGENTA) && isColour(f.px(n, 0.75, 0.5), BLUE);
    const seen = new Set<string>();
    await waitUntil(async () => {
        for (const k of bucketKeys(h.bucketDir).filter((k) => k.includes(`${sid}_${cname}_`) && k.endsWith('.ts') && !seen.has(k))) {
          seen.add(k);
          const f = await sampled(join(h.bucketDir, k));
          if (Array.from({ length: f.count }, (_, n) => n).some((n) => drawsBoth(f, n))) return true;
        }
        return false;
      }, { timeoutMs: 90_000, intervalMs: 500, what: () => `a slice that draws both users (${seen.size} read)` });
    // Two seconds more of its media, so both are drawn for a while before the stop.
    const drawn = await sentSoFar(page);
    await waitUntil(async () => (await sentSoFar(page)).audioPackets - drawn.audioPackets >= 2 * 50, { timeoutMs: 60_000, intervalMs: 250, what: '2 s more of its media' });
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9402', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = stop.body.serverResponse as { uploadingStatus: string; fileListMode: string; fileList: string };
    assert.deepEqual([sr.uploadingStatus, sr.fileListMode, sr.fileList], ['uploaded', 'string', `rec/ind/${sid}_${cname}.m3u8`]);
    // Best fit for two: the first joiner (Chromium) on the left half, the synthetic publisher on the right. A user
    // whose video is not drawn shows the canvas colour, so a left half of any other colour is Chromium's camera.
    const out = await sampled(join(h.bucketDir, sr.fileList));
    const samples = sampleRange(0, out.count / SAMPLE_FPS);
    const left = samples.filter((n) => !isColour(out.px(n, 0.25, 0.5), MAGENTA));
    const right = samples.filter((n) => isColour(out.px(n, 0.75, 0.5), BLUE));
    const both = samples.filter((n) => drawsBoth(out, n));
    assert.ok(
      both.length >= SAMPLE_FPS,
      `Chromium's camera on the left and blue on the right in ${both.length} of ${samples.length} samples (left ${left.length}, right ${right.length})`,
    );
    assert.ok(both.at(-1)! >= out.count - 2, 'both still drawn at the end');
  } finally {
    await browser.close();
    await h.close();
  }
});

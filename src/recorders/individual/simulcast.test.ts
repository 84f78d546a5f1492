// A Chromium publisher that sends simulcast (the call page's switch: the full 640×360 picture and one at half its
// size): the channel keeps its two encodings apart and each subscriber gets the one it chose.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { whepSubscribe } from '../../channel/index.ts';
import { vp8KeyframeSize } from '../../rtp-payload/index.ts';
import { launchTestChromium, type TestChromium } from '../../testing/chromium.ts';
import { waitUntil } from '../../testing/wait.ts';
import { bothEncodings, framesByWidth, joinCallPage, sentSince } from '../../testing/call-page.ts';
import { APP, rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, probe } from './testing/media-checks.ts';

const PUBLISHER = 101;
const SLICE_SECONDS = 4;

test('Chromium simulcast: WHEP viewers pinned to each layer get its picture size; videoStreamType 1 records the low layer, 0 the high one; video slices close at the slice length', { timeout: 300_000 }, async (t) => {
  // 4 s audio slices: the recordings' progress shows in the bucket soon.
  const h = await startHarness({ recording: { individualSliceSeconds: SLICE_SECONDS } });
  let browser: TestChromium | undefined;
  try {
    browser = await launchTestChromium();
    const cname = 'simulcast';
    const page = await joinCallPage(browser, h.server.url, cname, PUBLISHER, 'vp8', { simulcast: true });
    const limits = await bothEncodings(page);
    if (limits?.includes('cpu')) return t.skip(`Chromium sent one encoding only, limited by its CPU (${limits.join(', ')})`);
    assert.equal(limits, undefined, `Chromium never sent both encodings (quality limitations: ${limits?.join(', ')})`);

    // A werift viewer per layer: the size its first keyframe announces.
    const sizeOf = async (layer: 'high' | 'low', uid: number) => {
      const viewer = await whepSubscribe({
        endpoint: `${h.server.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=${PUBLISHER}&layer=${layer}`,
        token: rtcToken(cname, uid),
        kinds: ['video'],
      });
      try {
        await viewer.waitFor(() => viewer.packets.video.some((p) => vp8KeyframeSize(p.payload)), 30_000, `a ${layer} keyframe`);
        return viewer.packets.video.map((p) => vp8KeyframeSize(p.payload)).find((s) => s)!;
      } finally {
        await viewer.close();
      }
    };
    const framesBeforeViewers = await framesByWidth(page);
    const [high, low] = [await sizeOf('high', 201), await sizeOf('low', 202)];
    t.diagnostic(`WHEP: high ${high.width}×${high.height}, low ${low.width}×${low.height}`);
    const viewersSent = sentSince(framesBeforeViewers, await framesByWidth(page));
    // The high viewer gets the larger encoding unless Chromium paused it meanwhile (then the node ranks it below).
    if (high.width !== 640 && viewersSent(640) < 0.8 * viewersSent(320)) {
      t.diagnostic(`the high viewer got ${high.width}×${high.height} (not failed: Chromium sent ${viewersSent(640)} frames at 640×360, ${viewersSent(320)} at 320×180 meanwhile)`);
    } else assert.deepEqual(high, { width: 640, height: 360 });
    assert.deepEqual(low, { width: 320, height: 180 });

    // Two recordings of the same publisher, one per videoStreamType.
    const record = (uid: string, videoStreamType: 0 | 1) =>
      h.startRecording(cname, uid, {
        token: rtcToken(cname, Number(uid), 2),
        storageConfig: storageConfig(),
        recordingConfig: { channelType: 0, streamMode: 'default', subscribeUidGroup: 0, videoStreamType },
        recordingFileConfig: { avFileType: ['hls'] },
      });
    const recordings = { high: await record('9000', 0), low: await record('9001', 1) };
    const framesBefore = await framesByWidth(page);
    const keysOf = (sid: string, ext: string) => bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.includes(`__uid_s_${PUBLISHER}__`) && k.endsWith(ext));
    // Two video slices of each: Chromium makes a keyframe only when asked, and the recorder asks just after each
    // slice mark (4 s here), so its slices close on time.
    await waitUntil(() => keysOf(recordings.high.sid, '.webm').length >= 2 && keysOf(recordings.low.sid, '.webm').length >= 2, {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: () => `two video slices of each recording (bucket: ${bucketKeys(h.bucketDir).filter((k) => !k.endsWith('.ts')).join(', ')})`,
    });
    const sent = sentSince(framesBefore, await framesByWidth(page));
    t.diagnostic(`Chromium sent during the recordings: ${sent(640)} frames at 640×360, ${sent(320)} at 320×180`);
    for (const [layer, r] of Object.entries(recordings)) {
      const stop = await h.api('POST', h.path(r.resourceId, r.sid, 'stop'), { cname, uid: layer === 'high' ? '9000' : '9001', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
    }
    const sizes = async (sid: string) => {
      const slices = await Promise.all(keysOf(sid, '.webm').map((k) => probe(`${h.bucketDir}/${k}`)));
      // The first slice ends at the keyframe asked for just after the first mark.
      assert.ok(slices[0]!.duration < SLICE_SECONDS + 2.5, `the first video slice of ${sid} lasts ${slices[0]!.duration} s`);
      t.diagnostic(`first video slice of ${sid}: ${slices[0]!.duration.toFixed(2)} s`);
      return slices.map((p) => `${p.width}×${p.height}`);
    };
    const [recordedHigh, recordedLow] = [await sizes(recordings.high.sid), await sizes(recordings.low.sid)];
    t.diagnostic(`recorded slices: videoStreamType 0 ${recordedHigh.join(', ')}; 1 ${recordedLow.join(', ')}`);
    // A Chromium short of CPU pauses its larger encoding (qualityLimitationReason "cpu"; a whole-suite run: all three
    // high slices 320×180): then what the high choice records says nothing about the choice, and is reported.
    const highSent = sent(640) >= 0.8 * sent(320);
    if (!recordedHigh.includes('640×360') && !highSent) t.diagnostic(`videoStreamType 0 recorded ${recordedHigh.join(', ')} (not failed: Chromium sent its 640×360 encoding at a fraction of its frames)`);
    else assert.ok(recordedHigh.includes('640×360'), `videoStreamType 0 recorded 640×360: ${recordedHigh.join(', ')}`);
    assert.ok(recordedLow.every((s) => s === '320×180'), `videoStreamType 1 recorded 320×180 only: ${recordedLow.join(', ')}`);
  } finally {
    await browser?.close();
    await h.close();
  }
});

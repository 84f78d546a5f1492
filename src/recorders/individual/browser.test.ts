// A real browser publisher (headless Debian Chromium, fake camera and microphone, the /rtc/ call page over WHIP)
// recorded in individual mode: whichever video codec Chromium sends lands in the bucket as slices that ffprobe reads.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseUserFileName } from '../../media/index.ts';
import { launchTestChromium } from '../../testing/chromium.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, probe, slicesWritten } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';
import { callPageUrl } from '../../testing/call-page.ts';

test('a headless Chromium publisher is recorded: audio and video slices probe as the codecs it sent', async () => {
  const h = await startHarness();
  const browser = await launchTestChromium();
  try {
    const cname = 'ind-chromium';
    const page = await browser.context.newPage();
    await page.goto(callPageUrl(h.server.url, cname, 401));
    await page.waitForFunction(() => (window as unknown as { reeltime?: { joined?: boolean } }).reeltime?.joined === true, undefined, { timeout: 30000 });
    const { resourceId, sid } = await h.startRecording(cname, '9401', {
      token: rtcToken(cname, 9401, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    // Some media of both streams on disk (a slice each with a few seconds in it).
    await waitUntil(() => slicesWritten(join(h.server.dataDir, 'recorder'), 32 * 1024).length >= 2, { timeoutMs: 60_000, intervalMs: 200, what: 'an audio and a video slice on disk' });
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9401', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = stop.body.serverResponse as { uploadingStatus: string; fileList: { uid: string; trackType: string }[] };
    assert.equal(sr.uploadingStatus, 'uploaded');
    assert.deepEqual(sr.fileList.map((f) => `${f.uid}/${f.trackType}`).sort(), ['401/audio', '401/video']);

    const slices = bucketKeys(h.bucketDir).filter((k) => {
      const p = parseUserFileName(k.split('/').pop()!);
      return p?.uid === '401' && p.extension !== 'm3u8';
    });
    const video = slices.filter((k) => parseUserFileName(k.split('/').pop()!)?.track === 'video');
    const audio = slices.filter((k) => parseUserFileName(k.split('/').pop()!)?.track === 'audio');
    assert.ok(video.length >= 1 && audio.length >= 1, slices.join('\n'));
    const v = await probe(join(h.bucketDir, video[0]!));
    assert.ok(v.codecs.some((c) => c === 'vp8' || c === 'h264'), `video codecs ${v.codecs}`);
    assert.ok((v.width ?? 0) > 0);
    const a = await probe(join(h.bucketDir, audio[0]!));
    assert.ok(a.codecs.length > 0 && (a.sampleRate ?? 0) > 0, `audio ${JSON.stringify(a)}`);
  } finally {
    await browser.close();
    await h.close();
  }
});

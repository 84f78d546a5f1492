// The speaker timeline from the levels Chromium itself measures (RFC 6464, the ssrc-audio-level header extension):
// two call pages take turns with a tone, a third stays silent; the channel forwards each packet's level to the
// recorder, which finds the turns from those levels without decoding their audio.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SpeakersDocument } from '../../media/speech/index.ts';
import { launchTestChromium, type TestChromium } from '../../testing/chromium.ts';
import { joinCallPage, markedDevices, type MarkedDevices } from '../../testing/call-page.ts';
import { waitUntil } from '../../testing/wait.ts';
import { assertTimelineFollowsTurns } from '../common/testing/speakers.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';

const PERIOD_MS = 6000;

test('individual speaker timeline from Chromium\'s own audio levels (RFC 6464): each turn one interval within 300 ms, nothing for the silent page, no audio decoded', { timeout: 300_000 }, async () => {
  const h = await startHarness({ channel: { idleTimeoutMs: 60_000 }, recording: { individualSliceSeconds: 4 } });
  let browser: TestChromium | undefined;
  try {
    browser = await launchTestChromium(['--autoplay-policy=no-user-gesture-required']);
    const cname = 'chromium-speakers';
    const epochMs = Math.ceil(Date.now() / 1000) * 1000;
    const joinWithTone = (uid: number, half: MarkedDevices['tone']['half'], hz: number): Promise<Page> =>
      joinCallPage(browser!, h.server.url, cname, uid, 'vp8', {
        prepare: async (page) => {
          page.on('pageerror', (e) => console.log(`page ${uid}: ${e.message}`));
          // The microphone a WebAudio tone in one half of every period (`markedDevices`), the camera Chromium's own.
          await page.addInitScript(markedDevices, { tone: { epochMs, periodMs: PERIOD_MS, half, hz } });
        },
      });
    await joinWithTone(701, 'first', 440);
    await joinWithTone(702, 'second', 660);
    await joinWithTone(703, 'none', 0);
    const { resourceId, sid } = await h.startRecording(cname, '9701', {
      token: rtcToken(cname, 9701, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 0, speakerTimeline: true },
    });
    const jsonPath = join(h.bucketDir, `rec/ind/${sid}_${cname}_speakers.json`);
    // Three turns of each taker in the file the session keeps rewriting.
    await waitUntil(
      () => {
        if (!existsSync(jsonPath)) return false;
        const d = JSON.parse(readFileSync(jsonPath, 'utf8')) as SpeakersDocument;
        return ['701', '702'].every((uid) => d.speakers.filter((s) => s.uid === uid).length >= 3);
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'three intervals of each turn taker in the live timeline' },
    );
    const stopAt = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9701', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const doc = JSON.parse(readFileSync(jsonPath, 'utf8')) as SpeakersDocument;
    assert.equal(doc.final, true);
    // Every page's levels came in its packets: the recorder decoded none of them.
    assert.deepEqual(doc.levelSources, { '701': 'audio-level', '702': 'audio-level', '703': 'audio-level' });
    const files = (stop.body.serverResponse as { fileList: { fileName: string; sliceStartTime: number }[] }).fileList;
    const audioStarts = files.filter((f) => /__uid_s_70[12]__uid_e_audio\.m3u8$/.test(f.fileName)).map((f) => (f.sliceStartTime < 1e12 ? f.sliceStartTime * 1000 : f.sliceStartTime));
    assert.equal(audioStarts.length, 2, JSON.stringify(files));
    const turnsAt = (ms: number) => epochMs + ms;
    const errors = assertTimelineFollowsTurns(
      doc,
      [
        { uid: '701', publisher: { captureTimeOf: turnsAt }, periodMs: PERIOD_MS, half: 'first' },
        { uid: '702', publisher: { captureTimeOf: turnsAt }, periodMs: PERIOD_MS, half: 'second' },
      ],
      // From 2 s after both users' audio is recorded, as speakers.test.ts: a turn that began just as the recording
      // did was found 1 s late in two loaded runs (its first second of levels, before the sender's first report).
      { startMs: Math.max(...audioStarts) + 2000, endMs: stopAt - 500 },
      { toleranceMs: 300, silent: ['703'] },
    );
    console.log(`${doc.speakers.length} intervals; edges against the turns (ms): ${errors.map((e) => e.toFixed(0)).join(' ')}`);
  } finally {
    await browser?.close();
    await h.close();
  }
});

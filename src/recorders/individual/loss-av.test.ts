// A/V offsets of recordings through impairment relays (5 % uplink loss; bursts with jitter) against a clean
// control: the marked instants of each file's audio and video (av-offset.ts). Timing-sensitive (scripts/test-lanes.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gilbertForBursts } from '../../impairment/index.ts';
import type { MarkedMedia } from './testing/av-offset.ts';
import { CODECS, FPS, noDecodeError, recordThroughRelays } from './testing/loss-recording.ts';

/** One Opus packet's worth of audio as reeltime's publishers send it. */
const OPUS_FRAME_MS = 20;

test('A/V offset through 5 % uplink loss and through bursts with jitter: as the clean control’s, and within 40 ms', async (t) => {
  const marked: MarkedMedia = { fps: FPS, width: 320, height: 180, toneHz: 440, periodSec: 2 };
  const { results } = await recordThroughRelays(
    [
      { name: '5 %', uplink: { loss: 0.05 }, uidBase: 500 },
      { name: '2 % bursts, 50±30 ms jitter', uplink: { burst: gilbertForBursts(0.02, 3), delayMs: 50, jitterMs: 30 }, uidBase: 600 },
      { name: 'clean', uplink: {}, uidBase: 700 },
    ],
    { marked, seconds: 12 },
  );
  const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [key, r] of results) t.diagnostic(`${key}: A/V offsets ${r.avOffsetsMs.map((o) => o.toFixed(0)).join(', ')} ms (positive: audio late)`);
  for (const [key, r] of results) {
    noDecodeError(r, key);
    assert.ok(r.avOffsetsMs.length >= 3, `${key}: at least three marked instants in both tracks (${r.avOffsetsMs.length})`);
  }
  for (const codec of CODECS) {
    const control = median(results.get(`clean/${codec}`)!.avOffsetsMs);
    for (const lossy of ['5 %', '2 % bursts, 50±30 ms jitter']) {
      const offsets = results.get(`${lossy}/${codec}`)!.avOffsetsMs;
      const m = median(offsets);
      // 15-26 ms, audio late, through the relay, VP8 and H.264 alike (H.264 frames reach ffmpeg with their own
      // timestamps, media/slicer-inputs.ts; through ffmpeg's RTP input they were one frame early: 79-93 ms).
      assert.ok(Math.abs(m - control) <= 40, `${lossy} ${codec}: A/V offset ${m.toFixed(0)} ms (median) against the control's ${control.toFixed(0)} ms`);
      assert.ok(Math.abs(m) <= 40, `${lossy} ${codec}: A/V offset ${m.toFixed(0)} ms (median)`);
      // One instant may read one Opus frame (20 ms) later: the audio packet that carried the tone's onset was lost
      // for good and concealed (a VP8 stream at 5 % read 25, 45, 25, 25, 25, 25 ms).
      for (const o of offsets) assert.ok(Math.abs(o) <= 40 + OPUS_FRAME_MS, `${lossy} ${codec}: A/V offset ${o.toFixed(0)} ms`);
    }
  }
});

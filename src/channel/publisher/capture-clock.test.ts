import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ntpToUnixMs } from '../../clock/index.ts';
import { CaptureClock } from './capture-clock.ts';

test('capture clock: audio and video of one media instant get one wall time, following ffmpeg’s lag; a report a second per kind', () => {
  const clock = new CaptureClock(250);
  const t0 = 1_800_000_000_000;
  const A0 = 4_294_967_000; // audio wraps
  const V0 = 5000;
  clock.observe('audio', A0, t0);
  clock.observe('video', V0, t0 + 480); // video's first packet leaves later; it is media time 0 all the same
  assert.equal(clock.originMs, t0);
  // Audio packet of media time 1000 ms arrives 1010 ms in; video's of 1000 ms arrives 1300 ms in (slow encoder).
  const a = clock.report('audio', (A0 + 48_000) >>> 0, t0 + 1010)!;
  const v = clock.report('video', V0 + 90_000, t0 + 1300)!;
  assert.ok(Math.abs(ntpToUnixMs(a.ntpTimestamp) - 250 - (t0 + 1010)) < 0.01, 'audio: its own (smallest) lag');
  assert.ok(Math.abs(ntpToUnixMs(v.ntpTimestamp) - 250 - (t0 + 1010)) < 0.01, 'video: the audio’s lag, so both instants match');
  assert.equal(a.rtpTimestamp, (A0 + 48_000) >>> 0);
  assert.equal(clock.report('audio', (A0 + 48_960) >>> 0, t0 + 1030), undefined, 'one a second');
  // ffmpeg falls 2 s behind real time: the reports follow (the window forgets the older, smaller lags).
  for (let ms = 1040; ms < 3000; ms += 20) clock.observe('audio', (A0 + (ms - 40) * 48) >>> 0, t0 + ms + 2000);
  const late = clock.report('audio', (A0 + 2960 * 48) >>> 0, t0 + 5000)!;
  assert.ok(Math.abs(ntpToUnixMs(late.ntpTimestamp) - 250 - (t0 + 5000)) < 0.01);
  assert.ok(Math.abs(clock.captureTimeOf(2960)! - (t0 + 5000)) < 0.01);
  assert.ok(Math.abs(clock.captureTimeOf(1000)! - (t0 + 1010)) < 0.01, 'earlier media times by the report nearest them');
});

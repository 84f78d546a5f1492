import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFMPEG_BIN, parsePlaylist } from '../../media/index.ts';
import { tonePower } from '../../media/mix/testing/tones.ts';
import { runChild } from '../../process/index.ts';
import { readFileSync } from 'node:fs';
import { rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { sleep } from '../individual/testing/media-checks.ts';

const RATE = 48_000;
/** Tone analysis windows. */
const WINDOW = RATE / 100;
const PERIOD_MS = 2000;
/** The late user's sender reports put its clock this far ahead of ours. */
const OFFSET_MS = 700;
/** The third user's reports put its clock this far behind ours: past the latency window. */
const BEHIND_MS = 1500;
/** The mix runs this far behind real time (MixEngine's default latencyMs): output time 0 is origin − this. */
const LATENCY_MS = 400;

async function monoPcm(file: string): Promise<Int16Array> {
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', file, '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', String(RATE), 'pipe:1'], { timeoutMs: 60_000 });
  return new Int16Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.length >> 1);
}

test('mix on sender clocks: a late joiner whose clock runs ahead is heard at its own sender time, one whose clock is too far behind at its arrival time (RTCP SRs through the SFU)', async () => {
  const h = await startHarness({ mode: 'mix' });
  try {
    const cname = 'mix-sender-clock';
    const small = { width: 160, height: 90 };
    // Replayed publishers: live encoders fall behind real time on a loaded machine (docs/channel.md).
    await h.publish({ cname, uid: 701, color: 'red', toneHz: 440, ...small, mode: 'replay' });
    const { resourceId, sid } = await h.startRecording(cname, '9701', {
      token: rtcToken(cname, 9701, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, streamTypes: 0, audioProfile: 0 },
    });
    await sleep(3000);
    const lateJoinMs = Date.now();
    // The late joiner: its 1 kHz tone sounds in the first second of every two of its own timeline, and its
    // sender reports say that timeline runs 700 ms ahead of ours.
    const late = await h.publish({ cname, uid: 702, color: 'blue', toneHz: 1000, ...small, toneTurns: { periodSec: PERIOD_MS / 1000, half: 'first' }, senderClockOffsetMs: OFFSET_MS, mode: 'replay' });
    // The third: a 1.7 kHz tone in the second second of every two, its reports 1.5 s behind ours. Placed by them,
    // all its audio would be later than the mix's window and dropped; its reports stop being trusted instead.
    const behind = await h.publish({ cname, uid: 703, color: 'green', toneHz: 1700, ...small, toneTurns: { periodSec: PERIOD_MS / 1000, half: 'second' }, senderClockOffsetMs: -BEHIND_MS, mode: 'replay' });
    const behindJoinMs = Date.now();
    await sleep(22_000);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9701', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const m3u8 = join(h.bucketDir, `rec/ind/${sid}_${cname}.m3u8`);
    const originMs = parsePlaylist(readFileSync(m3u8, 'utf8'), 'audio').entries[0]!.startMs;
    const pcm = await monoPcm(m3u8);
    const windows = Math.floor(pcm.length / WINDOW);
    const power = (hz: number, w: number) => tonePower(pcm, 1, hz, w * WINDOW, (w + 1) * WINDOW);
    const p1000 = Array.from({ length: windows }, (_, w) => power(1000, w));
    const p440 = Array.from({ length: windows }, (_, w) => power(440, w));
    const max = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), 0);
    const perSecond = (xs: number[]) => Array.from({ length: Math.floor(xs.length / 100) }, (_, i) => (max(xs.slice(i * 100, i * 100 + 100)) > max(xs) / 4 ? '+' : '.')).join('');
    console.log(`per second, joined at ${((lateJoinMs - originMs) / 1000).toFixed(1)} s: 440 Hz ${perSecond(p440)}, 1 kHz ${perSecond(p1000)}`);
    const on = p1000.map((p) => p > max(p1000) / 4);
    // Output sample k is sender time originMs − 400 ms (the mix's latency) + k / 48 kHz. The late user's tone
    // starts at its sender times of media times 2 s·n; with arrival time instead, 700 ms earlier.
    const starts: number[] = [];
    for (let w = 1; w < windows; w++) if (on[w] && !on[w - 1]) starts.push(originMs - LATENCY_MS + (w * WINDOW * 1000) / RATE);
    const firstHeard = starts[0];
    assert.ok(firstHeard !== undefined, 'the late user is heard');
    assert.ok(firstHeard >= lateJoinMs, `not before it joined (${firstHeard - lateJoinMs} ms)`);
    // Where its sender clock puts the onset of tone period k (its reports' time, which is ours + OFFSET_MS).
    const senderOnset = (k: number) => late.captureTimeOf(k * PERIOD_MS)! + OFFSET_MS;
    const nearest = (t: number) =>
      Array.from({ length: 60 }, (_, k) => t - senderOnset(k)).reduce((a, b) => (Math.abs(b) < Math.abs(a) ? b : a));
    // Onsets once the link's first sender report is in (until then its first packets' arrival stands in).
    const settled = starts.filter((t) => t >= firstHeard + 3000);
    const errors = settled.map(nearest);
    console.log(`tone onsets vs the late user's sender time (ms): ${errors.map((e) => e.toFixed(0)).join(' ')}`);
    assert.ok(settled.length >= 3, `${settled.length} onsets after the first report`);
    const sorted = [...errors].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    assert.ok(Math.abs(median) <= 80, `median onset ${median.toFixed(0)} ms from the sender time (arrival time would be about −${OFFSET_MS})`);
    // A chunk dropped as late on a loaded machine cuts a tone and makes a false onset where it resumes: most, not all.
    const close = errors.filter((e) => Math.abs(e) <= 150).length;
    assert.ok(close >= errors.length / 2, `${close} of ${errors.length} onsets within 150 ms of the sender time`);
    // The user whose clock is behind: heard from a few seconds after its first report on (the reports, then 3 s of
    // audio arriving steadily late), its onsets where its packets' arrival puts them: about our own time of its
    // media (no offset), not 1.5 s later.
    const p1700 = Array.from({ length: windows }, (_, w) => power(1700, w));
    console.log(`1.7 kHz ${perSecond(p1700)}`);
    const on1700 = p1700.map((p) => p > max(p1700) / 4);
    const starts1700: number[] = [];
    for (let w = 1; w < windows; w++) if (on1700[w] && !on1700[w - 1]) starts1700.push(originMs - LATENCY_MS + (w * WINDOW * 1000) / RATE);
    const behindOnset = (k: number) => behind.captureTimeOf(k * PERIOD_MS + PERIOD_MS / 2)!;
    const behindErrors = starts1700
      .filter((t) => t >= behindJoinMs + 8000)
      .map((t) => Array.from({ length: 60 }, (_, k) => t - behindOnset(k)).reduce((a, b) => (Math.abs(b) < Math.abs(a) ? b : a)));
    console.log(`1.7 kHz onsets vs its media on our clock (ms): ${behindErrors.map((e) => e.toFixed(0)).join(' ')}`);
    assert.ok(behindErrors.length >= 3, `the user whose clock is behind is heard: ${behindErrors.length} onsets from 8 s after it joined`);
    const behindSorted = [...behindErrors].sort((a, b) => a - b);
    const behindMedian = behindSorted[Math.floor(behindSorted.length / 2)]!;
    assert.ok(Math.abs(behindMedian) <= 150, `median onset ${behindMedian.toFixed(0)} ms from its arrival time (its reports would put it ${BEHIND_MS} ms earlier, behind the window)`);
    // Really heard, not noise crossing the threshold: as loud as the other tones, and its onsets where they belong
    // (dropped audio leaves only noise, whose onsets scatter over the whole period).
    assert.ok(max(p1700) > max(p440) / 10, `1.7 kHz power ${max(p1700).toExponential(2)} against 440 Hz ${max(p440).toExponential(2)}`);
    const behindClose = behindErrors.filter((e) => Math.abs(e) <= 150).length;
    assert.ok(behindClose >= behindErrors.length / 2, `${behindClose} of ${behindErrors.length} onsets within 150 ms of its arrival time`);
    // The first user is in the mix too (how soon its link is up after the start depends on the machine's load).
    const heard = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i).filter((w) => p440[w]! > max(p440) / 4).length / (to - from);
    assert.ok(heard(windows - 300, windows - 20) > 0.95, `440 Hz at the end: ${heard(windows - 300, windows - 20)}`);
  } finally {
    await h.close();
  }
});

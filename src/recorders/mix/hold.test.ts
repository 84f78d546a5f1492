import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig, type Harness } from '../individual/testing/harness.ts';
import { queryHold, sessionEvents, setHold } from '../individual/testing/hold-api.ts';
import { FFPROBE_BIN } from '../../media/index.ts';
import { runChild } from '../../process/index.ts';
import { centrePixel, isColour, packetSpan, probe, sleep } from '../individual/testing/media-checks.ts';

/** Per stream of a file: its packets' first pts and last end (s). */
async function streamSpans(file: string): Promise<string> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'packet=stream_index,pts_time,duration_time', '-of', 'csv=p=0', file], { timeoutMs: 60_000 });
  const spans = new Map<string, [number, number]>();
  for (const l of r.stdout.toString('utf8').trim().split('\n')) {
    const [i, pts, dur] = l.split(',');
    if (!pts) continue;
    const p = Number(pts);
    const e = p + (Number(dur) || 0);
    const s = spans.get(i!) ?? [p, e];
    spans.set(i!, [Math.min(s[0], p), Math.max(s[1], e)]);
  }
  return [...spans].map(([i, [a, b]]) => `#${i} ${a}..${b}`).join(' ');
}

const RED = [255, 0, 0];
const UID = '9301';
/**
 * A mix slice's start is its encoder run's first frame time plus its media offset, all on the recorder's clock, as
 * is the hold's time: the first frame after a resume is the next one due (within a frame of the resume, more only
 * when the frame clock catches up on a loaded machine), and the last frame before a hold is the last one due.
 * The end is measured as start + the slice's packet span over all streams, which over-reads a short last slice:
 * its audio packets begin before its first video frame (seen in CI: a 0.067 s tail slice whose audio led its video
 * by 133 ms read as ending 324 ms after the hold). Hence more than a frame or two of slack.
 */
const FRAME_SLACK_MS = 400;
/**
 * Each phase of the first test (recording, on hold, recording again): many frames beyond FRAME_SLACK_MS, so media
 * leaking from the hold would show, and more than the 3 s before the MP4's end its last check reads.
 */
const PHASE_MS = 8_000;

async function record(h: Harness, cname: string, onhold?: boolean) {
  await h.publish({ cname, uid: 311, color: 'red', toneHz: 440, codec: 'vp8', width: 320, height: 180 });
  return h.startRecording(cname, UID, {
    token: rtcToken(cname, Number(UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: {
      channelType: 0,
      streamTypes: 2,
      maxIdleTime: 120,
      transcodingConfig: { width: 320, height: 180, fps: 15, bitrate: 300, mixedVideoLayout: 0 },
      ...(onhold !== undefined ? { onhold } : {}),
    },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
  });
}

test('mix: 8 s, 8 s on hold, 8 s: one output with one discontinuity, no media from the hold, MP4 without it, events in order', async () => {
  const h = await startHarness({ mode: 'mix' });
  try {
    const cname = 'mix-hold';
    const { resourceId, sid } = await record(h, cname);
    const t0 = Date.now();
    assert.equal(await queryHold(h, { rid: resourceId, sid }), undefined, 'not on hold: the hosted form, no onhold field');
    await sleep(PHASE_MS);
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, true);
    assert.equal(await queryHold(h, { rid: resourceId, sid }), true);
    await sleep(PHASE_MS);
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
    assert.equal(await queryHold(h, { rid: resourceId, sid }), undefined);
    await sleep(PHASE_MS);
    const tStop = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
    const tStopped = Date.now();
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const names = ((stop.body.serverResponse as { fileList: { fileName: string }[] }).fileList).map((f) => f.fileName);
    assert.deepEqual(names, [`rec/ind/${sid}_${cname}.m3u8`, `rec/ind/${sid}_${cname}_0.mp4`], 'one playlist, one MP4');

    const mine = sessionEvents(h, sid);
    const types = mine.map((e) => e.eventType);
    assert.deepEqual(types.filter((t) => t === 1100 || t === 1101), [1100, 1101], types.join(','));
    assert.ok(types.indexOf(40) < types.indexOf(1100) && types.indexOf(1101) < types.indexOf(41), types.join(','));
    const holdStart = mine.find((e) => e.eventType === 1100)!.payload.details.UtcMs as number;
    const holdEnd = mine.find((e) => e.eventType === 1101)!.payload.details.UtcMs as number;
    assert.ok(holdEnd - holdStart >= PHASE_MS, `hold ${holdStart}..${holdEnd}`);

    const plKey = `rec/ind/${sid}_${cname}.m3u8`;
    const text = readFileSync(join(h.bucketDir, plKey), 'utf8');
    const pl = parsePlaylist(text, 'video');
    assert.ok(pl.ended, 'the playlist is ended');
    assert.equal(text.split('\n').filter((l) => l === '#EXT-X-DISCONTINUITY').length, 1, text);
    const cut = pl.entries.findIndex((e) => e.discontinuity);
    assert.ok(cut > 0 && cut < pl.entries.length, `discontinuity between the two runs:\n${text}`);
    let total = 0;
    for (const [i, e] of pl.entries.entries()) {
      // Every slice's packets, as ffprobe reads them, lie wholly before the hold or wholly after the resume.
      const p = await packetSpan(join(h.bucketDir, plKey.replace(/[^/]+$/, e.uri)));
      assert.ok(p.packets > 0, `${e.uri} has packets`);
      const end = e.startMs + p.spanSec * 1000;
      console.log(`${e.uri}: starts ${e.startMs - holdStart} ms from the hold, ${e.startMs - holdEnd} ms from the resume, EXTINF ${e.durationSec} s, packets span ${p.spanSec} s, ${await streamSpans(join(h.bucketDir, plKey.replace(/[^/]+$/, e.uri)))}`);
      if (i < cut) assert.ok(end <= holdStart + FRAME_SLACK_MS, `${e.uri} ends ${end - holdStart} ms after the hold began`);
      else assert.ok(e.startMs >= holdEnd - FRAME_SLACK_MS, `${e.uri} starts ${holdEnd - e.startMs} ms before the resume`);
      total += e.durationSec;
    }
    // Each run is gapless; the first ends at the hold, the second starts at the resume and runs until the stop.
    const runs = [pl.entries.slice(0, cut), pl.entries.slice(cut)].map((run) => {
      const first = run[0]!;
      const last = run.at(-1)!;
      return { startMs: first.startMs, endMs: last.startMs + last.durationSec * 1000, sum: run.reduce((s, e) => s + e.durationSec, 0) };
    });
    console.log(
      `${pl.entries.length} slices, ${total} s; t0 +${runs[0]!.startMs - t0} ms, hold ${runs[0]!.endMs - holdStart} ms, ` +
        `resume ${runs[1]!.startMs - holdEnd} ms, stop ${runs[1]!.endMs - tStop} ms (answered ${tStopped - tStop} ms later)`,
    );
    for (const r of runs) assert.ok(Math.abs((r.endMs - r.startMs) / 1000 - r.sum) < 0.5, `a run spans ${(r.endMs - r.startMs) / 1000} s and its slices last ${r.sum} s`);
    assert.ok(Math.abs(runs[0]!.endMs - holdStart) < 1_000, `the first run ends ${runs[0]!.endMs - holdStart} ms from the hold`);
    assert.ok(Math.abs(runs[1]!.startMs - holdEnd) < 1_000, `the second run starts ${runs[1]!.startMs - holdEnd} ms from the resume`);
    assert.ok(runs[1]!.endMs >= tStop - 1_000 && runs[1]!.endMs <= tStopped + 1_000, 'the second run lasts until the stop');
    const mp4 = join(h.bucketDir, names[1]!);
    const m = await probe(mp4);
    assert.deepEqual([...m.codecs].sort(), ['aac', 'h264']);
    assert.ok(Math.abs(m.duration - total) < 1, `MP4 ${m.duration} s vs ${total} s in the playlist (the hold left out)`);
    assert.ok(isColour(await centrePixel(mp4, m.duration - 3), RED), 'the publisher in the MP4 after the resume');
  } finally {
    await h.close();
  }
});

test('mix: started on hold, then hold/resume 10 times quickly: every slice and the MP4 stay valid', async () => {
  const h = await startHarness({ mode: 'mix' });
  try {
    const cname = 'mix-hold-quick';
    const { resourceId, sid } = await record(h, cname, true);
    assert.equal(await queryHold(h, { rid: resourceId, sid }), true);
    await sleep(2_000);
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
    await sleep(3_000);
    for (let i = 0; i < 10; i++) {
      await setHold(h, { rid: resourceId, sid, cname, uid: UID }, true);
      await sleep(200);
      await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
      await sleep(300);
    }
    await sleep(3_000);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const holds = sessionEvents(h, sid).filter((e) => e.eventType === 1100 || e.eventType === 1101).map((e) => e.eventType);
    assert.deepEqual(holds, [1100, 1101, ...Array.from({ length: 10 }, () => [1100, 1101]).flat()]);

    const plKey = `rec/ind/${sid}_${cname}.m3u8`;
    const pl = parsePlaylist(readFileSync(join(h.bucketDir, plKey), 'utf8'), 'video');
    assert.ok(pl.ended);
    const breaks = pl.entries.filter((e) => e.discontinuity).length;
    // Nothing before the first resume (no discontinuity for it); each quick hold ends a run of about 300 ms.
    assert.ok(breaks >= 1 && breaks <= 10, `${breaks} discontinuities`);
    assert.ok(pl.entries.every((e, i) => i === 0 || e.startMs > pl.entries[i - 1]!.startMs), 'slices in time order');
    const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
    for (const e of pl.entries) {
      const p = await probe(join(h.bucketDir, plKey.replace(/[^/]+$/, e.uri)));
      assert.deepEqual([...p.codecs].sort(), ['aac', 'h264'], e.uri);
      assert.ok(p.duration > 0, `${e.uri} duration ${p.duration}`);
    }
    const m = await probe(join(h.bucketDir, `rec/ind/${sid}_${cname}_0.mp4`));
    assert.deepEqual([...m.codecs].sort(), ['aac', 'h264']);
    console.log(`${pl.entries.length} slices, ${breaks} discontinuities, ${total} s in the playlist, MP4 ${m.duration} s`);
    assert.ok(Math.abs(m.duration - total) < 1.5, `MP4 ${m.duration} s vs ${total} s in the playlist`);
  } finally {
    await h.close();
  }
});

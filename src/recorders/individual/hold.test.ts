import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'node:test';
import { portRangeMappings, startImpairmentRelay } from '../../impairment/index.ts';
import { freeShiftedRanges } from '../../impairment/testing/index.ts';
import { parsePlaylist, parseUserFileName } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig, type Harness } from './testing/harness.ts';
import { queryHold, sessionEvents, setHold } from './testing/hold-api.ts';
import { bucketKeys, centrePixel, isColour, packetSpan, probe, sleep } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

const RED = [255, 0, 0];
const UID = '9101';
/**
 * A slice's UTC start is its first packet's arrival, its length the media's own clock, and the hold's time is the
 * update's. A live synthetic publisher's audio ran ahead of the arrival clock before a hold (its media outlasted the
 * wall time by 1.3–2.2 s in five runs, video by −0.1–1.1 s), while after a resume both started 30–65 ms after it;
 * the replayed publisher used now ended 60 ms (audio) and 25 ms (video) after the hold began in one run, which
 * points at the live encoder's timing. The bound before the hold stays loose (still well under the 8 s a leak would
 * add) and the one after it tight. The durations check below bounds the same thing without the arrival clock.
 */
const JITTER_MS = 3500;
/** The first test's hold. */
const HOLD_MS = 8_000;
/** Slice length in the first test: its slices before and after the hold come in seconds. */
const SLICE_SECONDS = 4;

function userFiles(h: Harness, sid: string) {
  const keys = bucketKeys(h.bucketDir);
  return (ext: string, track?: string) =>
    keys.filter((k) => {
      const p = parseUserFileName(k.split('/').pop()!);
      return p && p.sid === sid && p.extension === ext && (!track || p.track === track);
    });
}

/** The user's playlist of one kind from the bucket: its key, text and entries. */
function playlistOf(h: Harness, sid: string, kind: 'audio' | 'video') {
  const [key] = userFiles(h, sid)('m3u8', kind);
  assert.ok(key, `${kind} playlist`);
  const text = readFileSync(join(h.bucketDir, key), 'utf8');
  return { key, text, pl: parsePlaylist(text, kind) };
}

async function record(h: Harness, cname: string, extra: Record<string, unknown> = {}) {
  // Replayed: a live encoder falls behind real time on a loaded machine and its media comes late and in bursts.
  await h.publish({ cname, uid: 301, color: 'red', toneHz: 440, codec: 'vp8', mode: 'replay' });
  return h.startRecording(cname, UID, {
    token: rtcToken(cname, Number(UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, ...extra },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
  });
}

test('a slice of each kind, 8 s on hold, a slice of each kind: no media from the hold, one discontinuity per playlist, MP4 without the hold, events in order', async () => {
  const h = await startHarness({ recording: { individualSliceSeconds: SLICE_SECONDS } });
  try {
    const cname = 'ind-hold';
    const { resourceId, sid } = await record(h, cname);
    const t0 = Date.now();
    const slices = (kind: 'audio' | 'video') => userFiles(h, sid)(kind === 'audio' ? 'ts' : 'webm', kind).length;
    assert.equal(await queryHold(h, { rid: resourceId, sid }), undefined, 'not on hold: the hosted form, no onhold field');
    await waitUntil(() => slices('audio') >= 1 && slices('video') >= 1, { timeoutMs: 90_000, intervalMs: 200, what: 'a slice of each kind before the hold' });
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, true);
    assert.equal(await queryHold(h, { rid: resourceId, sid }), true);
    // The hold itself: long enough that media leaking from it would show (JITTER_MS is well under it).
    await sleep(HOLD_MS);
    // The recorder shares this process: a stall of it holds back the packets of the resume, which then arrive after it
    // though sent before it (the slice's time is their sending, arrival-anchor.ts).
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
    assert.equal(await queryHold(h, { rid: resourceId, sid }), undefined, 'not on hold: the hosted form, no onhold field');
    // Two more slices of each kind (the one the hold closed may land after the resume): a whole slice of the resumed
    // stream, more than the 3 s before the MP4's end checked below.
    const atResume = [slices('audio'), slices('video')] as const;
    await waitUntil(() => slices('audio') >= atResume[0] + 2 && slices('video') >= atResume[1] + 2, { timeoutMs: 90_000, intervalMs: 200, what: 'two slices of each kind after the resume' });
    lag.disable();
    const stallMs = lag.max / 1e6;
    console.log(`event loop delay around the resume: p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${stallMs.toFixed(0)} ms`);
    const tStop = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const mine = sessionEvents(h, sid);
    const types = mine.map((e) => e.eventType);
    const held = mine.find((e) => e.eventType === 1100);
    const resumed = mine.find((e) => e.eventType === 1101);
    assert.ok(held && resumed, `hold and resume events in ${types.join(',')}`);
    assert.equal(types.filter((t) => t === 1100).length, 1);
    assert.equal(types.filter((t) => t === 1101).length, 1);
    assert.ok(types.indexOf(40) < types.indexOf(1100) && types.indexOf(1100) < types.indexOf(1101) && types.indexOf(1101) < types.indexOf(41), types.join(','));
    const holdStart = held.payload.details.UtcMs as number;
    const holdEnd = resumed.payload.details.UtcMs as number;
    assert.ok(holdEnd - holdStart >= HOLD_MS, `hold ${holdStart}..${holdEnd}`);

    const files = userFiles(h, sid);
    let recorded = 0;
    for (const kind of ['audio', 'video'] as const) {
      const { key: plKey, text, pl } = playlistOf(h, sid, kind);
      assert.equal(text.split('\n').filter((l) => l === '#EXT-X-DISCONTINUITY').length, 1, `${kind} playlist:\n${text}`);
      const cut = pl.entries.findIndex((e) => e.discontinuity);
      assert.ok(cut > 0, `${kind}: discontinuity after the first stream`);
      let total = 0;
      for (const [i, e] of pl.entries.entries()) {
        // The slice's packets, as ffprobe reads them, lie wholly before or wholly after the hold.
        const p = await packetSpan(join(h.bucketDir, plKey.replace(/[^/]+$/, e.uri)));
        assert.ok(p.packets > 0, `${e.uri} has packets`);
        const end = e.startMs + p.spanSec * 1000;
        if (i < cut) console.log(`${kind} ${e.uri}: media ends ${Math.round(end - holdStart)} ms after the hold began`);
        else console.log(`${kind} ${e.uri}: starts ${Math.round(e.startMs - holdEnd)} ms after the resume`);
        if (i < cut) assert.ok(end <= holdStart + JITTER_MS, `${kind} ${e.uri} ends ${end - holdStart} ms after the hold began`);
        // Media sent before the resume stays out even when it arrives after it (the hold gate dates packets by their
        // sending, media/arrival-anchor.ts SendClock): session 19 saw 302 ms and session 20 1269 ms of the hold leak
        // in behind a stall of this process (up to 3.4 s) when the gate read arrival times.
        else assert.ok(e.startMs >= holdEnd - 100, `${kind} ${e.uri} starts ${holdEnd - e.startMs} ms before the resume (stalled up to ${stallMs.toFixed(0)} ms)`);
        total += e.durationSec;
      }
      // Durations add up: each stream is gapless from its first slice to its last, and all of them together fit in
      // the wall time less the hold (the join and, for video, the wait for a keyframe come off the start of each).
      for (const stream of [pl.entries.slice(0, cut), pl.entries.slice(cut)]) {
        const span = (stream.at(-1)!.startMs - stream[0]!.startMs) / 1000 + stream.at(-1)!.durationSec;
        const sum = stream.reduce((s, e) => s + e.durationSec, 0);
        assert.ok(Math.abs(span - sum) < 1, `${kind}: a stream spans ${span} s and its slices last ${sum} s`);
      }
      const expected = (tStop - t0 - (holdEnd - holdStart)) / 1000;
      assert.ok(total <= expected + 1, `${kind}: ${total} s recorded, at most ${expected} s expected`);
      recorded = Math.max(recorded, total);
    }
    const [mp4] = files('mp4');
    assert.ok(mp4, 'MP4');
    const m = await probe(join(h.bucketDir, mp4));
    assert.deepEqual([...m.codecs].sort(), ['aac', 'h264']);
    assert.ok(Math.abs(m.duration - recorded) < 1.5, `MP4 ${m.duration} s vs ${recorded} s recorded (the hold left out)`);
    assert.ok(isColour(await centrePixel(join(h.bucketDir, mp4), m.duration - 3), RED), 'MP4 frame after the resume');
  } finally {
    await h.close();
  }
});

test('started on hold, then hold/resume 10 times quickly: every file stays valid', async () => {
  const h = await startHarness();
  try {
    const cname = 'ind-hold-quick';
    const { resourceId, sid } = await record(h, cname, { onhold: true });
    assert.equal(await queryHold(h, { rid: resourceId, sid }), true);
    await sleep(3_000);
    await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
    await sleep(4_000);
    for (let i = 0; i < 10; i++) {
      await setHold(h, { rid: resourceId, sid, cname, uid: UID }, true);
      await sleep(200);
      await setHold(h, { rid: resourceId, sid, cname, uid: UID }, false);
      await sleep(300);
    }
    await sleep(5_000);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));

    const mine = sessionEvents(h, sid);
    const holds = mine.filter((e) => e.eventType === 1100 || e.eventType === 1101).map((e) => e.eventType);
    assert.deepEqual(holds, [1100, 1101, ...Array.from({ length: 10 }, () => [1100, 1101]).flat()]);

    const files = userFiles(h, sid);
    let recorded = 0;
    for (const kind of ['audio', 'video'] as const) {
      const { key: plKey, pl } = playlistOf(h, sid, kind);
      assert.ok(pl.ended);
      const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
      console.log(`${kind}: ${pl.entries.length} slices, ${total} s`);
      recorded = Math.max(recorded, total);
      const breaks = pl.entries.filter((e) => e.discontinuity).length;
      assert.ok(breaks >= 1 && breaks <= 10, `${kind}: ${breaks} discontinuities`);
      for (const e of pl.entries) {
        const p = await probe(join(h.bucketDir, plKey.replace(/[^/]+$/, e.uri)));
        assert.deepEqual(p.codecs, [kind === 'audio' ? 'aac' : 'vp8'], `${e.uri}`);
        assert.ok(p.duration > 0, `${e.uri} duration ${p.duration}`);
      }
      assert.ok(pl.entries.every((e, i) => i === 0 || e.startMs > pl.entries[i - 1]!.startMs), `${kind} slices in time order`);
    }
    const [mp4] = files('mp4');
    assert.ok(mp4, 'MP4');
    const m = await probe(join(h.bucketDir, mp4));
    assert.deepEqual([...m.codecs].sort(), ['aac', 'h264']);
    // Valid and not empty. Its length is not checked against the playlists here: with a dozen sub-second streams the
    // MP4 came out shorter than the longest playlist (9.3 s vs 12.3 s once) — an open question for remux.ts, listed
    // in docs/recording-individual.md ("Limits").
    assert.ok(m.duration > 0, `MP4 ${m.duration} s`);
    console.log(`MP4 ${m.duration} s, longest playlist ${recorded} s`);
  } finally {
    await h.close();
  }
});

test('media sent before the resume but held back past it (a 1.5 s delay spike on the uplink) stays out of the recording', async () => {
  // The publisher reaches the node through an impairment relay. Its packets from 1 s before the resume to 2 s after
  // it are delayed 1.5 s: the first to arrive after the resume were sent before it (as behind a stall of this
  // process, which the whole suite's load makes: session 20 saw 1.3 s of the hold recorded that way).
  const ports = 4;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({ recording: { individualSliceSeconds: SLICE_SECONDS }, channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset } });
  const at = (port: number) => ({ address: '127.0.0.1', port });
  const relay = await startImpairmentRelay({ mappings: portRangeMappings(at(nodeMin + offset), at(nodeMin), ports), seed: 31 });
  try {
    const cname = 'ind-hold-late';
    const { resourceId, sid } = await record(h, cname);
    assert.ok(relay.counters.upstream.packetsIn > 0, 'the publisher goes through the relay');
    const ids = { rid: resourceId, sid, cname, uid: UID };
    const slices = (kind: 'audio' | 'video') => userFiles(h, sid)(kind === 'audio' ? 'ts' : 'webm', kind).length;
    await waitUntil(() => slices('audio') >= 1 && slices('video') >= 1, { timeoutMs: 90_000, intervalMs: 200, what: 'a slice of each kind before the hold' });
    await setHold(h, ids, true);
    await sleep(3_000);
    relay.setLink('upstream', { delayMs: 1_500 });
    await sleep(1_000);
    await setHold(h, ids, false);
    await sleep(2_000);
    relay.setLink('upstream', {});
    const atResume = [slices('audio'), slices('video')] as const;
    await waitUntil(() => slices('audio') >= atResume[0] + 2 && slices('video') >= atResume[1] + 2, { timeoutMs: 90_000, intervalMs: 200, what: 'two slices of each kind after the resume' });
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const resumed = sessionEvents(h, sid).find((e) => e.eventType === 1101);
    assert.ok(resumed, 'event 1101');
    const holdEnd = resumed.payload.details.UtcMs as number;
    for (const kind of ['audio', 'video'] as const) {
      const { pl } = playlistOf(h, sid, kind);
      const cut = pl.entries.findIndex((e) => e.discontinuity);
      assert.ok(cut > 0, `${kind}: discontinuity after the first stream`);
      const first = pl.entries[cut]!;
      console.log(`${kind}: the resumed stream starts ${first.startMs - holdEnd} ms after the resume`);
      assert.ok(first.startMs >= holdEnd - 100, `${kind}: the resumed stream starts ${holdEnd - first.startMs} ms before the resume`);
    }
  } finally {
    await relay.close();
    await h.close();
  }
});

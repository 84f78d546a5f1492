/**
 * The web-mode end-to-end test through the HTTP API, with the service's real 15 s slices: a loopback page
 * whose background changes colour every 5 s of wall-clock time, with a 440 Hz tone, a flash and a beep at the same
 * instant once a second, and `notifyReady` after 2 s, recorded for about 40 s into HLS and MP4. One capture.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  avOffsetsMs,
  beepOnsets,
  decodeMono,
  dominantFrequency,
  flashOnsets,
  median,
  probeSegment,
  sampleFrames,
} from '../../media/capture/testing/media-checks.ts';
import { FLASH_SQUARE, startPageServer } from '../../media/capture/testing/page-server.ts';
import { parsePlaylist, parseUtcStamp } from '../../media/index.ts';
import { startHarness, storageConfig } from '../individual/testing/harness.ts';
import { bucketKeys, isColour, probe, sleep } from '../individual/testing/media-checks.ts';
import { webClient, webService } from './testing/web-client.ts';
import { waitUntil } from '../../testing/wait.ts';

const PALETTE: readonly (readonly [number, number, number])[] = [
  [255, 0, 0],
  [0, 255, 0],
  [0, 0, 255],
  [255, 255, 0],
  [255, 0, 255],
  [0, 255, 255],
];
const GREY = [128, 128, 128] as const;
const PERIOD_MS = 5000;
const css = (c: readonly number[]) => `rgb(${c.join(',')})`;
/** The page's colour at wall-clock time `ms`. */
const paletteAt = (ms: number) => Math.floor(ms / PERIOD_MS) % PALETTE.length;

/**
 * A frame stamped at time t was grabbed at t; the page switched colour at the 5 s mark plus its own paint path
 * (animation frame, compositor, X server), so a frame just after a mark may still show the previous colour.
 * Frames closer to a mark than this are not judged; each change itself must fall inside the window.
 */
const BEFORE_MARK_MS = 150;
const AFTER_MARK_MS = 700;

interface ServiceState {
  readonly serviceName: string;
  readonly payload: Record<string, unknown>;
}
const serviceStates = (body: Record<string, unknown>) =>
  (body.serverResponse as { extensionServiceState: ServiceState[] }).extensionServiceState;

test('web mode end to end: 40 s of a page with changing colours, a tone, flash + beep; colours at the right times, A/V offset ≤ 60 ms, HLS + MP4', async (t) => {
  const pages = await startPageServer({
    show: {
      colour: css(GREY),
      toneHz: 440,
      notifyReadyAfterMs: 2000,
      cycle: { colours: PALETTE.map(css), periodMs: PERIOD_MS },
      flashBeepHz: 4000,
    },
  });
  // Real 15 s slices; MP4 files split every 20 s instead of maxVideoDuration minutes (test setting).
  const h = await startHarness({ recording: { webMp4SplitSeconds: 20 } });
  try {
    const web = webClient(h.api);
    const cname = 'web.show#1';
    const uid = '5010';
    const startedAt = Date.now();
    const { resourceId, sid } = await web.start(cname, uid, {
      storageConfig: storageConfig(),
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
      extensionServiceConfig: {
        extensionServices: [webService(`${pages.origin}/show`, { readyTimeout: 10, videoFps: 30, audioProfile: 1 })],
      },
    });
    const stem = `${sid}_web-show-1`;
    const slicesInBucket = () => bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts'));
    // Two whole slices (≈ 29 s of media: the first ends at the first 15 s mark), then ≈ 11 s more: ≈ 40 s.
    await waitUntil(() => slicesInBucket().length >= 2, { timeoutMs: 180_000, intervalMs: 200, what: 'two slices in the bucket' });

    const q = await h.api('GET', web.path(resourceId, sid, 'query'));
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const live = serviceStates(q.body).find((s) => s.serviceName === 'web_recorder_service')?.payload;
    assert.equal(live?.state, 'inProgress', JSON.stringify(q.body));
    assert.equal(live?.onhold, false);
    assert.deepEqual(((live?.fileList ?? []) as { filename: string }[]).map((f) => f.filename), [`rec/ind/${stem}.m3u8`]);
    // updateLayout has no meaning in web mode.
    const layout = await h.api('POST', web.path(resourceId, sid, 'updateLayout'), { cname, uid, clientRequest: {} });
    assert.equal(layout.status, 400, JSON.stringify(layout.body));

    await sleep(11_000);
    const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname, uid, clientRequest: {} });
    const stoppedAt = Date.now();
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const states = serviceStates(stop.body);
    assert.deepEqual(states.map((s) => s.serviceName), ['upload_service', 'web_recorder_service']);
    assert.equal(states[0]!.payload.uploadingStatus, 'uploaded');
    assert.equal(states[1]!.payload.state, 'exit');

    // Names: <sid>_<cname>.m3u8, <sid>_<cname>_<utc>.ts (utc of the slice's first sample), <sid>_<cname>_<i>.mp4.
    const keys = bucketKeys(h.bucketDir).filter((k) => k.includes(sid)).sort();
    const playlistPath = join(h.bucketDir, `rec/ind/${stem}.m3u8`);
    const text = readFileSync(playlistPath, 'utf8');
    const pl = parsePlaylist(text, 'video');
    assert.ok(pl.ended, 'final playlist has #EXT-X-ENDLIST');
    assert.ok(!text.includes('#EXT-X-DISCONTINUITY'), text);
    const sliceKeys = keys.filter((k) => k.endsWith('.ts'));
    assert.deepEqual(pl.entries.map((e) => `rec/ind/${e.uri}`), sliceKeys, 'the playlist names every slice, in time order');
    for (const e of pl.entries) {
      const m = new RegExp(`^${sid}_web-show-1_(\\d{17})\\.ts$`).exec(e.uri);
      assert.ok(m, e.uri);
      const stamp = parseUtcStamp(m[1]!) ?? Number.NaN;
      assert.ok(stamp > startedAt && stamp < stoppedAt, `${e.uri}: its UTC stamp lies within the recording`);
    }
    // ≈ 15 s slices: all but the first (which ends at the first mark) and the last (cut by the stop).
    assert.ok(pl.entries.length >= 3, text);
    for (const e of pl.entries.slice(1, -1)) assert.ok(Math.abs(e.durationSec - 15) < 0.25, `slice of ${e.durationSec} s\n${text}`);
    const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
    assert.ok(total > 30, `${total} s recorded\n${text}`);

    // HLS as a player sees it: the playlist probed, and each slice.
    const hls = await probe(playlistPath);
    assert.deepEqual([...hls.codecs].sort(), ['aac', 'h264']);
    assert.ok(Math.abs(hls.duration - total) < 1.5, `playlist plays ${hls.duration} s, slices sum to ${total} s`);

    const colourLags: number[] = [];
    const offsets: number[] = [];
    let judged = 0;
    for (const e of pl.entries) {
      const path = join(h.bucketDir, 'rec/ind', e.uri);
      const p = await probeSegment(path);
      assert.deepEqual([...p.codecs].sort(), ['aac', 'h264'], e.uri);
      assert.deepEqual([p.width, p.height, p.sampleRate], [640, 360, 48000], e.uri);
      // The file's timestamps are the capture's wall clock shifted by a constant: the slice's stamp is its first.
      const utc = (ptsSec: number) => e.startMs + (ptsSec - p.startSec) * 1000;
      const frames = await sampleFrames(path, [[320, 180], [FLASH_SQUARE / 2, FLASH_SQUARE / 2]]);
      let previous: number | undefined;
      for (const f of frames) {
        const rgb = f.rgb[0]!;
        assert.ok(!isColour(rgb, GREY, 30), `${e.uri} at ${f.ptsSec}: the page before notifyReady was recorded`);
        const shown = PALETTE.findIndex((c) => isColour(rgb, c));
        assert.ok(shown >= 0, `${e.uri} at ${f.ptsSec}: ${rgb} is none of the page's colours`);
        const at = utc(f.ptsSec);
        const sinceMark = ((at % PERIOD_MS) + PERIOD_MS) % PERIOD_MS;
        if (sinceMark > AFTER_MARK_MS && sinceMark < PERIOD_MS - BEFORE_MARK_MS) {
          judged += 1;
          assert.equal(shown, paletteAt(at), `${e.uri}: the frame of ${new Date(at).toISOString()} shows colour ${shown}, the page showed ${paletteAt(at)}`);
        }
        if (previous !== undefined && shown !== previous) {
          const lag = sinceMark > PERIOD_MS / 2 ? sinceMark - PERIOD_MS : sinceMark;
          colourLags.push(Math.round(lag));
          assert.ok(lag >= -BEFORE_MARK_MS && lag <= AFTER_MARK_MS, `${e.uri}: colour changed ${lag} ms from a 5 s mark`);
        }
        previous = shown;
      }
      offsets.push(...avOffsetsMs(await beepOnsets(path), flashOnsets(frames, 1)));
      const hz = dominantFrequency(await decodeMono(path), 100, 2000);
      assert.ok(Math.abs(hz - 440) <= 3, `${e.uri}: tone ${hz} Hz`);
    }
    assert.ok(judged > 600, `${judged} frames judged`);
    assert.ok(colourLags.length >= 4, `colour changes seen: ${colourLags.join(', ')}`);
    assert.ok(offsets.length >= 10, `flash + beep pairs: ${offsets.length}`);
    const offset = median(offsets);
    t.diagnostic(
      `${total.toFixed(1)} s in ${pl.entries.length} slices; ${judged} frames judged; colour changes ${colourLags.join(', ')} ms after the marks; ` +
        `A/V (sound − picture) median ${offset.toFixed(0)} ms over ${offsets.length} pairs, range ${Math.min(...offsets).toFixed(0)}..${Math.max(...offsets).toFixed(0)} ms`,
    );
    assert.ok(Math.abs(offset) <= 60, `A/V offset ${offset} ms (pairs ${offsets.map((o) => o.toFixed(0)).join(', ')})`);

    // MP4: split every 20 s (test setting) at slice boundaries, named from 0, the same media as the playlist.
    const mp4s = keys.filter((k) => k.endsWith('.mp4'));
    assert.deepEqual(mp4s, mp4s.map((_, i) => `rec/ind/${stem}_${i}.mp4`));
    assert.ok(mp4s.length >= 2, `${mp4s.length} MP4 files for ${total} s`);
    let mp4Total = 0;
    for (const m of mp4s) {
      const mp = await probe(join(h.bucketDir, m));
      assert.deepEqual([...mp.codecs].sort(), ['aac', 'h264'], m);
      assert.deepEqual([mp.width, mp.height], [640, 360], m);
      mp4Total += mp.duration;
    }
    assert.ok(Math.abs(mp4Total - total) < 1.5, `MP4s ${mp4Total} s vs playlist ${total} s`);

    // Webhooks: 70 (recorderStartTime) … 71 (code 0, playlist and MP4s) … 31 (uploaded).
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 31), { timeoutMs: 20_000, intervalMs: 200, what: 'uploaded event' });
    const mine = h.events.filter((e) => e.payload.sid === sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
    const types = mine.map((e) => e.eventType);
    assert.ok(types.indexOf(70) >= 0 && types.indexOf(70) < types.indexOf(71) && types.indexOf(71) < types.indexOf(31), types.join(','));
    assert.equal(typeof mine.find((e) => e.eventType === 70)!.payload.details.recorderStartTime, 'number');
    const stopped = mine.find((e) => e.eventType === 71)!.payload.details;
    assert.deepEqual([stopped.code, stopped.message], [0, 'ok']);
    assert.deepEqual(
      (stopped.fileList as { fileName: string }[]).map((f) => f.fileName).sort(),
      [`rec/ind/${stem}.m3u8`, ...mp4s].sort(),
    );
  } finally {
    await h.close();
    await pages.close();
  }
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { expectedSliceCount, parsePlaylist, parseUserFileName, slicePolicy } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, centrePixel, isColour, probe, sleep } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
/** The synthetic publisher's keyframe interval (2 s at 15 fps). */
const GOP_SEC = 2;

test('two publishers (VP8 red 440 Hz, H.264 blue 880 Hz) recorded 30+ s: slices, playlists, MP4s, snapshots, events', async () => {
  // The stop waits for the last slices, the MP4s and their uploads: on a loaded 2-core machine that once took over
  // the default 20 s (206, code 50, the files following later). The answer with its file list is what is checked.
  const h = await startHarness({ recording: { stopTimeoutSecond: 90 } });
  try {
    const cname = 'ind-main';
    // Replayed publishers: two live encoders on a loaded machine fell behind real time and sent their media late and
    // in bursts, which the span checks below (recorded seconds against wall time) caught as a recorder fault.
    await h.publish({ cname, uid: 101, color: 'red', toneHz: 440, codec: 'vp8', mode: 'replay' });
    await h.publish({ cname, uid: 102, color: 'blue', toneHz: 880, codec: 'h264', mode: 'replay' });
    const t0 = Date.now();
    const { resourceId, sid } = await h.startRecording('ind-main', '9001', {
      token: rtcToken(cname, 9001, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamMode: 'standard' },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
      snapshotConfig: { captureInterval: 10, fileType: ['jpg'] },
    });
    // Status 5 once the first file is in the bucket.
    await waitUntil(async () => {
      const q = await h.api('GET', h.path(resourceId, sid, 'query'));
      return q.status === 200 && (q.body.serverResponse as { status: number }).status === 5;
    }, { timeoutMs: 60_000, intervalMs: 200, what: 'status 5' });
    const firstFileMs = Date.now() - t0;
    // Status 5 means a first 15 s slice is in the bucket, so recording began at least 15 s ago; 20 s more gives 30+ s
    // of media however long the publishers took to connect on a loaded machine.
    await sleep(Math.max(0, 33_000 - (Date.now() - t0), 20_000 - (Date.now() - t0 - firstFileMs)));
    const tStop = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9001', clientRequest: {} });
    const stopMs = Date.now() - tStop;
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = stop.body.serverResponse as { uploadingStatus: string };
    assert.equal(sr.uploadingStatus, 'uploaded');
    console.log(`first file after ${firstFileMs} ms, synchronous stop ${stopMs} ms`);

    const keys = bucketKeys(h.bucketDir);
    const byUser = (uid: string, ext: string, track?: string) =>
      keys.filter((k) => {
        const p = parseUserFileName(k.split('/').pop()!);
        return p && p.uid === uid && p.extension === ext && (!track || p.track === track) && p.sid === sid;
      });
    for (const k of keys) assert.ok(k.startsWith('rec/ind/'), `${k} carries the fileNamePrefix`);

    for (const [uid, colour, vcodec, vext] of [
      ['101', RED, 'vp8', 'webm'],
      ['102', BLUE, 'h264', 'ts'],
    ] as const) {
      const totals: Record<string, number> = {};
      for (const kind of ['audio', 'video'] as const) {
        const [plKey] = byUser(uid, 'm3u8', kind);
        assert.ok(plKey, `${kind} playlist of ${uid}`);
        const pl = parsePlaylist(readFileSync(join(h.bucketDir, plKey)).toString('utf8'), kind);
        assert.ok(pl.ended, 'final playlist has #EXT-X-ENDLIST');
        const slices = byUser(uid, kind === 'audio' ? 'ts' : vext, kind);
        assert.deepEqual(pl.entries.map((e) => e.uri).sort(), slices.map((k) => k.split('/').pop()!).sort(), 'playlist lists every slice in the bucket');
        const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
        totals[kind] = total;
        assert.ok(total >= 30, `${uid} ${kind}: ${total} s recorded`);
        // Slice policy: audio cut at every 15 s mark; video at the first keyframe at or after each mark
        // (keyframes every 2 s), so slice k ends within one GOP after 15·k s.
        let end = 0;
        pl.entries.slice(0, -1).forEach((e, k) => {
          end += e.durationSec;
          const mark = 15 * (k + 1);
          const late = kind === 'audio' ? 0.1 : GOP_SEC + 0.1;
          assert.ok(end >= mark - 0.1 && end <= mark + late, `${uid} ${kind} slice ${k} ends at ${end} s`);
        });
        assert.ok(slices.length >= expectedSliceCount(slicePolicy(kind), total, GOP_SEC) - 1, `${uid} ${kind}: ${slices.length} slices for ${total} s`);
        assert.ok(slices.length <= expectedSliceCount(slicePolicy(kind), total), `${uid} ${kind}: ${slices.length} slices for ${total} s`);
        let probed = 0;
        for (const s of slices) {
          const p = await probe(join(h.bucketDir, s));
          assert.deepEqual(p.codecs, [kind === 'audio' ? 'aac' : vcodec], `${s} codec`);
          probed += p.duration;
        }
        assert.ok(Math.abs(probed - total) < 1, `${uid} ${kind}: slices ${probed} s vs playlist ${total} s`);
        // Nothing lost between the first slice and the stop request.
        const span = (tStop - pl.entries[0]!.startMs) / 1000;
        assert.ok(Math.abs(span - total) < 1.5, `${uid} ${kind}: ${total} s recorded over ${span} s`);
      }
      const firstVideo = byUser(uid, vext, 'video')[0]!;
      assert.ok(isColour(await centrePixel(join(h.bucketDir, firstVideo), 1), colour), `${uid} video is its colour`);
      // streamMode standard: the merged index pairs both playlists.
      const [merged] = byUser(uid, 'm3u8', 'av');
      assert.ok(merged, `merged index of ${uid}`);
      // The MP4 plays both tracks for the whole recording.
      const [mp4] = byUser(uid, 'mp4');
      assert.ok(mp4, `MP4 of ${uid}`);
      const mp = await probe(join(h.bucketDir, mp4));
      assert.deepEqual([...mp.codecs].sort(), ['aac', 'h264']);
      const longest = Math.max(totals.audio!, totals.video!);
      assert.ok(Math.abs(mp.duration - longest) < 1.5, `${uid} MP4 ${mp.duration} s vs ${longest} s`);
      assert.ok(isColour(await centrePixel(join(h.bucketDir, mp4), 20), colour), `${uid} MP4 frame colour`);
      // Snapshots every 10 s of video.
      const jpgs = byUser(uid, 'jpg');
      const expectSnaps = Math.floor(totals.video! / 10) + 1;
      assert.ok(Math.abs(jpgs.length - expectSnaps) <= 1, `${uid}: ${jpgs.length} snapshots for ${totals.video} s`);
      for (const j of jpgs) assert.ok(isColour(await centrePixel(join(h.bucketDir, j)), colour), `${j} colour`);
    }

    // Events reach the webhook, signed, in sequence.
    await waitUntil(() => h.events.some((e) => e.eventType === 31) && h.events, { timeoutMs: 20_000, intervalMs: 200, what: 'uploaded event' });
    const mine = h.events.filter((e) => e.payload.sid === sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
    assert.ok(mine.every((e) => e.signed), 'every webhook request is signed');
    const types = mine.map((e) => e.eventType);
    for (const t of [30, 40, 43, 44, 42, 4, 45, 41, 31]) assert.ok(types.includes(t), `event ${t} in ${types.join(',')}`);
    assert.ok(types.indexOf(40) < types.indexOf(42) && types.indexOf(42) < types.indexOf(41) && types.indexOf(41) < types.indexOf(31));
    const uploaded = mine.find((e) => e.eventType === 31)!;
    const list = uploaded.payload.details.fileList as { fileName: string; trackType: string; uid: string; mixedAllUser: boolean }[];
    assert.ok(list.some((f) => f.uid === '101' && f.trackType === 'audio_and_video' && f.fileName.endsWith('.mp4')));
    assert.ok(list.every((f) => f.mixedAllUser === false));
  } finally {
    await h.close();
  }
});

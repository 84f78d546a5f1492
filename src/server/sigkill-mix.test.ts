// A reeltime process recording a mix session is killed with SIGKILL: its encoder and decoders die with it, and the
// next process on the same data dir resumes the session with bak0_ files, uploads every slice the killed one wrote
// (its last, partly written slice too), finishes the first run's playlist and makes each run's MP4
// (docs/recording-mix.md, "Restarts and failover").
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SyntheticPublisher } from '../channel/index.ts';
import { parsePlaylist } from '../media/m3u8.ts';
import { BUCKET, recordingClient, rtcToken, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys, filesUnder, isColour, isSliceFile, probe, slicesMissingFromBucket, slicesOnDisk } from '../recorders/individual/testing/media-checks.ts';
import { sampled } from '../recorders/mix/testing/frames.ts';
import { startServerProcess, waitUntil } from '../testing/index.ts';
import { cleanUpKillTest, killHard, publishSmall } from './sigkill-kit.ts';

const CNAME = 'sigkillmix';
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const REC_UID = '9302';
const PUBLISHERS = [
  { uid: 721, color: 'red', toneHz: 440 },
  { uid: 722, color: 'blue', toneHz: 880 },
] as const;

const publish = (baseUrl: string, p: (typeof PUBLISHERS)[number]) => publishSmall(baseUrl, CNAME, p);

interface FileEntry {
  fileName: string;
  uid: string;
  mixedAllUser: boolean;
  trackType: string;
}

test('SIGKILL of a server recording a mix session: a new server resumes it with bak0_ files, every slice of the killed run uploaded and listed, playlists ended, MP4s playable', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-sigkill-mix-'));
  const recorderDir = join(dataDir, 'recorder');
  const bucketDir = join(dataDir, 'bucket', BUCKET);
  // 4 s slices, not 15 s: an uploaded slice before the kill and one after the restart come in seconds.
  const env = { REELTIME_RECORDING_RATE_LIMIT_PER_SECOND: '0', REELTIME_RECORDING_MIX_SLICE_SECONDS: '4' };
  let publishers: SyntheticPublisher[] = [];
  const first = await startServerProcess({ dataDir, env, readyTimeoutMs: 180_000 });
  try {
    for (const p of PUBLISHERS) publishers.push(await publish(first.url, p));
    const client = recordingClient(first.url, 'mix');
    const { resourceId, sid } = await client.startRecording(CNAME, REC_UID, {
      token: rtcToken(CNAME, Number(REC_UID), 2),
      storageConfig: storageConfig(),
      recordingConfig: {
        channelType: 0,
        streamTypes: 2,
        transcodingConfig: { width: 320, height: 180, fps: 15, bitrate: 300, mixedVideoLayout: 1 },
      },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    });
    // The layout a resumed run must draw is the latest one: vertical with the blue user large on the left (start
    // asked for best fit, which puts the red user there).
    const layout = await client.api('POST', client.path(resourceId, sid, 'updateLayout'), {
      cname: CNAME,
      uid: REC_UID,
      clientRequest: { mixedVideoLayout: 2, maxResolutionUid: String(PUBLISHERS[1].uid) },
    });
    assert.equal(layout.status, 200, JSON.stringify(layout.body));
    const firstSlice = new RegExp(`/${sid}_${CNAME}_\\d{17}\\.ts$`);
    const bakSlice = new RegExp(`/bak0_${sid}_${CNAME}_\\d{17}\\.ts$`);
    const encoderDir = join(recorderDir, 'mix', sid, 'g0', 'mix');

    // A slice in the bucket and the encoder well into the next one when the process dies.
    await waitUntil(() => {
        if (!bucketKeys(bucketDir).some((k) => firstSlice.test(`/${k}`))) return false;
        const onDisk = filesUnder(encoderDir, isSliceFile).sort();
        return onDisk.length >= 2 && statSync(onDisk.at(-1)!).size > 0;
      }, { timeoutMs: 120_000, intervalMs: 200, what: 'an uploaded mix slice and a partly written one' }).catch((e: Error) => {
      throw new Error(`${e.message}\nbucket: ${bucketKeys(bucketDir).join(' ')}\nserver output:\n${first.output()}`);
    });
    const kill = await killHard(first, dataDir);
    // The encoder at least (the users' decoders come and go with their streams and the regions' sizes).
    assert.ok(kill.ffmpegs.length >= 1, 'the mix ffmpeg children seen at the kill');
    assert.deepEqual(kill.survivors, [], 'no child of the killed server is alive 2 s after SIGKILL');
    t.diagnostic(`last child gone ${kill.goneMs.toFixed(0)} ms after SIGKILL (${kill.ffmpegs.length} ffmpeg)`);

    // What the killed process left in its work dirs and in the upload spool: all of it must reach the bucket.
    const written = slicesOnDisk([recorderDir, join(dataDir, 'spool')]);
    const partial = filesUnder(encoderDir, isSliceFile).sort().at(-1)!;
    assert.ok(written.size >= 2, 'slices on disk at the kill');
    await Promise.all(publishers.map((p) => p.kill()));
    publishers = [];

    const second = await startServerProcess({ dataDir, env, readyTimeoutMs: 180_000 });
    try {
      for (const p of PUBLISHERS) publishers.push(await publish(second.url, p));
      const client2 = recordingClient(second.url, 'mix');
      // Until a resumed slice draws the blue user large on the left (the latest layout): on a loaded machine the
      // publishers' video reached the new server's mix more than the first two 4 s slices after it resumed.
      const blueLeft = async (key: string) => {
        const f = await sampled(join(bucketDir, key));
        return Array.from({ length: f.count }, (_, n) => f.px(n, 0.25, 0.5)).some((rgb) => isColour(rgb, BLUE));
      };
      const checked = new Set<string>();
      await waitUntil(async () => {
          for (const k of bucketKeys(bucketDir).filter((k) => bakSlice.test(`/${k}`) && !checked.has(k))) {
            checked.add(k);
            if (await blueLeft(k)) return true;
          }
          return false;
        }, { timeoutMs: 120_000, intervalMs: 500, what: 'a bak0_ slice with the blue user large on the left' }).catch((e: Error) => {
        throw new Error(`${e.message}\nbucket: ${bucketKeys(bucketDir).join(' ')}\nserver output:\n${second.output()}`);
      });

      const playlists = [`${sid}_${CNAME}.m3u8`, `bak0_${sid}_${CNAME}.m3u8`];
      const mp4s = [`${sid}_${CNAME}_0.mp4`, `bak0_${sid}_${CNAME}_0.mp4`];
      const names = (list: FileEntry[]) => list.map((f) => f.fileName.split('/').at(-1)!);
      // The resumed run's playlist is listed once its first slice is uploaded; the first run's from the start.
      const qList = await waitUntil(async () => {
          const q = await client2.api('GET', client2.path(resourceId, sid, 'query'));
          assert.equal(q.status, 200, JSON.stringify(q.body));
          const list = (q.body.serverResponse as { fileList: FileEntry[] }).fileList;
          return list.length === playlists.length ? list : undefined;
        }, { timeoutMs: 60_000, intervalMs: 200, what: 'both playlists in query' });
      assert.deepEqual(names(qList), playlists, 'query lists the first run’s playlist and the resumed one');

      const stop = await client2.api('POST', client2.path(resourceId, sid, 'stop'), { cname: CNAME, uid: REC_UID, clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const sr = stop.body.serverResponse as { fileListMode: string; fileList: FileEntry[]; uploadingStatus: string };
      assert.equal(sr.fileListMode, 'json');
      // backuped when the killed process's spooled files were still leased to it: the spool adopts them after.
      assert.ok(['uploaded', 'backuped'].includes(sr.uploadingStatus), sr.uploadingStatus);
      assert.deepEqual(names(sr.fileList), [...playlists, ...mp4s], 'stop lists both playlists, then each run’s MP4');
      for (const f of sr.fileList) {
        assert.equal(f.uid, '0');
        assert.equal(f.mixedAllUser, true);
        assert.equal(f.trackType, 'audio_and_video');
      }

      await waitUntil(() => slicesMissingFromBucket(written, bucketDir).length === 0, { timeoutMs: 120_000, intervalMs: 200, what: 'the spool to finish' }).catch(() => undefined);
      assert.deepEqual(slicesMissingFromBucket(written, bucketDir), [], 'every slice written before the kill is in the bucket');
      const keys = bucketKeys(bucketDir);
      const local = (name: string) => join(bucketDir, keys.find((k) => k.endsWith(`/${name}`)) ?? assert.fail(`${name} in the bucket`));
      for (const name of playlists) {
        const pl = parsePlaylist(readFileSync(local(name), 'utf8'), 'video');
        assert.ok(pl.ended, `${name} ends with #EXT-X-ENDLIST`);
        assert.equal(pl.entries.filter((e) => e.discontinuity).length, 0, `${name}: one continuous stream`);
        for (const e of pl.entries) assert.ok(keys.some((k) => k.endsWith(`/${e.uri}`)), `${e.uri} of ${name} in the bucket`);
        // REELTIME_RECORDING_MIX_SLICE_SECONDS reaches the mix encoder: every slice but a run's last lasts 4 s.
        const full = pl.entries.slice(0, -1).map((e) => e.durationSec);
        assert.ok(full.length > 0 && full.every((d) => Math.abs(d - 4) < 0.5), `${name}: 4 s slices (${full.join(', ')})`);
        if (name === playlists[0]) assert.ok(pl.entries.every((e) => !e.uri.startsWith('bak')), 'the first run keeps its names');
        else assert.ok(pl.entries.every((e) => e.uri.startsWith('bak0_')), 'the resumed run writes bak0_ names');
      }
      assert.ok([...written.values()].includes(partial), 'the partly written slice is among them');

      // Playable: each playlist and each MP4 is H.264 + AAC, and each run's MP4 holds its playlist's media.
      for (const [i, name] of playlists.entries()) {
        const hls = await probe(local(name));
        const mp4 = await probe(local(mp4s[i]!));
        assert.deepEqual([...hls.codecs].sort(), ['aac', 'h264'], `${name} codecs`);
        assert.deepEqual([...mp4.codecs].sort(), ['aac', 'h264'], `${mp4s[i]} codecs`);
        assert.equal(hls.width, 320);
        assert.ok(hls.duration > 1, `${name} lasts ${hls.duration} s`);
        assert.ok(Math.abs(mp4.duration - hls.duration) < 2, `${mp4s[i]} (${mp4.duration} s) holds ${name} (${hls.duration} s)`);
        t.diagnostic(`${name}: ${hls.duration.toFixed(1)} s, ${mp4s[i]}: ${mp4.duration.toFixed(1)} s`);
      }
      // The resumed run draws the latest layout: blue in the large region on the left, never red.
      const frames = await sampled(local(mp4s[1]!));
      const left = Array.from({ length: frames.count }, (_, n) => frames.px(n, 0.25, 0.5));
      const named = left.map((rgb) => (isColour(rgb, BLUE) ? 'blue' : isColour(rgb, RED) ? 'red' : rgb.join('/')));
      assert.ok(left.some((rgb) => isColour(rgb, BLUE)), `the blue user large on the left after the restart: ${named.join(' ')}`);
      assert.ok(!left.some((rgb) => isColour(rgb, RED)), 'never the red user there (start’s best fit)');
    } finally {
      await Promise.all(publishers.map((p) => p.kill()));
      await second.close();
    }
  } finally {
    await cleanUpKillTest(first, publishers, dataDir);
  }
});

// A reeltime process killed with SIGKILL (OOM killer, crash) takes its ffmpeg children with it, and the next
// process on the same data dir resumes the recording without losing a slice the killed one wrote.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SyntheticPublisher } from '../channel/index.ts';
import { parsePlaylist } from '../media/m3u8.ts';
import { childrenOf } from '../process/index.ts';
import { BUCKET, recordingClient, rtcToken, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys, filesUnder, isSliceFile as isSlice, slicesMissingFromBucket, slicesOnDisk } from '../recorders/individual/testing/media-checks.ts';
import { startServerProcess, waitUntil } from '../testing/index.ts';
import { cleanUpKillTest, killHard, publishSmall } from './sigkill-kit.ts';

const CNAME = 'sigkill';
const PUBLISHERS = [
  { uid: 701, color: 'red', toneHz: 440 },
  { uid: 702, color: 'blue', toneHz: 880 },
] as const;
const KINDS = ['audio', 'video'] as const;

const publish = (baseUrl: string, p: (typeof PUBLISHERS)[number]) => publishSmall(baseUrl, CNAME, p);

test('SIGKILL of the server kills its ffmpeg children; a new server resumes and uploads every slice written before the kill', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-sigkill-'));
  const recorderDir = join(dataDir, 'recorder');
  const bucketDir = join(dataDir, 'bucket', BUCKET);
  // 4 s slices, not 15 s: the uploaded slice before the kill, and the first bak0_ one after it, come in seconds.
  const env = { REELTIME_RECORDING_RATE_LIMIT_PER_SECOND: '0', REELTIME_RECORDING_INDIVIDUAL_SLICE_SECONDS: '4' };
  let publishers: SyntheticPublisher[] = [];
  const first = await startServerProcess({ dataDir, env });
  try {
    for (const p of PUBLISHERS) publishers.push(await publish(first.url, p));
    const client = recordingClient(first.url);
    const { resourceId, sid } = await client.startRecording(CNAME, '9301', {
      token: rtcToken(CNAME, 9301, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2 },
      recordingFileConfig: { avFileType: ['hls'] },
    });

    // Every track has a slice in the bucket and the next one partly on disk when the process dies.
    await waitUntil(() =>
        PUBLISHERS.every((p) =>
          KINDS.every((kind) => {
            const track = `__uid_s_${p.uid}__uid_e_${kind}`;
            const uploaded = bucketKeys(bucketDir).some((k) => k.includes(track) && isSlice(k));
            const onDisk = filesUnder(recorderDir, isSlice).filter((f) => f.includes(`/${p.uid}-${kind}/`));
            const newest = onDisk.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
            return uploaded && newest !== undefined && statSync(newest).size > 0;
          }),
        ), { timeoutMs: 120_000, intervalMs: 200, what: 'an uploaded slice and a partly written one on every track' });
    const slicers = childrenOf(first.pid).filter((p) => p.argv[0] === 'ffmpeg');
    assert.equal(slicers.length, PUBLISHERS.length * KINDS.length, `one ffmpeg per track:\n${slicers.map((p) => p.argv.join(' ')).join('\n')}`);

    const kill = await killHard(first, dataDir);
    assert.deepEqual(kill.survivors, [], 'no child of the killed server is alive 2 s after SIGKILL');
    t.diagnostic(`last child gone ${kill.goneMs.toFixed(0)} ms after SIGKILL (${kill.ffmpegs.length} ffmpeg)`);

    // What the killed process left: slices in its work dirs and in the upload spool. All must reach the bucket.
    const written = slicesOnDisk([recorderDir, join(dataDir, 'spool')]);
    assert.ok(written.size >= PUBLISHERS.length * KINDS.length, 'slices on disk at the kill');
    await Promise.all(publishers.map((p) => p.kill()));
    publishers = [];

    const second = await startServerProcess({ dataDir, env });
    try {
      for (const p of PUBLISHERS) publishers.push(await publish(second.url, p));
      await waitUntil(() => PUBLISHERS.every((p) => bucketKeys(bucketDir).some((k) => k.includes(`/bak0_${sid}_`) && k.includes(`__uid_s_${p.uid}__uid_e_audio`) && isSlice(k))), { timeoutMs: 120_000, intervalMs: 200, what: 'bak0_ slices of both publishers after the restart' }).catch((e: Error) => {
        throw new Error(`${e.message}\nbucket: ${bucketKeys(bucketDir).join(' ')}\nserver output:\n${second.output()}`);
      });
      const stop = await recordingClient(second.url).api('POST', client.path(resourceId, sid, 'stop'), { cname: CNAME, uid: '9301', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const list = (stop.body.serverResponse as { fileList: { fileName: string }[] }).fileList.map((f) => f.fileName);
      assert.ok(list.some((f) => f.includes(`/${sid}_`)) && list.some((f) => f.includes(`/bak0_${sid}_`)), list.join('\n'));

      const keys = bucketKeys(bucketDir);
      for (const p of PUBLISHERS) {
        for (const kind of KINDS) {
          const name = `${sid}_${CNAME}__uid_s_${p.uid}__uid_e_${kind}.m3u8`;
          const key = keys.find((k) => k.endsWith(`/${name}`));
          assert.ok(key, `first run's ${name} in the bucket`);
          const pl = parsePlaylist(readFileSync(join(bucketDir, key), 'utf8'), kind);
          assert.ok(pl.ended, `${name} is finished`);
          for (const e of pl.entries) assert.ok(keys.some((k) => k.endsWith(`/${e.uri}`)), `${e.uri} of ${name} in the bucket`);
        }
      }
      assert.deepEqual(slicesMissingFromBucket(written, bucketDir), [], 'every slice written before the kill is in the bucket');
    } finally {
      await Promise.all(publishers.map((p) => p.kill()));
      await second.close();
    }
  } finally {
    await cleanUpKillTest(first, publishers, dataDir);
  }
});

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
import { openTestDatabase, waitUntil } from '../../testing/index.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, probe, slicesWritten } from './testing/media-checks.ts';

/** Our own ffmpeg children working under `dir` (the slicers run in their stream's directory): killed to simulate a crash. */
function killSlicers(dir: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && cmd.startsWith('ffmpeg') && readlinkSync(`/proc/${pid}/cwd`).startsWith(dir)) {
        process.kill(Number(pid), 'SIGKILL');
        n++;
      }
    } catch {
      /* gone */
    }
  }
  return n;
}

/** Slice length: the first slice, and the first after the restart, come in seconds (32 KiB of a slice's audio is 2 s). */
const SLICE_SECONDS = 4;

test('a recorder restart resumes with bak0_ names and loses no slice the first run wrote', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-restart-'));
  const database = await openTestDatabase('sqlite');
  try {
    const cname = 'ind-restart';
    const first = await startHarness({ dataDir, database, recording: { individualSliceSeconds: SLICE_SECONDS } });
    await first.publish({ cname, uid: 601, color: 'red', toneHz: 440, codec: 'h264' });
    const { resourceId, sid } = await first.startRecording(cname, '9201', {
      token: rtcToken(cname, 9201, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    // One slice uploaded, the next one half written when the process "crashes".
    await waitUntil(() => bucketKeys(first.bucketDir).some((k) => k.endsWith('.ts')), { timeoutMs: 60_000, intervalMs: 200, what: 'first slice' });
    // Wait until the next slice (the slicer's slice_00001 or later) has reached the disk in part: a few seconds of it.
    await waitUntil(
      () => slicesWritten(join(dataDir, 'recorder'), 32 * 1024).some((f) => !f.endsWith('/slice_00000.ts')),
      { timeoutMs: 60_000, intervalMs: 100, what: 'the next slice written in part' },
    );
    assert.ok(killSlicers(join(dataDir, 'recorder')) >= 1, 'a slicer was running');
    await first.close();

    const second = await startHarness({ dataDir, database, recording: { individualSliceSeconds: SLICE_SECONDS } });
    try {
      await second.publish({ cname, uid: 601, color: 'red', toneHz: 440, codec: 'h264' });
      await waitUntil(() => bucketKeys(second.bucketDir).some((k) => k.includes('/bak0_') && k.endsWith('.ts')), { timeoutMs: 60_000, intervalMs: 200, what: 'a bak0_ slice' });
      const stop = await second.api('POST', second.path(resourceId, sid, 'stop'), { cname, uid: '9201', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      const list = (stop.body.serverResponse as { fileList: { fileName: string }[] }).fileList.map((f) => f.fileName);
      assert.ok(list.some((f) => f.includes(`/${sid}_`)) && list.some((f) => f.includes(`/bak0_${sid}_`)), list.join('\n'));
      const keys = bucketKeys(second.bucketDir);
      const firstPl = keys.find((k) => k.endsWith(`/${sid}_${cname}__uid_s_601__uid_e_audio.m3u8`))!;
      const pl = parsePlaylist(readFileSync(join(second.bucketDir, firstPl), 'utf8'), 'audio');
      assert.ok(pl.ended, 'the first run’s playlist is finished');
      assert.ok(pl.entries.length >= 2, 'the half-written slice was recovered');
      for (const e of pl.entries) {
        assert.ok(keys.includes(`rec/ind/${e.uri}`), `${e.uri} in the bucket`);
        assert.deepEqual((await probe(join(second.bucketDir, 'rec/ind', e.uri))).codecs, ['aac']);
      }
      const bakPl = keys.find((k) => k.endsWith(`/bak0_${sid}_${cname}__uid_s_601__uid_e_audio.m3u8`));
      assert.ok(bakPl, 'bak0_ playlist');
    } finally {
      await second.close();
    }
  } finally {
    await database.close();
    if (!process.env.KEEP) rmSync(dataDir, { recursive: true, force: true });
    else console.log('kept', dataDir);
  }
});

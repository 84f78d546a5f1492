import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitUntil } from '../../testing/wait.ts';
import { APP, rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, probe } from './testing/media-checks.ts';

/** Every file under `dir` whose name ends with one of `exts`. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => exts.some((e) => f.endsWith(e)));
}

test('individual avFileType ["mp4"]: only MP4s in the bucket, the stop answer, event 31 and the sessions API; the local slices removed', async () => {
  const h = await startHarness({ recording: { individualSliceSeconds: 3 } });
  try {
    const cname = 'ind-mp4-only';
    await h.publish({ cname, uid: 301, color: 'red', toneHz: 440, codec: 'h264', mode: 'replay' });
    const { resourceId, sid } = await h.startRecording(cname, '9301', {
      token: rtcToken(cname, 9301, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['mp4'] },
    });
    // Nothing is published while recording: the slices cut locally show that media arrives (several per track).
    const workDir = join(h.server.dataDir, 'recorder', 'individual', sid);
    await waitUntil(() => filesUnder(workDir, ['.ts']).length >= 6, { timeoutMs: 60_000, intervalMs: 200, what: 'local slices' });

    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9301', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = stop.body.serverResponse as { uploadingStatus: string; fileList: { fileName: string; trackType: string; uid: string }[] };
    assert.equal(sr.uploadingStatus, 'uploaded');
    assert.equal(sr.fileList.length, 1, JSON.stringify(sr.fileList));
    assert.ok(sr.fileList[0]!.fileName.endsWith('.mp4'));
    assert.equal(sr.fileList[0]!.uid, '301');
    assert.equal(sr.fileList[0]!.trackType, 'audio_and_video');

    const keys = bucketKeys(h.bucketDir);
    assert.ok(keys.length > 0 && keys.every((k) => k.endsWith('.mp4')), `only MP4s in the bucket: ${keys.join(', ')}`);
    const p = await probe(join(h.bucketDir, keys[0]!));
    assert.deepEqual([...p.codecs].sort(), ['aac', 'h264']);
    assert.ok(p.duration > 5, `MP4 lasts ${p.duration} s`);
    // The intermediate slices are gone once the MP4 is written.
    assert.deepEqual(filesUnder(workDir, ['.ts', '.webm', '.m3u8']), []);

    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 31), { timeoutMs: 20_000, intervalMs: 200, what: 'event 31' });
    const mine = h.events.filter((e) => e.payload.sid === sid);
    const uploaded = mine.find((e) => e.eventType === 31)!;
    const list = uploaded.payload.details.fileList as { fileName: string }[];
    assert.deepEqual(list.map((f) => f.fileName), [sr.fileList[0]!.fileName]);
    assert.ok(!mine.some((e) => e.eventType === 4), 'no playlist announced (event 4)');

    const detail = await h.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const files = detail.body.files as { fileName: string }[];
    assert.deepEqual(files.map((f) => f.fileName), [sr.fileList[0]!.fileName]);
  } finally {
    await h.close();
  }
});

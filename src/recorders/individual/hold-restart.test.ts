import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
import { openTestDatabase, waitUntil } from '../../testing/index.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { queryHold, sessionEvents as eventsOf, setHold } from './testing/hold-api.ts';
import { bucketKeys, probe, sleep, slicesWritten } from './testing/media-checks.ts';

const UID = '9401';
const PUBLISHER = 621;

test('a hold set by update survives a restart: the recovered recorder starts on hold, writes nothing, and resumes on update', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-hold-restart-'));
  const database = await openTestDatabase('sqlite');
  try {
    const cname = 'ind-hold-restart';
    const first = await startHarness({ dataDir, database });
    let rid: string;
    let sid: string;
    try {
      await first.publish({ cname, uid: PUBLISHER, color: 'red', toneHz: 440 });
      ({ resourceId: rid, sid } = await first.startRecording(cname, UID, {
        token: rtcToken(cname, Number(UID), 2),
        storageConfig: storageConfig(),
        recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 0 },
        recordingFileConfig: { avFileType: ['hls'] },
      }));
      // Recording (a stream has started), then paused by update: the hold is the control plane's, not the start's.
      await waitUntil(() => eventsOf(first, sid).some((e) => e.eventType === 43 && e.payload.details.state === 0), { timeoutMs: 60_000, intervalMs: 200, what: 'audio recorded' });
      // Some audio on disk before the hold (the first run's slice must hold media).
      await waitUntil(() => slicesWritten(join(dataDir, 'recorder'), 32 * 1024).length > 0, { timeoutMs: 60_000, intervalMs: 200, what: 'audio on disk' });
      await setHold(first, { rid, sid, cname, uid: UID }, true);
      await waitUntil(() => eventsOf(first, sid).some((e) => e.eventType === 1100), { timeoutMs: 30_000, intervalMs: 200, what: 'event 1100' });
      // The hold ended the stream: its last slice is in the bucket under the first run's names.
      await waitUntil(() => bucketKeys(first.bucketDir).some((k) => k.includes(`/${sid}_`) && k.endsWith('.ts')), { timeoutMs: 30_000, intervalMs: 200, what: 'the first run\'s slice' });
      assert.equal(await queryHold(first, { rid, sid }), true);
    } finally {
      console.log(`first run's events: ${first.events.map((e) => e.eventType).join(',')}`);
      await first.close();
    }

    const second = await startHarness({ dataDir, database });
    try {
      await second.publish({ cname, uid: PUBLISHER, color: 'red', toneHz: 440 });
      // Restart recovery hands the session to a new recorder, which starts in the stored hold.
      await waitUntil(() => eventsOf(second, sid).some((e) => e.eventType === 1100), { timeoutMs: 60_000, intervalMs: 200, what: 'event 1100 from the recovered recorder' });
      assert.equal(await queryHold(second, { rid, sid }), true, 'query still reports the hold');
      // Long enough for the publisher to be linked and, were it not held, for its stream to start.
      await waitUntil(() => eventsOf(second, sid).some((e) => e.eventType === 40), { timeoutMs: 30_000, intervalMs: 200, what: 'recorder started' });
      await sleep(6_000);
      assert.ok(!eventsOf(second, sid).some((e) => e.eventType === 43 && e.payload.details.state === 0), 'no stream started while held');
      assert.deepEqual(bucketKeys(second.bucketDir).filter((k) => k.includes('/bak0_')), [], 'nothing written while held');

      const resumingAt = Date.now();
      await setHold(second, { rid, sid, cname, uid: UID }, false);
      assert.equal(await queryHold(second, { rid, sid }), undefined);
      await waitUntil(() => eventsOf(second, sid).some((e) => e.eventType === 43 && e.payload.details.state === 0), { timeoutMs: 60_000, intervalMs: 200, what: 'audio recorded after the resume' });
      // A few seconds of audio on disk (the slicer's start takes a while on a loaded machine).
      await waitUntil(() => slicesWritten(join(dataDir, 'recorder'), 32 * 1024, resumingAt).length > 0, { timeoutMs: 60_000, intervalMs: 200, what: 'audio on disk after the resume' });
      const stop = await second.api('POST', second.path(rid, sid, 'stop'), { cname, uid: UID, clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));

      const types = eventsOf(second, sid).map((e) => e.eventType);
      const order = [40, 1100, 1101, 43, 41].map((t) => types.indexOf(t));
      assert.ok(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)), `events 40, 1100, 1101, 43, 41 in order: ${types.join(',')}`);
      const resumedAt = eventsOf(second, sid).find((e) => e.eventType === 1101)!.payload.details.UtcMs as number;
      const keys = bucketKeys(second.bucketDir);
      const bakPl = keys.find((k) => k.endsWith(`/bak0_${sid}_${cname}__uid_s_${PUBLISHER}__uid_e_audio.m3u8`));
      assert.ok(bakPl, `bak0_ playlist in ${keys.join('\n')}`);
      const pl = parsePlaylist(readFileSync(join(second.bucketDir, bakPl), 'utf8'), 'audio');
      assert.ok(pl.ended && pl.entries.length > 0);
      for (const e of pl.entries) {
        assert.ok(e.startMs >= resumedAt - 100, `${e.uri} starts ${resumedAt - e.startMs} ms before the resume`);
        assert.deepEqual((await probe(join(second.bucketDir, 'rec/ind', e.uri))).codecs, ['aac']);
      }
    } finally {
      console.log(`second run's events: ${second.events.map((e) => e.eventType).join(',')}`);
      await second.close();
    }
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

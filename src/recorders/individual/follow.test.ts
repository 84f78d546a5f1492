import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { parsePlaylist, parseUserFileName } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, probe, sleep } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

test('late join, early leave and rejoin, update unsubscribing audio: discontinuity and no new audio slices', async () => {
  const h = await startHarness();
  try {
    const cname = 'ind-follow';
    const a = await h.publish({ cname, uid: 201, color: 'green', toneHz: 500 });
    const { resourceId, sid } = await h.startRecording(cname, '9002', {
      token: rtcToken(cname, 9002, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    await sleep(3000);
    const videoStates202 = () =>
      h.events.filter((e) => e.payload.sid === sid && e.eventType === 44 && e.payload.details.streamUid === '202').map((e) => e.payload.details.state);
    // Late join.
    const tJoin202 = Date.now();
    let b = await h.publish({ cname, uid: 202, color: 'yellow', toneHz: 700 });
    // Video is recorded from its first keyframe: wait for it rather than guess how long that takes.
    await waitUntil(() => videoStates202().length >= 1, { timeoutMs: 30_000, intervalMs: 200, what: "202's video being recorded" });
    await sleep(2000);
    // Stop recording 201's audio from now on.
    const tUpdate = Date.now();
    const up = await h.api('POST', h.path(resourceId, sid, 'update'), {
      cname,
      uid: '9002',
      clientRequest: { streamSubscribe: { audioUidList: { unsubscribeAudioUids: ['201'] } }, storageConfig: storageConfig() },
    });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    await sleep(2000);
    // Early leave, then rejoin: 202's playlists get a discontinuity.
    await b.stop();
    await sleep(2000);
    b = await h.publish({ cname, uid: 202, color: 'yellow', toneHz: 700 });
    await waitUntil(() => videoStates202().length >= 3, { timeoutMs: 30_000, intervalMs: 200, what: "202's video being recorded again" });
    await sleep(3000);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9002', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const sr = stop.body.serverResponse as { fileListMode: string; fileList: { fileName: string; uid: string; trackType: string; isPlayable: boolean; sliceStartTime: number }[] };
    assert.equal(sr.fileListMode, 'json');
    assert.deepEqual(sr.fileList.map((f) => `${f.uid}/${f.trackType}`).sort(), ['201/audio', '201/video', '202/audio', '202/video']);
    void a;

    const keys = bucketKeys(h.bucketDir);
    const playlist = (uid: string, kind: 'audio' | 'video') => {
      const key = keys.find((k) => {
        const p = parseUserFileName(k.split('/').pop()!);
        return p?.uid === uid && p.track === kind && p.extension === 'm3u8';
      })!;
      return { key, text: readFileSync(join(h.bucketDir, key), 'utf8') };
    };
    for (const kind of ['audio', 'video'] as const) {
      const p202 = playlist('202', kind);
      assert.equal((p202.text.match(/#EXT-X-DISCONTINUITY/g) ?? []).length, 1, `202 ${kind} playlist:\n${p202.text}`);
      const pl = parsePlaylist(p202.text, kind);
      assert.ok(pl.entries.length >= 2 && pl.ended);
      if (kind === 'audio') {
        // The playlist plays as a whole (ffmpeg's HLS reader crosses the discontinuity).
        const pr = await probe(join(h.bucketDir, p202.key));
        assert.ok(pr.duration > 5, `202 ${kind} playlist plays ${pr.duration} s`);
      }
    }
    // 201's audio: no slice starts after the update (its stream was closed then).
    const a201 = parsePlaylist(playlist('201', 'audio').text, 'audio');
    const lastEnd = Math.max(...a201.entries.map((e) => e.startMs + e.durationSec * 1000));
    // Margins leave room for a loaded machine: audio stops about when the update lands, video goes on for ~9 s.
    assert.ok(lastEnd <= tUpdate + 3000, `201 audio ends ${lastEnd - tUpdate} ms after the update`);
    assert.ok(a201.entries.every((e) => e.startMs < tUpdate));
    const v201 = parsePlaylist(playlist('201', 'video').text, 'video');
    assert.ok(v201.entries.every((e) => !e.discontinuity), '201 video is one unbroken stream');
    // 202 joined late: 201 was recorded before 202 joined, and 202's media starts only after it joined.
    const first202 = parsePlaylist(playlist('202', 'video').text, 'video').entries[0]!.startMs;
    assert.ok(v201.entries[0]!.startMs < tJoin202, '201 recorded before 202 joined');
    assert.ok(first202 >= tJoin202 - 500, `202's first slice starts ${first202 - tJoin202} ms after it joined`);
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 31), { timeoutMs: 20_000, intervalMs: 200, what: 'uploaded event' });
    const states = h.events.filter((e) => e.payload.sid === sid && e.eventType === 43 && e.payload.details.streamUid === '202');
    assert.deepEqual(states.map((e) => e.payload.details.state), [0, 1, 0, 1], 'audio state of 202: receiving, gone, receiving, gone');
    // In event order (not wall time, which a loaded machine stretches): 201's audio stops at the update, before 202
    // leaves; 201's video goes on until the stop, after 202 came back.
    const seq = (type: number, uid: string, state: number, nth = 0) =>
      h.events.filter((e) => e.payload.sid === sid && e.eventType === type && e.payload.details.streamUid === uid && e.payload.details.state === state)[nth]
        ?.payload.sequence ?? NaN;
    assert.ok(seq(43, '201', 1) < seq(43, '202', 1), "201's audio stopped before 202 left");
    assert.ok(seq(44, '201', 1) > seq(44, '202', 0, 1), "201's video still recorded after 202 came back");
  } finally {
    await h.close();
  }
});

test('maxIdleTime on the injected clock: leaves with code 4, uploads, later calls 404', async () => {
  const clock = new ManualClock(Date.now());
  const h = await startHarness({ clock });
  try {
    const cname = 'ind-idle';
    const pub = await h.publish({ cname, uid: 301, color: 'red', toneHz: 440 });
    const { resourceId, sid } = await h.startRecording(cname, '9003', {
      token: rtcToken(cname, 9003, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, maxIdleTime: 5, streamTypes: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    // Some audio on disk (the local slice grows as packets arrive), so the bucket gets a slice at the end.
    const slice = join(h.server.dataDir, 'recorder', 'individual', sid, 'g0', '301-audio', 's1', 'slice_00000.ts');
    await waitUntil(() => fileSize(slice) > 16_000, { timeoutMs: 30_000, intervalMs: 200, what: 'two seconds of audio sliced' });
    // A minute on the injected clock: one uploading_progress event (33) with a 0..10000 progress.
    clock.advance(60_000);
    const progress = await waitUntil(() => h.events.find((e) => e.payload.sid === sid && e.eventType === 33), { timeoutMs: 20_000, intervalMs: 200, what: 'uploading_progress' });
    assert.equal(progress.payload.serviceType, 2);
    const p = progress.payload.details.progress as number;
    assert.ok(Number.isInteger(p) && p >= 0 && p <= 10000, `progress ${p}`);
    await pub.stop();
    // Nobody left: nothing happens until the clock passes maxIdleTime.
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 43 && e.payload.details.state === 1), { timeoutMs: 20_000, intervalMs: 200, what: 'audio gone' });
    // Idle time runs only on the injected clock: 4 s of 5 leave the session recording, 1.5 s more end it.
    clock.advance(4000);
    const q = await h.api('GET', h.path(resourceId, sid, 'query'));
    assert.equal(q.status, 200);
    assert.ok(![6, 7].includes((q.body.serverResponse as { status: number }).status), 'still recording');
    assert.ok(!h.events.some((e) => e.payload.sid === sid && e.eventType === 41), 'no recorder_leave yet');
    clock.advance(1500);
    await waitUntil(async () => (await h.api('GET', h.path(resourceId, sid, 'query'))).status === 404, { timeoutMs: 30_000, intervalMs: 200, what: 'query 404 after idle exit' });
    const leave = h.events.find((e) => e.payload.sid === sid && e.eventType === 41);
    assert.equal(leave?.payload.details.leaveCode, 4);
    const keys = bucketKeys(h.bucketDir).filter((k) => k.includes(sid));
    assert.ok(keys.some((k) => k.endsWith('__uid_e_audio.m3u8')));
    assert.ok(keys.some((k) => k.endsWith('.ts')));
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9003', clientRequest: {} });
    assert.equal(stop.status, 404);
  } finally {
    await h.close();
  }
});

test('a bad token ends the session with an error event; a profile mismatch records nothing and says so', async () => {
  const h = await startHarness();
  try {
    const cname = 'ind-refuse';
    await h.publish({ cname, uid: 401, color: 'red', toneHz: 440 });
    const bad = await h.startRecording(cname, '9004', {
      token: rtcToken('another-channel', 9004, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const err = await waitUntil(() => h.events.find((e) => e.payload.sid === bad.sid && e.eventType === 1), { timeoutMs: 20_000, intervalMs: 200, what: 'error event' });
    assert.equal(err.payload.details.module, 0);
    assert.match(String(err.payload.details.errorMsg), /token/);
    await waitUntil(async () => (await h.api('GET', h.path(bad.resourceId, bad.sid, 'query'))).status === 404, { timeoutMs: 20_000, intervalMs: 200, what: 'session ended' });

    const live = await h.startRecording(cname, '9005', {
      token: rtcToken(cname, 9005, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 1, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const warn = await waitUntil(() => h.events.find((e) => e.payload.sid === live.sid && e.eventType === 2), { timeoutMs: 20_000, intervalMs: 200, what: 'warning event' });
    assert.match(String(warn.payload.details.warnMsg), /profile/);
    await sleep(2000);
    const stop = await h.api('POST', h.path(live.resourceId, live.sid, 'stop'), { cname, uid: '9005', clientRequest: {} });
    assert.ok(stop.status === 200 || stop.status === 206, JSON.stringify(stop.body));
    assert.equal(bucketKeys(h.bucketDir).filter((k) => k.includes(live.sid)).length, 0, 'nothing recorded');
  } finally {
    await h.close();
  }
});

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

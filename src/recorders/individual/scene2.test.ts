import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys, centrePixel, isColour, probe, sleep } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

test('scene 2: postponed transcoding (one MP4 per user) and postponed audio mixing (one M4A of all users)', async () => {
  const h = await startHarness();
  try {
    const cname = 'ind-scene2';
    // Replayed publishers: live encoders fall behind real time on a loaded machine (docs/channel.md).
    await h.publish({ cname, uid: 501, color: 'red', toneHz: 440, codec: 'vp8', mode: 'replay' });
    await h.publish({ cname, uid: 502, color: 'blue', toneHz: 880, codec: 'h264', mode: 'replay' });
    const base = {
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
      appsCollection: { combinationPolicy: 'postpone_transcoding' },
    };
    const tr = await h.startRecording(cname, '9101', { ...base, token: rtcToken(cname, 9101, 2), transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' }, container: { format: 'mp4' } } }, 2);
    const mx = await h.startRecording(cname, '9102', {
      ...base,
      token: rtcToken(cname, 9102, 2),
      transcodeOptions: { transConfig: { transMode: 'audioMix' }, container: { format: 'm4a' }, audio: { sampleRate: '32000', bitrate: '64000', channels: '1' } },
    }, 2);
    await sleep(9000);
    for (const [r, uid] of [[tr, '9101'], [mx, '9102']] as const) {
      const stop = await h.api('POST', h.path(r.resourceId, r.sid, 'stop'), { cname, uid, clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
    }
    const keys = bucketKeys(h.bucketDir);
    /** Seconds in a session's playlist of one user and kind. */
    const recorded = (sid: string, uid: string, kind: 'audio' | 'video') => {
      const key = keys.find((k) => k.endsWith(`${sid}_${cname}__uid_s_${uid}__uid_e_${kind}.m3u8`))!;
      return parsePlaylist(readFileSync(join(h.bucketDir, key), 'utf8'), kind).entries.reduce((a, e) => a + e.durationSec, 0);
    };
    for (const [uid, colour] of [['501', [255, 0, 0]], ['502', [0, 0, 255]]] as const) {
      const key = keys.find((k) => k.endsWith(`${tr.sid}_${cname}__uid_s_${uid}__uid_e_av.mp4`));
      assert.ok(key, `transcoded MP4 of ${uid} in ${keys.join('\n')}`);
      const p = await probe(join(h.bucketDir, key));
      assert.deepEqual([...p.codecs].sort(), ['aac', 'h264']);
      const v = recorded(tr.sid, uid, 'video');
      const a = recorded(tr.sid, uid, 'audio');
      assert.ok(v > 5 && Math.abs(p.duration - Math.max(a, v)) < 1.5, `MP4 of ${uid}: ${p.duration} s for ${a} s audio, ${v} s video`);
      assert.ok(isColour(await centrePixel(join(h.bucketDir, key), 3), colour));
    }
    const mixKey = keys.find((k) => k.endsWith(`${mx.sid}_${cname}.m4a`));
    assert.ok(mixKey, 'mixed audio file');
    const mp = await probe(join(h.bucketDir, mixKey));
    assert.deepEqual(mp.codecs, ['aac']);
    assert.equal(mp.sampleRate, 32000);
    assert.equal(mp.channels, 1);
    const longest = Math.max(recorded(mx.sid, '501', 'audio'), recorded(mx.sid, '502', 'audio'));
    assert.ok(longest > 5 && Math.abs(mp.duration - longest) < 1.5, `mix lasts ${mp.duration} s for ${longest} s of audio`);
    await waitUntil(() => h.events.filter((e) => e.eventType === 1001).length === 2 && h.events, { timeoutMs: 20_000, intervalMs: 200, what: 'final results' });
    for (const r of [tr, mx]) {
      const ev = h.events.filter((e) => e.payload.sid === r.sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
      const types = ev.map((e) => e.eventType);
      assert.ok(types.indexOf(80) >= 0 && types.indexOf(80) < types.indexOf(81) && types.indexOf(81) < types.indexOf(1001), types.join(','));
      const final = ev.find((e) => e.eventType === 1001)!;
      assert.equal(final.payload.details.result, 'total_success');
    }
    const done = h.events.find((e) => e.payload.sid === tr.sid && e.eventType === 81)!;
    assert.equal(done.payload.details.result, 'all_success');
    assert.deepEqual((done.payload.details.uids as { uid: string }[]).map((u) => u.uid).sort(), ['501', '502']);
  } finally {
    await h.close();
  }
});

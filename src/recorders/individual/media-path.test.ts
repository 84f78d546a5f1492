import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChannelModule, TapParams } from '../../channel/index.ts';
import { parsePlaylist } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig, type Harness } from './testing/harness.ts';
import { bucketKeys, centrePixel, isColour, probe } from './testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';

const RED = [255, 0, 0];

/** The real channel module of the harness's process, with its `tap` calls recorded (the tap itself still runs). */
function spyOnTaps(h: Harness): TapParams[] {
  const channel = h.server.modules.find((m) => m.name === 'channel') as ChannelModule;
  const calls: TapParams[] = [];
  const tap = channel.tap.bind(channel);
  (channel as { tap: ChannelModule['tap'] }).tap = (p) => {
    calls.push(p);
    return tap(p);
  };
  return calls;
}

/** Slice length of these recordings: short, so that a recording of two slices each takes seconds, not half a minute. */
const SLICE_SECONDS = 4;

/** One VP8 red / 440 Hz publisher recorded until each stream has two slices; every slice probed. */
async function recordAndCheck(h: Harness, cname: string): Promise<void> {
  await h.publish({ cname, uid: 301, color: 'red', toneHz: 440, codec: 'vp8' });
  const { resourceId, sid } = await h.startRecording(cname, '9301', {
    token: rtcToken(cname, 9301, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const slicesOf = (kind: string) => bucketKeys(h.bucketDir).filter((k) => k.includes(`__uid_s_301__uid_e_${kind}_`) && /\.(ts|webm)$/.test(k)).length;
  await waitUntil(() => slicesOf('audio') >= 2 && slicesOf('video') >= 2, { timeoutMs: 90_000, intervalMs: 200, what: 'two slices of each kind' });
  const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9301', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const keys = bucketKeys(h.bucketDir);
  for (const [kind, ext, codec] of [
    ['audio', 'ts', 'aac'],
    ['video', 'webm', 'vp8'],
  ] as const) {
    const plKey = keys.find((k) => k.endsWith(`__uid_s_301__uid_e_${kind}.m3u8`));
    assert.ok(plKey, `${kind} playlist in ${keys.join(', ')}`);
    const pl = parsePlaylist(readFileSync(join(h.bucketDir, plKey)).toString('utf8'), kind);
    assert.ok(pl.ended);
    const total = pl.entries.reduce((s, e) => s + e.durationSec, 0);
    // At least one full slice each (when each stream's first keyframe arrives depends on the machine's load).
    assert.ok(total >= SLICE_SECONDS, `${kind}: ${total} s recorded`);
    const slices = keys.filter((k) => k.includes(`__uid_s_301__uid_e_${kind}_`) && k.endsWith(`.${ext}`));
    assert.equal(slices.length, pl.entries.length);
    let probed = 0;
    for (const s of slices) {
      const p = await probe(join(h.bucketDir, s));
      assert.deepEqual(p.codecs, [codec], `${s} codec`);
      probed += p.duration;
    }
    assert.ok(Math.abs(probed - total) < 1, `${kind}: slices ${probed} s vs playlist ${total} s`);
    if (kind === 'video') assert.ok(isColour(await centrePixel(join(h.bucketDir, slices.sort()[0]!), 1), RED), 'the first video slice is red');
  }
}

test('in-process tap (the default beside the SFU): a WHIP publisher recorded into probed slices, no WHEP hop', async () => {
  const h = await startHarness({ recording: { individualSliceSeconds: SLICE_SECONDS } });
  try {
    const taps = spyOnTaps(h);
    await recordAndCheck(h, 'ind-tap');
    assert.deepEqual(
      taps.map((t) => [t.cname, t.uid, t.publisher, [...t.kinds].sort(), t.profile]),
      [['ind-tap', 9301, 301, ['audio', 'video'], 'communication']],
      'the recorder subscribed through the tap as its task uid',
    );
  } finally {
    await h.close();
  }
});

test('recording.mediaPath whep: the same recording over a loopback WHEP subscription', async () => {
  const h = await startHarness({ recording: { mediaPath: 'whep', individualSliceSeconds: SLICE_SECONDS } });
  try {
    const taps = spyOnTaps(h);
    await recordAndCheck(h, 'ind-whep');
    assert.equal(taps.length, 0, 'no tap with mediaPath whep');
  } finally {
    await h.close();
  }
});

test('recording.mediaPath whep: a first WHEP session that never connects is replaced and the recording still gets slices', async () => {
  // The SFU's first answer carries a wrong ICE password: the recorder's connectivity checks fail, as when ICE/DTLS
  // never completes on a loaded host. Later answers are left alone.
  const ids: string[] = [];
  const deleted: string[] = [];
  const h = await startHarness({
    recording: { mediaPath: 'whep', individualSliceSeconds: SLICE_SECONDS },
    sfuTestHooks: {
      onSubscribed: ({ id, answer }) => {
        ids.push(id);
        return ids.length === 1 ? answer.replace(/^a=ice-pwd:.*$/gm, 'a=ice-pwd:0000000000000000000000') : undefined;
      },
      onEnd: (id, reason) => {
        if (reason === 'deleted') deleted.push(id);
      },
    },
  });
  try {
    const cname = 'ind-whep-retry';
    await h.publish({ cname, uid: 302, color: 'red', toneHz: 440, codec: 'vp8' });
    const { resourceId, sid } = await h.startRecording(cname, '9302', {
      token: rtcToken(cname, 9302, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    await waitUntil(() => ['ts', 'webm'].every((ext) => bucketKeys(h.bucketDir).some((k) => k.endsWith(`.${ext}`))), { timeoutMs: 120_000, intervalMs: 200, what: 'a slice of each kind' });
    assert.ok(ids.length >= 2, `WHEP subscriptions made: ${ids.length}`);
    assert.ok(deleted.includes(ids[0]!), 'the stuck WHEP session was deleted by the recorder');
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9302', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    for (const [kind, ext, codec] of [
      ['audio', 'ts', 'aac'],
      ['video', 'webm', 'vp8'],
    ] as const) {
      const slice = bucketKeys(h.bucketDir).find((k) => k.includes(`__uid_s_302__uid_e_${kind}_`) && k.endsWith(`.${ext}`));
      assert.ok(slice, `a ${kind} slice`);
      assert.deepEqual((await probe(join(h.bucketDir, slice))).codecs, [codec]);
    }
  } finally {
    await h.close();
  }
});

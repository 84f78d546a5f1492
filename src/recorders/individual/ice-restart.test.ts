// A publisher whose network changes mid-recording (the relay in front of the node rebinds: new address, the old one
// gone) restarts ICE through a WHIP PATCH: its session, uid and recording go on, at most one discontinuity.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freeShiftedRanges } from '../../impairment/testing/index.ts';
import { portRangeMappings, startImpairmentRelay } from '../../impairment/index.ts';
import { waitUntil } from '../../testing/wait.ts';
import { measureRecordedStreams } from '../common/testing/whep-switch.ts';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { bucketKeys } from './testing/media-checks.ts';

const SLICE_SECONDS = 4;

test('ICE restart mid-recording: the publisher keeps its session and uid, the recording goes on with at most one discontinuity', async (t) => {
  const ports = 6;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const h = await startHarness({
    channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 },
    recording: { individualSliceSeconds: SLICE_SECONDS },
  });
  const relay = await startImpairmentRelay({
    mappings: portRangeMappings({ address: '127.0.0.1', port: nodeMin + offset }, { address: '127.0.0.1', port: nodeMin }, ports),
  });
  try {
    const cname = 'ice-restart-rec';
    const uid = 311;
    const pub = await h.publish({ cname, uid, color: 'red', toneHz: 440, codec: 'h264' });
    const recUid = '9311';
    const { resourceId, sid } = await h.startRecording(cname, recUid, {
      token: rtcToken(cname, Number(recUid), 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const slicesOf = (kind: 'audio' | 'video') => bucketKeys(h.bucketDir).filter((x) => x.includes(`__uid_s_${uid}__uid_e_${kind}_`)).length;
    const kinds = ['audio', 'video'] as const;
    await waitUntil(() => kinds.every((k) => slicesOf(k) >= 2), { timeoutMs: 120_000, intervalMs: 200, what: 'two slices of each kind' });

    const location = pub.whip.location;
    const downBefore = relay.counters.downstream.packetsOut;
    await relay.rebind();
    // The publisher now reaches the node from a new address (the node follows its next check there); it restarts.
    const upAtRebind = relay.counters.upstream.packetsIn;
    await waitUntil(() => relay.counters.upstream.packetsIn > upAtRebind + 50, { what: 'the publisher still sending' });
    const restartedAt = Date.now();
    await pub.whip.restartIce();
    t.diagnostic(`ICE restart: ${Date.now() - restartedAt} ms`);
    await waitUntil(() => relay.counters.downstream.packetsOut > downBefore, { what: 'the node answering on the new path' });

    const atRestart = kinds.map((k) => slicesOf(k));
    await waitUntil(() => kinds.every((k, i) => slicesOf(k) >= atRestart[i]! + 2), { timeoutMs: 90_000, intervalMs: 200, what: 'two slices of each kind after the restart' });
    assert.equal(pub.whip.location, location, 'the same WHIP session');
    assert.equal(pub.whip.pc.connectionState, 'connected');
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: recUid, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.deepEqual(
      h.events.filter((e) => e.payload.sid === sid && e.eventType === 1).map((e) => e.payload.details),
      [],
      'no error event (1)',
    );
    for (const m of await measureRecordedStreams(h, uid, t)) {
      assert.ok(m.discontinuities <= 1, `${m.kind}: at most one discontinuity (${m.discontinuities})`);
      assert.equal(m.backwards, 0, `${m.kind}: timestamps never go backwards within a stream`);
      assert.ok(m.maxGapSec < 3, `${m.kind}: largest gap within a stream ${m.maxGapSec} s`);
      assert.equal(m.decodeErrors, '', `${m.kind}: each stream decodes`);
    }
    // One uid throughout: no playlist of another uid.
    const uids = new Set(bucketKeys(h.bucketDir).flatMap((k) => [.../__uid_s_(\d+)__uid_e_/.exec(k)?.slice(1) ?? []]));
    assert.deepEqual([...uids], [String(uid)]);
  } finally {
    await relay.close();
    await h.close();
  }
});

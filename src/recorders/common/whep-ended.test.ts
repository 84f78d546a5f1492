// A recorder's WHEP session ended by the channel node. The node tells the recorder's peer (DTLS close_notify), which
// closes at once and is replaced within the slicer's input timeout: one stream, a short gap. A node that is gone
// (its process or network; here a session ended silently) is noticed only when ICE consent fails (~30 s later):
// the slicer times out first and the replacement starts a new stream after a discontinuity (ffprobe,
// docs/recording-individual.md); mix: no recorder error (event 1) either.
// Mostly waiting on ICE consent, but its streams must show no gap over a second: in scripts/test-lanes.mjs it is
// timing-sensitive (PAIRED), since at nice 19 beside busier files it recorded gaps of 1.7-1.9 s.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { bucketKeys } from '../individual/testing/media-checks.ts';
import { waitUntil } from '../../testing/wait.ts';
import { recordAcross, type WhepSession } from './testing/whep-switch.ts';

test('WHEP session ended by the channel node, which tells the recorder: replaced at once, one stream with a short gap, no error event', async (t) => {
  const { measured: m, errors, slicerExits } = await recordAcross(t, 'ind-whep-told', 307, async (made) => void (await made[0]!.end('connection_failed')));
  assert.deepEqual(errors, [], `no error event (1); ${JSON.stringify(slicerExits)}`);
  for (const r of m) {
    assert.equal(r.discontinuities, 0, `${r.kind}: one stream (the replacement came before the slicer's input timeout)`);
    assert.ok(r.maxGapSec < 5, `${r.kind}: the switch is a short gap within the stream (${r.maxGapSec} s)`);
    assert.equal(r.backwards, 0, `${r.kind}: timestamps never go backwards within a stream`);
    assert.equal(r.decodeErrors, '', `${r.kind}: each stream decodes`);
  }
});

test('WHEP session of a channel node that is gone (ended silently): the slicer times out first (no error event); the replacement starts a new stream after a discontinuity', async (t) => {
  const { measured: m, errors, states, slicerExits } = await recordAcross(t, 'ind-whep-end', 304, async (made) => void (await made[0]!.end('connection_failed', { silently: true })));
  // Only media was missing: the slicers' input timeout is a clean end of each stream, not a recorder error.
  assert.deepEqual(errors, [], `no error event (1); ${JSON.stringify(slicerExits)}`);
  for (const s of states) {
    // Received, not received (the slicer's input timed out), received again (and not received after the stop).
    assert.ok(s.length >= 3 && s.every((x, i) => x === i % 2) && s.filter((x) => x === 0).length === 2, `stream states ${JSON.stringify(s)}`);
  }
  for (const r of m) {
    assert.equal(r.discontinuities, 1, `${r.kind}: the replacement's stream is marked`);
    assert.equal(r.backwards, 0, `${r.kind}: timestamps never go backwards within a stream`);
    assert.ok(r.maxGapSec < 1, `${r.kind}: no gap within a stream (${r.maxGapSec} s)`);
    assert.ok(Math.abs(r.probedSec - r.listedSec) < 1.5, `${r.kind}: slices ${r.probedSec} s vs playlist ${r.listedSec} s`);
    assert.equal(r.decodeErrors, '', `${r.kind}: each stream decodes`);
  }
});

test('mix: a WHEP session ended by the channel node raises no error event; the replacement comes at once', async (t) => {
  // The mix encoder is fed by the frame clock throughout; a decoder whose input went quiet ends on ffmpeg's input
  // timeout and is restarted by the next packet: nothing here is a recorder error.
  const made: WhepSession[] = [];
  const h = await startHarness({ mode: 'mix', recording: { mediaPath: 'whep', mixSliceSeconds: 4 }, sfuTestHooks: { onSubscribed: ({ end }) => void made.push({ end }) } });
  try {
    const cname = 'mix-whep-end';
    await h.publish({ cname, uid: 306, color: 'red', toneHz: 440, width: 160, height: 90 });
    const { resourceId, sid } = await h.startRecording(cname, '9306', {
      token: rtcToken(cname, 9306, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0 },
    });
    await waitUntil(() => bucketKeys(h.bucketDir).some((k) => k.includes(sid) && k.endsWith('.ts')), { timeoutMs: 120_000, intervalMs: 200, what: 'a mixed slice' });
    const endedAt = Date.now();
    await made[0]!.end('connection_failed');
    await waitUntil(() => made.length >= 2, { timeoutMs: 90_000, intervalMs: 200, what: 'a replacement WHEP session' });
    t.diagnostic(`ended → replacement WHEP session: ${Date.now() - endedAt} ms`);
    const before = bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts')).length;
    await waitUntil(() => bucketKeys(h.bucketDir).filter((k) => k.includes(sid) && k.endsWith('.ts')).length > before, { timeoutMs: 60_000, intervalMs: 200, what: 'slices after the replacement' });
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9306', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const errors = h.events.filter((e) => e.payload.sid === sid && e.eventType === 1).map((e) => e.payload.details);
    t.diagnostic(`error events: ${JSON.stringify(errors)}`);
    assert.deepEqual(errors, [], 'no error event (1)');
  } finally {
    await h.close();
  }
});

// A recorder's WHEP subscription replaced mid-recording when the recorder's own peer fails at once (replaced after
// 0.5 s, while the slicer is still open): what the individual recorder's files show across the switch, measured with
// ffprobe (docs/recording-individual.md, "A WHEP subscription replaced mid-recording"), and no recorder error (event
// 1). Timing-sensitive (scripts/test-lanes.mjs): the replacement must beat the slicer's input timeout. The sessions
// the channel node ends (noticed ~30 s later, on ICE consent) are in whep-ended.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordAcross } from './testing/whep-switch.ts';

test('WHEP peer failing at once: replaced within the slicer\'s input timeout; what the slices show', async (t) => {
  const { measured: m, errors } = await recordAcross(t, 'ind-whep-fail', 305, async (_sessions, recorderPeers) => {
    await recorderPeers[recorderPeers.length - 1]!.close();
  });
  assert.deepEqual(errors, [], 'no error event (1)');
  for (const r of m) {
    // The new session's packets carry the publisher's RTP clock on (the SFU keeps its numbering for a new
    // subscriber), so the slicer sees a gap as long as the media missed, not a jump: no discontinuity needed.
    assert.equal(r.discontinuities, 0, `${r.kind}: one stream`);
    assert.ok(r.maxGapSec > 0.1 && r.maxGapSec < 5, `${r.kind}: the switch is a short gap within the stream (${r.maxGapSec} s)`);
    assert.equal(r.backwards, 0, `${r.kind}: timestamps never go backwards within a stream`);
    assert.ok(Math.abs(r.probedSec - r.listedSec) < 1.5, `${r.kind}: slices ${r.probedSec} s vs playlist ${r.listedSec} s`);
    assert.equal(r.decodeErrors, '', `${r.kind}: the stream decodes`);
  }
});

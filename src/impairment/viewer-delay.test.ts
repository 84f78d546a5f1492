// A WHEP viewer that pins no layer, behind a narrow link with a deep queue (a bufferbloated router): the queue
// would take seconds to overflow, so its receiver reports show no loss for that long, but the delay of its
// transport-cc feedback grows from the first second. The node reads that trend (webrtc/delay-trend.ts) and moves it
// to the low layer before the queue drops a packet; once the cap is lifted it goes back up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startSyntheticPublisher, whepSubscribe } from '../channel/index.ts';
import { scrape } from '../metrics/testing.ts';
import { vp8KeyframeSize } from '../rtp-payload/index.ts';
import { waitUntil } from '../testing/wait.ts';
import { assertVp8Decodes, startNodeBehindRelay } from './testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('a viewer behind a narrow link with a deep queue moves to the low layer on its feedback’s delay trend before the queue drops anything, and back up once the link clears', { timeout: 180_000 }, async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 29 });
  const cname = 'viewer-delay';
  const pub = await startSyntheticPublisher({ baseUrl: s.url, appId: APP, cname, uid: 1, token: tok(cname, 1, 1), codec: 'vp8', width: 640, height: 360, simulcast: true });
  try {
    await pub.ready;
    const publisherPeers = new Set(relay.peers());
    const viewer = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=900&publisher=1`, token: tok(cname, 900, 2), kinds: ['video'], keep: 100_000 });
    try {
      await viewer.ready;
      const keyframeWidth = (from: number, width: number) => viewer.packets.video.slice(from).some((p) => vp8KeyframeSize(p.payload)?.width === width);
      await viewer.waitFor(() => keyframeWidth(0, 640), 30_000, 'a 640×360 keyframe: the viewer starts on the high layer');
      const metric = async (name: string, labels: Record<string, string> = {}) => (await scrape(s.url)).sum(name, labels);
      // What the high layer sends the viewer, over 3 s.
      const from = viewer.packets.video.length;
      const startedAt = Date.now();
      await viewer.waitFor(() => Date.now() - startedAt >= 3000, 10_000, '3 s of the high layer');
      const highBps = (viewer.packets.video.slice(from).reduce((n, p) => n + p.serializeSize, 0) * 8 * 1000) / (Date.now() - startedAt);
      assert.ok((await metric('reeltime_rtcp_twcc_received_total')) > 0, 'the viewer sends transport-cc feedback');
      assert.equal(await metric('reeltime_viewer_delay_moves_total'), 0, 'a clean link: no move');

      // 70 % of that, behind a queue of 3 s of the cap: it would overflow some 7 s after the cap (the queue grows
      // by 30 % of the rate), and until then the viewer's receiver reports say no loss.
      const cap = Math.round(highBps * 0.7);
      const viewerPeers = relay.peers().filter((p) => !publisherPeers.has(p));
      assert.ok(viewerPeers.length > 0, 'the viewer goes through the relay');
      for (const p of viewerPeers) relay.setPeerLink(p, 'downstream', { rate: { bitsPerSecond: cap, burstBytes: 2000, queueBytes: Math.round((cap / 8) * 3) } });
      const capped = viewer.packets.video.length;
      const cappedAt = Date.now();
      await waitUntil(async () => (await metric('reeltime_viewer_delay_moves_total')) >= 1, { timeoutMs: 20_000, what: 'a move down on the delay trend' });
      const movedAfterMs = Date.now() - cappedAt;
      const dropsAtMove = relay.counters.downstream.dropped.queue;
      t.diagnostic(`high layer ${(highBps / 1000).toFixed(0)} kbit/s, cap ${(cap / 1000).toFixed(0)}; moved ${movedAfterMs} ms after the cap, queue drops then ${dropsAtMove}`);
      assert.equal(dropsAtMove, 0, 'moved before the queue overflowed (a move on loss would come after)');
      assert.equal(await metric('reeltime_viewer_layer_switches_total', { direction: 'down' }), 1);
      await viewer.waitFor(() => keyframeWidth(capped, 320), 30_000, 'a 320×180 keyframe once capped');

      // Lifted: after the back-off (8 s) the viewer tries the high layer and keeps it.
      for (const p of viewerPeers) relay.setPeerLink(p, 'downstream', {});
      const lifted = viewer.packets.video.length;
      await waitUntil(async () => (await metric('reeltime_viewer_layer_switches_total', { direction: 'up' })) >= 1, { timeoutMs: 60_000, what: 'a move up once the cap is lifted' });
      await viewer.waitFor(() => keyframeWidth(lifted, 640), 30_000, 'a 640×360 keyframe once the cap is lifted');
      // One stream for the viewer throughout: numbering continues across both switches.
      assert.equal(new Set(viewer.packets.video.map((p) => p.header.ssrc)).size, 1);
      // What the viewer got decodes without an error across both switches (each at a keyframe of the new layer).
      await assertVp8Decodes(viewer.packets.video, (line) => t.diagnostic(line));
    } finally {
      await viewer.close();
    }
  } finally {
    await pub.stop();
    await close();
  }
});

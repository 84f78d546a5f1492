// Keyframe requests on the channel: a viewer's FIRs and PLIs reach the publisher at most once per 300 ms per
// track (the rest counted as limited), and a video loss the publisher does not repair makes the node ask for a
// keyframe on its own once the packet can no longer arrive in time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { withNodeBehindRelay } from '../../impairment/testing/index.ts';
import { scrape } from '../../metrics/testing.ts';
import { waitUntil } from '../../testing/index.ts';
import { whepSubscribe, whipPublish, type WhipPublisher } from '../client/index.ts';
import { feedVp8Keyframes } from '../testing/index.ts';
import { firPacket } from './fir.ts';
import { takeOverNacks } from './werift-hooks.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

/** 50 VP8 keyframe-start packets a second until stopped. */
const feed = (pub: WhipPublisher) => feedVp8Keyframes(pub.video!, { perSecond: 50, bytes: 300 });

test('a viewer’s burst of FIRs and PLIs reaches the publisher as one request per 300 ms (the rest counted as limited); a FIR goes on as a FIR', async () => {
  await withNodeBehindRelay(async (s) => {
    const cname = 'kf-burst';
    const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
    const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
    let plis = 0;
    pub.onKeyframeRequest(() => plis++);
    const stop = feed(pub);
    try {
      await pub.ready;
      const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'] });
      try {
        await sub.ready;
        await sub.waitFor(() => sub.counts.video > 20, 20_000, 'video at the viewer');
        const before = await scrape(s.url);
        // The join's own request has gone out; the next one may go 300 ms after it.
        await waitUntil(async () => (await scrape(s.url)).sum('reeltime_rtcp_pli_total', { direction: 'out' }) >= 1, { what: 'the join PLI' });
        const receiver = sub.pc.getTransceivers()[0]!.receiver;
        const ssrc = sub.packets.video[0]!.header.ssrc;
        const pliBefore = plis;
        // All in one go: 4 FIRs and 4 PLIs within a few milliseconds.
        for (let i = 0; i < 4; i++) {
          await receiver.dtlsTransport.sendRtcp([firPacket(receiver.rtcpSsrc, ssrc, i)]);
          await receiver.sendRtcpPLI(ssrc);
        }
        await waitUntil(async () => {
          const m = await scrape(s.url);
          return m.sum('reeltime_rtcp_fir_total', { direction: 'in' }) - before.sum('reeltime_rtcp_fir_total', { direction: 'in' }) === 4 &&
            m.sum('reeltime_rtcp_pli_total', { direction: 'in' }) - before.sum('reeltime_rtcp_pli_total', { direction: 'in' }) === 4;
        }, { what: 'the 8 requests at the node', timeoutMs: 10_000 });
        await waitUntil(() => plis > pliBefore, { what: 'a keyframe request at the publisher', timeoutMs: 10_000 });
        const m = await scrape(s.url);
        const limited = m.sum('reeltime_keyframe_requests_limited_total') - before.sum('reeltime_keyframe_requests_limited_total');
        // At most two of the eight got through (the burst may straddle one 300 ms boundary on a busy machine).
        assert.ok(plis - pliBefore <= 2, `publisher got ${plis - pliBefore} requests`);
        assert.ok(limited >= 6, `limited ${limited}`);
        // The publisher offered "ccm fir": a viewer's FIR reaches it as a FIR (read by werift's parser there).
        const firsBefore = m.sum('reeltime_rtcp_fir_total', { direction: 'out' });
        const requestsBefore = plis;
        let seq = 10;
        await waitUntil(
          async () => {
            if (plis > requestsBefore && (await scrape(s.url)).sum('reeltime_rtcp_fir_total', { direction: 'out' }) > firsBefore) return true;
            await receiver.dtlsTransport.sendRtcp([firPacket(receiver.rtcpSsrc, ssrc, seq++)]);
            return false;
          },
          { what: 'a FIR forwarded as a FIR', intervalMs: 100, timeoutMs: 10_000 },
        );
      } finally {
        await sub.close();
      }
    } finally {
      stop();
      await pub.close();
    }
  });
});

test('a video loss the publisher does not repair: the node gives the packet up and asks for a keyframe', async () => {
  await withNodeBehindRelay(async (s, relay) => {
    const cname = 'kf-unrepaired';
    const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
    const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
    // This publisher ignores NACKs (a sender without a packet history).
    for (const t of pub.pc.getTransceivers()) takeOverNacks(t.sender, () => undefined);
    const requests: number[] = [];
    pub.onKeyframeRequest(() => requests.push(performance.now()));
    const stop = feed(pub);
    try {
      await pub.ready;
      await waitUntil(async () => (await scrape(s.url)).sum('reeltime_rtp_packets_total', { direction: 'in' }) > 20, { what: 'media at the node' });
      const before = await scrape(s.url);
      const lossFrom = performance.now();
      relay.setLink('upstream', { loss: 0.05 });
      await waitUntil(async () => (await scrape(s.url)).sum('reeltime_keyframe_requests_on_loss_total') > 0, { what: 'a keyframe request on loss', timeoutMs: 20_000 });
      await waitUntil(() => requests.some((t) => t > lossFrom), { what: 'the publisher asked for a keyframe', timeoutMs: 10_000 });
      const m = await scrape(s.url);
      assert.ok(m.sum('reeltime_rtp_unrepaired_total') > 0, 'packets given up');
      assert.ok(m.sum('reeltime_rtcp_nack_total', { direction: 'out' }) > before.sum('reeltime_rtcp_nack_total', { direction: 'out' }), 'NACKed first');
      assert.ok(m.sum('reeltime_rtcp_pli_total', { direction: 'out' }) > before.sum('reeltime_rtcp_pli_total', { direction: 'out' }));
    } finally {
      stop();
      await pub.close();
    }
  });
});

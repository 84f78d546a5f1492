// Loss repair on both hops through the real relay: a werift publisher (RTX offered) with loss on its uplink and a
// werift WHEP viewer with loss on its downlink. The node NACKs the publisher (repairs arrive as RTX) and answers
// the viewer's NACKs from its retransmission cache (as RTX): the viewer ends up with nearly every packet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { RtpHeader, RtpPacket } from 'werift';
import { whepSubscribe, whipPublish } from '../channel/index.ts';
import { feedVp8Keyframes } from '../channel/testing/index.ts';
import { scrape } from '../metrics/testing.ts';
import { waitUntil } from '../testing/index.ts';
import { startNodeBehindRelay } from './testing/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

/** Share of the sequence numbers in [first, last] of the received packets that arrived at least once. */
function coverage(seqs: readonly number[]): { share: number; span: number } {
  const unwrapped: number[] = [];
  let prev: number | undefined;
  for (const s of seqs) {
    let u = s;
    if (prev !== undefined) {
      u = prev - (prev & 0xffff) + s;
      if (u - prev > 0x8000) u -= 0x10000;
      else if (prev - u > 0x8000) u += 0x10000;
    }
    unwrapped.push(u);
    prev = u;
  }
  const distinct = new Set(unwrapped);
  const span = Math.max(...distinct) - Math.min(...distinct) + 1;
  return { share: distinct.size / span, span };
}

test('5 % loss on the publisher’s uplink (2 % duplicated) and on the viewer’s downlink: both hops are repaired (NACK, RTX), the viewer gets ≥ 99 % of the packets, copies stop at the node', async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 27 });
  const cname = 'lossy-both';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8', audio: false });
  let stopFeed: (() => void) | undefined;
  try {
    await pub.ready;
    stopFeed = feedVp8Keyframes(pub.video!, { perSecond: 50, bytes: 600, patterned: true });
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['video'], keep: 5000 });
    try {
      await sub.ready;
      // Loss once both peers are connected (werift's DTLS does not resend a lost handshake flight).
      relay.setLink('upstream', { loss: 0.05, duplicate: 0.02 });
      relay.setLink('downstream', { loss: 0.05 });
      const from = sub.counts.video;
      await waitUntil(() => sub.counts.video >= from + 400, { what: () => `viewer packets (${sub.counts.video})`, timeoutMs: 60_000 });
      const seqs = sub.packets.video.slice(from).map((p) => p.header.sequenceNumber);
      // The last packets may still be under repair: judge what came before the last 20.
      const { share, span } = coverage(seqs.slice(0, -20));
      const m = await scrape(s.url);
      const report = JSON.stringify({
        share,
        span,
        relay: relay.counters,
        nackOut: m.sum('reeltime_rtcp_nack_total', { direction: 'out' }),
        nackIn: m.sum('reeltime_rtcp_nack_total', { direction: 'in' }),
        answered: m.sum('reeltime_rtcp_nack_answered_total'),
        resent: m.sum('reeltime_rtp_retransmissions_total'),
        rtxIn: m.sum('reeltime_rtp_rtx_packets_total', { direction: 'in' }),
        rtxOut: m.sum('reeltime_rtp_rtx_packets_total', { direction: 'out' }),
        unrepaired: m.sum('reeltime_rtp_unrepaired_total'),
        duplicates: m.sum('reeltime_rtp_duplicates_total'),
      });
      t.diagnostic(report);
      assert.ok(relay.counters.upstream.dropped.random >= 5 && relay.counters.downstream.dropped.random >= 5, `the relay dropped both ways: ${report}`);
      // Without repair the viewer would miss about 1 - 0.95² ≈ 10 %.
      assert.ok(share >= 0.99, `viewer coverage ${share}: ${report}`);
      assert.ok(m.sum('reeltime_rtcp_nack_total', { direction: 'out' }) > 0, `the node NACKed the publisher: ${report}`);
      assert.ok(m.sum('reeltime_rtp_rtx_packets_total', { direction: 'in' }) > 0, `the publisher's repairs came as RTX and were unwrapped: ${report}`);
      assert.ok(m.sum('reeltime_rtcp_nack_total', { direction: 'in' }) > 0, `the viewer NACKed: ${report}`);
      assert.ok(m.sum('reeltime_rtcp_nack_answered_total') > 0, report);
      assert.ok(m.sum('reeltime_rtp_rtx_packets_total', { direction: 'out' }) > 0, `the viewer negotiated RTX and got its repairs on it: ${report}`);
      assert.ok(m.sum('reeltime_rtp_retransmissions_total') >= m.sum('reeltime_rtp_rtx_packets_total', { direction: 'out' }));
      // 2 % of the uplink arrives twice: the copies stop at the node.
      assert.ok(m.sum('reeltime_rtp_duplicates_total') > 0, report);
    } finally {
      await sub.close();
    }
  } finally {
    stopFeed?.();
    await pub.close();
    await close();
  }
});

test('5 % loss on the uplink of a werift publisher’s Opus (it offers NACK for audio): the node NACKs it, a viewer gets ≥ 99 % of the audio packets', async (t) => {
  const { server: s, relay, close } = await startNodeBehindRelay({ seed: 28 });
  const cname = 'lossy-audio';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: false });
  let timer: NodeJS.Timeout | undefined;
  try {
    await pub.ready;
    let n = 0;
    // 20 ms Opus-sized packets (the node does not look into them).
    timer = setInterval(() => {
      const header = new RtpHeader({ payloadType: 111, sequenceNumber: n & 0xffff, timestamp: (n * 960) >>> 0, marker: false });
      pub.audio!.writeRtp(new RtpPacket(header, Buffer.alloc(80, n & 0xff)));
      n++;
    }, 20);
    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2), kinds: ['audio'], keep: 5000 });
    try {
      await sub.ready;
      relay.setLink('upstream', { loss: 0.05 });
      const from = sub.counts.audio;
      await waitUntil(() => sub.counts.audio >= from + 400, { what: () => `viewer audio packets (${sub.counts.audio})`, timeoutMs: 60_000 });
      const { share, span } = coverage(sub.packets.audio.slice(from, -20).map((p) => p.header.sequenceNumber));
      const m = await scrape(s.url);
      const report = JSON.stringify({ share, span, dropped: relay.counters.upstream.dropped.random, nackOut: m.sum('reeltime_rtcp_nack_total', { direction: 'out' }) });
      t.diagnostic(report);
      assert.ok(relay.counters.upstream.dropped.random >= 5, report);
      assert.ok(m.sum('reeltime_rtcp_nack_total', { direction: 'out' }) > 0, report);
      assert.ok(share >= 0.99, `viewer audio coverage: ${report}`);
    } finally {
      await sub.close();
    }
  } finally {
    clearInterval(timer);
    await pub.close();
    await close();
  }
});

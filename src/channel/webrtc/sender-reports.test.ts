import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { type RtcpSrPacket, RtpHeader, RtpPacket } from 'werift';
import { ntpToUnixMs, unixMsToNtp } from '../../clock/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { whepSubscribe, whipPublish } from '../client/index.ts';
import type { MediaKind } from '../membership/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

const RATE: Record<MediaKind, number> = { audio: 48_000, video: 90_000 };
const STEP_MS: Record<MediaKind, number> = { audio: 20, video: 60 };
/** First timestamps: audio wraps round 2^32 during the test. */
const BASE: Record<MediaKind, number> = { audio: 4_294_900_000, video: 123_456 };
/** The publisher's clock is this far ahead of ours: werift's own reports (our time) would be off by as much. */
const OFFSET_MS = 12_345.678;

test('sender reports: the WHEP subscriber gets the publisher’s NTP ↔ RTP mapping in its own SSRC, not the SFU’s forwarding time', async () => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
  const cname = 'sr-map';
  const base = `${s.url}/rtc/v1/apps/${APP}/channels/${cname}`;
  const pub = await whipPublish({ endpoint: `${base}/whip?uid=1`, token: tok(cname, 1), video: 'vp8' });
  const timers: NodeJS.Timeout[] = [];
  try {
    await pub.ready;
    // Packet n of a kind is captured at originMs + n·step on the publisher's clock (ours + OFFSET_MS); its
    // payload carries n, so the subscriber can tell which one it got whatever numbers the SFU gives it.
    const originMs = Date.now();
    const senderMs = (kind: MediaKind, n: number) => originMs + OFFSET_MS + n * STEP_MS[kind];
    const tsOf = (kind: MediaKind, n: number) => (BASE[kind] + (n * STEP_MS[kind] * RATE[kind]) / 1000) >>> 0;
    for (const kind of ['audio', 'video'] as const) {
      const track = kind === 'audio' ? pub.audio! : pub.video!;
      let n = 0;
      timers.push(
        setInterval(() => {
          // VP8: every packet a keyframe start (descriptor S=1, partition 0; P bit 0), so the gate opens at once.
          const head = kind === 'video' ? [0x10, 0x00] : [0xfc];
          const payload = Buffer.alloc(40);
          Buffer.from(head).copy(payload);
          payload.writeUInt32BE(n, 8);
          const header = new RtpHeader({ payloadType: 96, sequenceNumber: n & 0xffff, timestamp: tsOf(kind, n), marker: true });
          track.writeRtp(new RtpPacket(header, payload));
          // A report every 10 packets, for a packet time between two packets (the mapping need not be one).
          if (n % 10 === 5) pub.sendSenderReport(kind, { ntpTimestamp: unixMsToNtp(senderMs(kind, n + 0.5)), rtpTimestamp: tsOf(kind, n + 0.5) });
          n++;
        }, STEP_MS[kind]),
      );
    }

    const sub = await whepSubscribe({ endpoint: `${base}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2) });
    const reports: Record<MediaKind, RtcpSrPacket[]> = { audio: [], video: [] };
    sub.onSenderReport((kind, r) => reports[kind].push(r));
    try {
      await sub.ready;
      await sub.waitFor(() => reports.audio.length >= 4 && reports.video.length >= 3 && sub.counts.video > 10, 30_000, 'reports and media');
      for (const kind of ['audio', 'video'] as const) {
        const packets = sub.packets[kind];
        const ssrc = packets[0]!.header.ssrc;
        for (const r of reports[kind]) {
          assert.equal(r.ssrc, ssrc, `${kind}: the report names the subscriber's SSRC`);
          // Every received packet, mapped through this report, at the publisher's capture time of that packet.
          for (const p of packets) {
            const n = p.payload.readUInt32BE(8);
            const delta = ((((p.header.timestamp - r.senderInfo.rtpTimestamp) >>> 0) + 0x80000000) >>> 0) - 0x80000000;
            const mapped = ntpToUnixMs(r.senderInfo.ntpTimestamp) + (delta * 1000) / RATE[kind];
            const err = mapped - senderMs(kind, n);
            assert.ok(Math.abs(err) < 2, `${kind} packet ${n} through the report of ${r.senderInfo.rtpTimestamp}: ${err.toFixed(3)} ms off`);
          }
        }
        assert.ok(reports[kind].every((r) => r.senderInfo.packetCount > 0), `${kind}: packet counts are the subscriber's`);
      }
    } finally {
      await sub.close();
    }
  } finally {
    for (const t of timers) clearInterval(t);
    await pub.close();
    await s.close();
  }
});

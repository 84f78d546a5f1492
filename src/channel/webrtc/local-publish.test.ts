// In-process publishes (Sfu.publishLocal, docs/channel.md): WHIP's join rules, the packets straight into the fan-out
// that a tap and a WHEP viewer read, the source's clock mapping as sender reports, the participant leaving on close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { unixMsToNtp } from '../../clock/index.ts';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import { whepSubscribe } from '../client/index.ts';
import { ChannelError } from '../errors.ts';
import type { ChannelModule } from '../module.ts';
import type { LeaveReason } from '../membership/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

/** An RTP packet (payload type 96, SSRC 0x1234) carrying one H.264 NAL unit. */
function h264(seq: number, timestamp: number, nal: readonly number[], marker = true): Buffer {
  const b = Buffer.alloc(12 + nal.length);
  b[0] = 0x80;
  b[1] = (marker ? 0x80 : 0) | 96;
  b.writeUInt16BE(seq, 2);
  b.writeUInt32BE(timestamp, 4);
  b.writeUInt32BE(0x1234, 8);
  Buffer.from(nal).copy(b, 12);
  return b;
}
const SPS = [0x67, 0x42, 0xc0, 0x1f, 0xda];
const PPS = [0x68, 0xce, 0x3c, 0x80];
const IDR = [0x65, 0x88, 0x84, 0x00, 0x33];
const P_SLICE = [0x41, 0x9a, 0x02];

test('an in-process publish joins by WHIP\'s rules, feeds a tap and a WHEP viewer from its first keyframe, passes its sender reports on, and leaves on close', async () => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
  const channel = s.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'local-pub';
  try {
    assert.ok(channel.publishLocal, 'defined without Redis (every channel is in this process)');
    const publish = channel.publishLocal;
    const params = { appId: APP, cname, uid: 7, token: tok(cname, 7), profile: 'communication' as const, kinds: ['video', 'audio'] as const };

    // WHIP's refusals, as ChannelError with WHIP's codes.
    assert.throws(() => publish({ ...params, token: tok(cname, 8) }), (e: unknown) => e instanceof ChannelError && e.code === 'token_wrong_uid');
    assert.throws(() => publish({ ...params, token: tok(cname, 7, 2) }), (e: unknown) => e instanceof ChannelError && e.code === 'token_no_publish');
    const pub = publish(params);
    assert.throws(() => publish(params), (e: unknown) => e instanceof ChannelError && e.code === 'uid_taken');
    const joined = channel.snapshot(APP, cname).participants.find((p) => p.uid === 7);
    assert.deepEqual(joined?.tracks.map((t) => t.codec).sort(), ['audio/opus', 'video/h264']);

    // A delta picture before any keyframe, then a keyframe (SPS, PPS, IDR) and a delta picture.
    pub.push('video', h264(10, 0, P_SLICE));
    pub.push('video', h264(11, 3000, SPS, false));
    pub.push('video', h264(12, 3000, PPS, false));
    pub.push('video', h264(13, 3000, IDR));
    pub.push('video', h264(14, 6000, P_SLICE));

    // A tap joining now starts from the cached keyframe (the source cannot be asked for one).
    const tapped: Buffer[] = [];
    const reports: number[] = [];
    let ended: LeaveReason | undefined;
    const tap = channel.tap({
      appId: APP,
      cname,
      uid: 9001,
      token: tok(cname, 9001, 2),
      profile: 'communication',
      publisher: 7,
      kinds: ['video'],
      onPacket: (_kind, codec, bytes) => {
        assert.equal(codec.mimeType, 'video/h264');
        tapped.push(Buffer.from(bytes));
      },
      onSenderReport: (_kind, r) => void reports.push(r.rtpTimestamp),
      onEnded: (r) => void (ended = r),
    });
    await waitUntil(() => tapped.length >= 3, { timeoutMs: 5_000, what: () => `the cached GOP through the tap (${tapped.map((p) => p[12]! & 0x1f)})` });
    // The gate sends the parameter sets as one STAP-A (24) before the IDR (5); nothing of the picture before it.
    assert.deepEqual(tapped.map((p) => p[12]! & 0x1f), [24, 5, 1], 'SPS and PPS, IDR, then the delta picture');

    // A WHEP viewer (a werift peer on loopback) gets the packets too.
    const viewer = await whepSubscribe({
      endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=9002&publisher=7`,
      token: tok(cname, 9002, 2),
      videoCodecs: ['h264'],
    });
    assert.equal(viewer.codecs.get('video'), 'h264');
    let seq = 15;
    await waitUntil(
      () => {
        pub.push('video', h264(seq, seq * 3000, P_SLICE));
        seq++;
        return viewer.counts.video > 0;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'a packet at the WHEP viewer' },
    );

    // The source's clock mapping goes to subscribers as a sender report of the track.
    pub.pushSenderReport('video', { ntpTimestamp: unixMsToNtp(Date.now()), rtpTimestamp: seq * 3000 });
    await waitUntil(() => reports.length > 0, { timeoutMs: 5_000, what: 'a sender report at the tap' });

    await pub.close();
    assert.equal(channel.snapshot(APP, cname).participants.find((p) => p.uid === 7), undefined, 'the participant left');
    assert.equal(ended, 'publisher_left');
    await tap.close();
    await viewer.close().catch(() => undefined);
  } finally {
    await s.close();
  }
});

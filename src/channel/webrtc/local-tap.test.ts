import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { RtpPacket } from 'werift';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import type { ChannelModule } from '../module.ts';
import type { LeaveReason, MediaKind } from '../membership/index.ts';
import { startSyntheticPublisher } from '../publisher/index.ts';
import { decodePixel, firstFramePackets, frameFile } from '../testing/decode.ts';
import { startsKeyframe } from '../../rtp-payload/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

for (const [codec, color, expect] of [
  ['vp8', 'red', [255, 0, 0]],
  ['h264', 'blue', [0, 0, 255]],
] as const) {
  test(`synthetic ${codec} publisher -> SFU -> in-process tap: WHEP's rules, keyframe first, colour ${color} decodes, ends with the publisher`, async () => {
    const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
    const channel = s.modules.find((m) => m.name === 'channel') as ChannelModule;
    const cname = `tap-${codec}`;
    const pub = await startSyntheticPublisher({ baseUrl: s.url, appId: APP, cname, uid: 1, token: tok(cname, 1), color, codec });
    let plis = 0;
    pub.whip.onKeyframeRequest(() => plis++);
    try {
      await pub.ready;
      assert.equal(channel.localMedia, true);
      const packets: Record<MediaKind, RtpPacket[]> = { audio: [], video: [] };
      const codecs = new Map<MediaKind, string>();
      const ended: LeaveReason[] = [];
      const params = { appId: APP, cname, uid: 2, profile: 'communication' as const, publisher: 1, kinds: ['audio', 'video'] as const };
      // The same refusals as WHEP: a bad token, a publisher that is not there.
      assert.throws(() => channel.tap({ ...params, token: 'bogus', onPacket: () => undefined }), (e: Error & { code?: string }) => e.code === 'token_invalid');
      assert.throws(() => channel.tap({ ...params, publisher: 7, token: tok(cname, 2, 2), onPacket: () => undefined }), (e: Error & { code?: string }) => e.code === 'publisher_not_found');
      const tap = channel.tap({
        ...params,
        token: tok(cname, 2, 2),
        onPacket: (kind, c, p) => {
          codecs.set(kind, c.mimeType);
          packets[kind].push(RtpPacket.deSerialize(p)); // the tap hands on bytes
        },
        onEnded: (r) => ended.push(r),
      });
      assert.deepEqual(channel.snapshot(APP, cname).participants.find((p) => p.uid === 2)?.subscribedTo, [1], 'the tap is a subscriber in the membership');
      await waitUntil(() => packets.audio.length > 20 && firstFramePackets(packets.video).length > 0, { timeoutMs: 30_000, what: 'media' });
      await waitUntil(() => plis >= 1, { timeoutMs: 15_000, what: 'the publisher was asked for a keyframe when the tap started' });
      assert.equal(codecs.get('video'), `video/${codec}`);
      assert.equal(codecs.get('audio'), 'audio/opus');
      const frame = firstFramePackets(packets.video);
      // VP8: the first packet is a keyframe's first partition; H.264: parameter sets (in band or injected), then the IDR.
      if (codec === 'vp8') assert.ok(startsKeyframe(codec, frame[0]!.payload), 'the first video packet starts a keyframe');
      packets.video.slice(0, 200).forEach((p, i) => assert.equal(p.header.sequenceNumber, (packets.video[0]!.header.sequenceNumber + i) & 0xffff, 'continuous numbers'));
      const f = frameFile(codec, frame);
      assert.ok(f.isKeyframe);
      const [r, g, b] = await decodePixel(f.data, f.format);
      for (const [got, want] of [[r, expect[0]], [g, expect[1]], [b, expect[2]]] as const) {
        assert.ok(Math.abs(got - want) < 40, `pixel ${[r, g, b]} is ${color}`);
      }
      const before = plis;
      // Asked again on each poll: a request within 300 ms of the track's previous one (the join's, or one the node
      // made after an unrepaired loss on a busy machine) is coalesced into it by design.
      await waitUntil(
        () => {
          if (plis > before) return true;
          tap.requestKeyframe();
          return false;
        },
        { timeoutMs: 15_000, intervalMs: 100, what: 'a keyframe request through the tap' },
      );
      // The publisher leaves: the channel ends the tap and the membership forgets the subscriber.
      await pub.stop();
      await waitUntil(() => ended.length > 0, { timeoutMs: 15_000, what: 'tap ended' });
      assert.deepEqual(ended, ['publisher_left']);
      assert.equal(channel.snapshot(APP, cname).participants.some((p) => p.uid === 2), false);
      const n = packets.video.length;
      await tap.close();
      assert.equal(packets.video.length, n, 'nothing after the end');
    } finally {
      await pub.stop().catch(() => undefined);
      await s.close();
    }
  });
}

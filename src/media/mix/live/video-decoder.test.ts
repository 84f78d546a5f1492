import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../clock/index.ts';
import { SenderClock } from './sender-clock.ts';
import { UserVideoDecoder } from './video-decoder.ts';

/** An RTP packet carrying the start of a VP8 inter frame (no keyframe: nothing to start a decoder from). */
function vp8InterFramePacket(sequence: number): Buffer {
  const packet = Buffer.alloc(12 + 1 + 10);
  packet[0] = 0x80;
  packet[1] = 0x80 | 96;
  packet.writeUInt16BE(sequence, 2);
  packet.writeUInt32BE(sequence * 6000, 4);
  packet.writeUInt32BE(1234, 8);
  packet[12] = 0x10; // S bit, partition 0
  packet[13] = 0x01; // P bit set: inter frame
  return packet;
}

test('without a keyframe no decoder starts and a keyframe is asked for at most once a second', async () => {
  const clock = new ManualClock();
  const requests: number[] = [];
  const decoder = new UserVideoDecoder({
    uid: 'a',
    track: { codec: 'VP8', payloadType: 96, clockRate: 90000 },
    workDir: '/nonexistent',
    bound: { width: 640, height: 360 },
    clock: new SenderClock(90_000),
    now: () => clock.now(),
    onFrame: () => assert.fail('no frame without a decoder'),
    onKeyframeNeeded: () => requests.push(clock.now()),
  });
  for (let i = 0; i < 40; i++) {
    decoder.push(vp8InterFramePacket(i));
    clock.advance(100);
  }
  assert.equal(decoder.size, undefined);
  assert.deepEqual(
    requests.map((t) => t - requests[0]!),
    [0, 1000, 2000, 3000],
  );
  await decoder.stop();
});

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RtpPacket } from 'werift';
import { decodePixel, firstFramePackets, frameFile } from '../testing/index.ts';
import type { SyntheticMedia } from './ffmpeg-args.ts';
import { loopPlan, pruneReplayCache, REPLAY_CACHE_MAX_IDLE_MS, replayMedia } from './replay-cache.ts';
import { dueMs, packetAt, type StreamBase } from './replay.ts';

const media = (over: Partial<SyntheticMedia> = {}): SyntheticMedia => ({ color: 'red', toneHz: 440, codec: 'vp8', width: 640, height: 360, fps: 15, ...over });

test('replay loop: whole frames and Opus packets, whole frame-code and tone-turn periods', () => {
  assert.deepEqual(loopPlan(media(), 30), { videoFrames: 450, audioPackets: 1500, encodeSeconds: 31 });
  // 1024 frames at 15 fps are 68.27 s; the audio covers them in whole 20 ms packets.
  assert.deepEqual(loopPlan(media({ frameCode: true }), 30), { videoFrames: 1024, audioPackets: 3414, encodeSeconds: 70 });
  assert.deepEqual(loopPlan(media({ frameCode: true }), 70), { videoFrames: 2048, audioPackets: 6827, encodeSeconds: 138 });
  // Tone turns of 3 s: the audio loop is whole periods (33 s for a 31 s video loop).
  assert.deepEqual(loopPlan(media({ toneTurns: { periodSec: 3, half: 'first' } }), 31), { videoFrames: 465, audioPackets: 1650, encodeSeconds: 34 });
  assert.equal(loopPlan(media({ fps: 5 }), 2.5).videoFrames, 13);
  assert.throws(() => loopPlan(media(), 0), /replaySeconds must be between 1 and 600, got 0/);
  assert.throws(() => loopPlan(media({ fps: 7 }), 10), /fps must divide 90000/);
  assert.throws(() => loopPlan(media({ toneTurns: { periodSec: 0.0005, half: 'first' } }), 10), /toneTurns.periodSec must be a whole number of milliseconds/);
});

const BASE: StreamBase = { ssrc: 0x12345678, sequence: 65_000, timestamp: 4_294_000_000 };

for (const codec of ['vp8', 'h264'] as const) {
  test(`replay of ${codec}: a captured loop goes on into the next with continuous numbers, and the next loop opens with a decodable keyframe`, async () => {
    const m = media({ codec, color: 'blue', width: 160, height: 96 });
    const r = await replayMedia(m, 2);
    assert.equal(r.video.frames, 30);
    assert.equal(r.video.loopTicks, 180_000);
    assert.equal(r.audio.loopTicks, 96_000);
    assert.equal(r.audio.packets.length, 100, 'one Opus packet per 20 ms');
    assert.strictEqual(await replayMedia(m, 2), r, 'kept in memory once loaded');
    for (const kind of ['audio', 'video'] as const) {
      const t = r[kind];
      const last = RtpPacket.deSerialize(packetAt(t, t.packets.length - 1, 0, BASE, codec === 'vp8'));
      const next = RtpPacket.deSerialize(packetAt(t, 0, 1, BASE, codec === 'vp8'));
      assert.equal(next.header.ssrc, BASE.ssrc);
      assert.equal(next.header.sequenceNumber, (last.header.sequenceNumber + 1) & 0xffff, `${kind}: sequence numbers go on`);
      const step = kind === 'video' ? 6000 : 960;
      assert.equal((next.header.timestamp - last.header.timestamp) >>> 0, step, `${kind}: timestamps go on by one frame`);
      assert.equal(dueMs(t, 0, 1), 2000, `${kind}: the next loop is due when this one ends`);
      assert.ok(dueMs(t, t.packets.length - 1, 0) < dueMs(t, 0, 1));
      if (kind === 'video' && codec === 'vp8') {
        // Picture IDs (15-bit, after the X and I bits of the payload descriptor) go on by one as well.
        const pid = (p: RtpPacket) => p.payload.readUInt16BE(2) & 0x7fff;
        assert.equal(pid(next), (pid(last) + 1) & 0x7fff);
      }
    }
    // The second loop's first frame decodes to the publisher's colour (for H.264: its parameter sets are in-band).
    const loop1 = r.video.packets.map((_, i) => RtpPacket.deSerialize(packetAt(r.video, i, 1, BASE, codec === 'vp8')));
    const frame = frameFile(codec, firstFramePackets(loop1));
    if (codec === 'vp8') assert.ok(frame.isKeyframe, 'a loop starts with a keyframe');
    else {
      // The Annex B NAL unit types: SPS, PPS and an IDR slice (werift's flag misses an IDR inside a STAP-A).
      const types = new Set<number>();
      for (let i = 0; i + 3 < frame.data.length; i++) if (frame.data.readUIntBE(i, 3) === 1) types.add(frame.data[i + 3]! & 0x1f);
      assert.ok([7, 8, 5].every((t) => types.has(t)), `a loop starts with SPS, PPS and an IDR: NAL types ${[...types].join(',')}`);
    }
    const [red, green, blue] = await decodePixel(frame.data, frame.format);
    assert.ok(blue > 200 && red < 60 && green < 60, `decoded ${red},${green},${blue}`);
  });
}

test('the replay cache removes files unused for a week and dead captures\' temporary files, and keeps the rest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-prune-'));
  try {
    const now = Date.UTC(2026, 10, 28);
    const file = (name: string, ageMs: number) => {
      writeFileSync(join(dir, name), 'x');
      utimesSync(join(dir, name), (now - ageMs) / 1000, (now - ageMs) / 1000);
    };
    file('old.rtp', REPLAY_CACHE_MAX_IDLE_MS + 60_000);
    file('used.rtp', REPLAY_CACHE_MAX_IDLE_MS - 60_000);
    file('dead.rtp.123.ab.tmp', 2 * 3600_000);
    file('writing.rtp.124.cd.tmp', 60_000);
    file('other.txt', 10 * REPLAY_CACHE_MAX_IDLE_MS);
    const removed = await pruneReplayCache(dir, now);
    assert.deepEqual(removed.sort(), ['dead.rtp.123.ab.tmp', 'old.rtp']);
    assert.deepEqual(readdirSync(dir).sort(), ['other.txt', 'used.rtp', 'writing.rtp.124.cd.tmp']);
    assert.deepEqual(await pruneReplayCache(join(dir, 'absent'), now), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

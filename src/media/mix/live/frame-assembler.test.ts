import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runFfmpeg } from '../../ffmpeg.ts';
import { type AssembleResult, type CodedFrame, FrameAssembler, ivfFileHeader, ivfFrame } from './frame-assembler.ts';
import { OggOpusWriter, oggCrc, opusPacketSamples } from './ogg-opus.ts';
import { readRtpHeader } from './rtp-header.ts';
import { startRtpSource } from './testing/rtp-source.ts';

function rtp(seq: number, timestamp: number, marker: boolean, payload: Uint8Array, pt = 96): Buffer {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = (marker ? 0x80 : 0) | pt;
  header.writeUInt16BE(seq & 0xffff, 2);
  header.writeUInt32BE(timestamp >>> 0, 4);
  header.writeUInt32BE(1234, 8);
  return Buffer.concat([header, payload]);
}

function push(a: FrameAssembler, packet: Buffer): AssembleResult | undefined {
  return a.push(readRtpHeader(packet)!, packet);
}

/** A constrained-baseline SPS (ITU-T H.264 §7.3.2.1.1) for a picture of whole macroblocks. */
function baselineSps(width: number, height: number): Buffer {
  const bits: number[] = [];
  const u = (n: number, v: number): void => {
    for (let k = n - 1; k >= 0; k--) bits.push((v >> k) & 1);
  };
  const ue = (v: number): void => {
    const n = Math.floor(Math.log2(v + 1));
    u(n, 0);
    u(n + 1, v + 1);
  };
  u(8, 66); // profile_idc
  u(8, 0xc0); // constraint flags
  u(8, 31); // level_idc
  ue(0); // seq_parameter_set_id
  ue(0); // log2_max_frame_num_minus4
  ue(2); // pic_order_cnt_type
  ue(1); // max_num_ref_frames
  u(1, 0); // gaps_in_frame_num_value_allowed_flag
  ue(width / 16 - 1);
  ue(height / 16 - 1);
  u(1, 1); // frame_mbs_only_flag
  u(1, 1); // direct_8x8_inference_flag
  u(1, 0); // frame_cropping_flag
  u(1, 0); // vui_parameters_present_flag
  u(1, 1); // rbsp_stop_one_bit
  while (bits.length % 8) bits.push(0);
  const out = [0x67];
  for (let i = 0; i < bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8).join(''), 2));
  return Buffer.from(out);
}

/** A VP8 keyframe header (RFC 6386 §9.1) for a 320×180 picture, then filler. */
const vp8Key = Uint8Array.of(0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 320 & 0xff, 320 >> 8, 180, 0, 7, 7);
const vp8Inter = Uint8Array.of(0x01, 0x02, 0x03);

test('VP8: descriptors come off, packets join into frames, a loss drops frames until the next keyframe', () => {
  const a = new FrameAssembler('VP8');
  // An inter frame before any keyframe: dropped.
  assert.deepEqual(push(a, rtp(1, 0, true, Uint8Array.of(0x10, ...vp8Inter))), { kind: 'dropped' });
  // A keyframe whose marker packet comes before its middle one: RTP cannot tell a late packet from a lost one, so
  // the frame ends broken at its marker and the late packet starts nothing.
  assert.equal(push(a, rtp(2, 3000, false, Uint8Array.of(0x10, ...vp8Key.subarray(0, 6)))), undefined);
  assert.deepEqual(push(a, rtp(4, 3000, true, Uint8Array.of(0x00, ...vp8Key.subarray(9)))), { kind: 'lost' });
  assert.equal(push(a, rtp(3, 3000, false, Uint8Array.of(0x00, ...vp8Key.subarray(6, 9)))), undefined);
  // Two middle packets swapped are put back in order.
  const r = new FrameAssembler('VP8');
  assert.equal(push(r, rtp(2, 3000, false, Uint8Array.of(0x10, ...vp8Key.subarray(0, 4)))), undefined);
  assert.equal(push(r, rtp(4, 3000, false, Uint8Array.of(0x00, ...vp8Key.subarray(6, 9)))), undefined);
  assert.equal(push(r, rtp(3, 3000, false, Uint8Array.of(0x00, ...vp8Key.subarray(4, 6)))), undefined);
  const swapped = push(r, rtp(5, 3000, true, Uint8Array.of(0x00, ...vp8Key.subarray(9))));
  assert.deepEqual(swapped?.kind === 'frame' ? [...swapped.frame.data] : swapped, [...vp8Key]);
  // A keyframe in three packets, the second with an extended descriptor (15-bit picture id).
  const a2 = new FrameAssembler('VP8');
  assert.equal(push(a2, rtp(2, 3000, false, Uint8Array.of(0x10, ...vp8Key.subarray(0, 6)))), undefined);
  assert.equal(push(a2, rtp(3, 3000, false, Uint8Array.of(0x80, 0x80, 0x81, 0x23, ...vp8Key.subarray(6, 9)))), undefined);
  const whole = push(a2, rtp(4, 3000, true, Uint8Array.of(0x00, ...vp8Key.subarray(9))));
  assert.equal(whole?.kind, 'frame');
  const frame = (whole as { frame: CodedFrame }).frame;
  assert.deepEqual([...frame.data], [...vp8Key]);
  assert.equal(frame.keyframe, true);
  assert.deepEqual(frame.size, { width: 320, height: 180 });
  assert.equal(frame.rtpTimestamp, 3000);
  // An inter frame follows.
  const inter = push(a2, rtp(5, 9000, true, Uint8Array.of(0x10, ...vp8Inter)));
  assert.equal(inter?.kind, 'frame');
  assert.equal((inter as { frame: CodedFrame }).frame.keyframe, false);
  // Packet 7 (the start of the next frame) is lost: that frame is broken, the next inter frame is dropped.
  assert.deepEqual(push(a2, rtp(8, 15000, true, Uint8Array.of(0x00, ...vp8Inter))), { kind: 'lost' });
  assert.deepEqual(push(a2, rtp(9, 21000, true, Uint8Array.of(0x10, ...vp8Inter))), { kind: 'dropped' });
  assert.equal(a2.waitingForKeyframe, true);
  // A whole frame lost between two complete ones (a gap in the numbers) is a loss too.
  assert.equal(push(a2, rtp(10, 27000, true, Uint8Array.of(0x10, ...vp8Key)))?.kind, 'frame');
  assert.deepEqual(push(a2, rtp(12, 33000, true, Uint8Array.of(0x10, ...vp8Inter))), { kind: 'lost' });
  // A frame whose marker never came, followed by a keyframe: the broken one is reported, the keyframe starts again.
  assert.equal(push(a2, rtp(13, 39000, false, Uint8Array.of(0x10, ...vp8Inter))), undefined);
  assert.deepEqual(push(a2, rtp(14, 45000, false, Uint8Array.of(0x10, ...vp8Key))), { kind: 'lost' });
  assert.equal(push(a2, rtp(15, 45000, true, Uint8Array.of(0x00, 9)))?.kind, 'frame');
  // Sequence numbers wrap.
  const w = new FrameAssembler('VP8');
  assert.equal(push(w, rtp(0xffff, 0, false, Uint8Array.of(0x10, ...vp8Key)))?.kind, undefined);
  assert.equal(push(w, rtp(0x10000, 0, true, Uint8Array.of(0x00, 1)))?.kind, 'frame');
  assert.equal(push(w, rtp(0x10001, 3000, true, Uint8Array.of(0x10, ...vp8Inter)))?.kind, 'frame');
});

test('H.264: single NAL units, STAP-A and FU-A become one Annex B access unit; sprop-parameter-sets fill a missing SPS', () => {
  const sps = baselineSps(1280, 720);
  const pps = Buffer.of(0x68, 0xce, 0x38, 0x80);
  const idr = Buffer.from([0x65, 0x88, 0x84, 0x00, 0x33, 0xff, 0x01, 0x02, 0x03, 0x04]);
  const stapA = Buffer.concat([Buffer.of(24, 0, sps.length), sps, Buffer.of(0, pps.length), pps]);
  const fu = (start: boolean, end: boolean, bytes: Buffer): Buffer => Buffer.concat([Buffer.of((idr[0]! & 0xe0) | 28, (start ? 0x80 : 0) | (end ? 0x40 : 0) | 5), bytes]);
  const a = new FrameAssembler('H264');
  assert.equal(push(a, rtp(1, 0, false, stapA, 102)), undefined);
  assert.equal(push(a, rtp(2, 0, false, fu(true, false, idr.subarray(1, 4)), 102)), undefined);
  assert.equal(push(a, rtp(3, 0, false, fu(false, false, idr.subarray(4, 7)), 102)), undefined);
  const r = push(a, rtp(4, 0, true, fu(false, true, idr.subarray(7)), 102));
  assert.equal(r?.kind, 'frame');
  const f = (r as { frame: CodedFrame }).frame;
  const sc = Buffer.of(0, 0, 0, 1);
  assert.deepEqual(f.data, Buffer.concat([sc, sps, sc, pps, sc, idr]));
  assert.equal(f.keyframe, true);
  assert.deepEqual(f.size, { width: 1280, height: 720 });
  const p = push(a, rtp(5, 3000, true, Buffer.of(0x41, 0x9a, 0x01), 102));
  assert.equal(p?.kind, 'frame');
  assert.deepEqual((p as { frame: CodedFrame }).frame.data, Buffer.of(0, 0, 0, 1, 0x41, 0x9a, 0x01));
  // An FU-A whose start is lost is broken.
  assert.deepEqual(push(a, rtp(6, 6000, true, fu(false, true, idr.subarray(7)), 102)), { kind: 'lost' });

  // The parameter sets only out of band: put before the IDR.
  const b = new FrameAssembler('H264', `packetization-mode=1;sprop-parameter-sets=${sps.toString('base64')},${pps.toString('base64')}`);
  const k = push(b, rtp(1, 0, true, idr, 102));
  assert.equal(k?.kind, 'frame');
  assert.deepEqual((k as { frame: CodedFrame }).frame.data, Buffer.concat([sc, sps, sc, pps, sc, idr]));
  // Without any SPS an IDR cannot start a decoder.
  assert.deepEqual(push(new FrameAssembler('H264'), rtp(1, 0, true, idr, 102)), { kind: 'dropped' });
});

test('Opus packet lengths from the TOC byte, and Ogg pages with the right checksum', () => {
  assert.equal(opusPacketSamples(Uint8Array.of(0xfc)), 960); // CELT 20 ms, one frame
  assert.equal(opusPacketSamples(Uint8Array.of(0x78 | 1)), 1920); // SILK 20 ms... config 15 = hybrid 20 ms, two frames
  assert.equal(opusPacketSamples(Uint8Array.of(0x08)), 960); // SILK NB 20 ms
  assert.equal(opusPacketSamples(Uint8Array.of(0x18 | 3, 2)), 2 * 2880); // SILK 60 ms, two frames (code 3)
  assert.equal(opusPacketSamples(Uint8Array.of(0x18 | 3, 0)), undefined);
  assert.equal(opusPacketSamples(Uint8Array.of()), undefined);
  // The CRC of "OggS" test vector from libogg's table (polynomial 0x04c11db7, not reflected).
  assert.equal(oggCrc(Buffer.from('123456789')), 0x89a1897f);
  const w = new OggOpusWriter(2);
  const headers = w.headers();
  assert.equal(headers.subarray(0, 4).toString('latin1'), 'OggS');
  assert.equal(headers[5], 0x02);
  const page = w.packet(Buffer.alloc(300, 1), 960);
  assert.equal(page[26], 2);
  assert.deepEqual([page[27], page[28]], [255, 45]);
  assert.equal(page.readUInt32LE(6), 960);
  const copy = Buffer.from(page);
  copy.writeUInt32LE(0, 22);
  assert.equal(oggCrc(copy), page.readUInt32LE(22));
});

test('real VP8, H.264 and Opus RTP assembled here decode in ffmpeg from IVF and Ogg, every frame and sample', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-assembler-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const collect = async (kind: 'vp8' | 'h264' | 'opus', ms: number): Promise<Buffer[]> => {
    const packets: Buffer[] = [];
    const source = await startRtpSource({ kind, width: 320, height: 180 }, (p) => packets.push(Buffer.from(p)));
    await new Promise((r) => setTimeout(r, ms));
    await source.stop();
    return packets;
  };
  const [vp8, h264, opus] = await Promise.all([collect('vp8', 2500), collect('h264', 2500), collect('opus', 1500)]);
  for (const [codec, packets] of [['VP8', vp8], ['H264', h264]] as const) {
    const a = new FrameAssembler(codec);
    const frames: CodedFrame[] = [];
    for (const p of packets) {
      const r = push(a, p);
      if (r?.kind === 'frame') frames.push(r.frame);
    }
    assert.ok(frames.length >= 15, `${codec}: ${frames.length} frames`);
    assert.equal(frames[0]!.keyframe, true);
    assert.deepEqual(frames[0]!.size, { width: 320, height: 180 });
    const file = join(dir, `${codec}.ivf`);
    writeFileSync(file, Buffer.concat([ivfFileHeader(codec, frames[0]!.size!), ...frames.map((f, i) => ivfFrame(f.data, i))]));
    const out = join(dir, `${codec}.yuv`);
    await runFfmpeg(['-loglevel', 'error', '-f', 'ivf', '-i', file, '-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', out]);
    assert.equal(readFileSync(out).length, frames.length * 320 * 180 * 1.5, `${codec}: every frame decoded`);
  }
  const w = new OggOpusWriter(2);
  let samples = 0;
  const pages = [w.headers()];
  for (const p of opus) {
    const h = readRtpHeader(p)!;
    const payload = p.subarray(h.payloadOffset, h.payloadEnd);
    const n = opusPacketSamples(payload)!;
    samples += n;
    pages.push(w.packet(payload, n));
  }
  assert.ok(samples >= 48_000, `${samples} samples`);
  const ogg = join(dir, 'a.ogg');
  writeFileSync(ogg, Buffer.concat(pages));
  const pcm = join(dir, 'a.pcm');
  await runFfmpeg(['-loglevel', 'error', '-f', 'ogg', '-i', ogg, '-ac', '1', '-f', 's16le', pcm]);
  assert.equal(readFileSync(pcm).length / 2, samples);
});

test('padding-only packets (bandwidth probes) between and inside frames are no loss', () => {
  const a = new FrameAssembler('VP8');
  assert.equal(push(a, rtp(1, 0, true, Uint8Array.of(0x10, ...vp8Key)))?.kind, 'frame');
  assert.equal(push(a, rtp(2, 0, false, Uint8Array.of())), undefined);
  assert.equal(push(a, rtp(3, 0, false, Uint8Array.of())), undefined);
  assert.equal(push(a, rtp(4, 3000, false, Uint8Array.of(0x10, ...vp8Inter))), undefined);
  assert.equal(push(a, rtp(5, 3000, false, Uint8Array.of())), undefined);
  const r = push(a, rtp(6, 3000, true, Uint8Array.of(0x00, 4, 5)));
  assert.deepEqual(r?.kind === 'frame' ? [...r.frame.data] : r, [...vp8Inter, 4, 5]);
});

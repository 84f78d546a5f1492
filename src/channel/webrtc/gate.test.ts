import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamStartFor, SubscriberGate, type GateInput } from './gate.ts';
import { H264ParameterSets, h264Nals, stapA } from '../../rtp-payload/index.ts';

const b = (...bytes: number[]) => Buffer.from(bytes);
const SPS = b(0x67, 0x42, 0xc0, 0x1f, 0xda);
const PPS = b(0x68, 0xce, 0x3c, 0x80);
const IDR_LATER_SLICE = b(0x65, 0x00, 0x4b, 0x21);
const P_SLICE_1 = b(0x41, 0x9a, 0x02);
const P_SLICE_2 = b(0x41, 0x00, 0x4b);
const FU_IDR_START = b(0x7c, 0x85, 0x88, 0x84);
const FU_IDR_MIDDLE = b(0x7c, 0x05, 0x11, 0x22);
const FU_IDR_END = b(0x7c, 0x45, 0x33);

interface Pkt extends GateInput {
  readonly marker: boolean;
}

/**
 * Two GOPs the way ffmpeg's libx264 (zerolatency: two slices a picture) reaches the SFU: STAP-A [SPS, PPS], the
 * first IDR slice in FU-A fragments, the second IDR slice alone; P pictures as STAP-A [slice, slice].
 */
function ffmpegGops(ssrc = 0x1234, seq0 = 65530, ts0 = 4294960000): Pkt[] {
  const out: Pkt[] = [];
  let seq = seq0;
  let ts = ts0;
  const picture = (...payloads: Buffer[]) => {
    payloads.forEach((payload, i) => out.push({ ssrc, seq: seq++ & 0xffff, timestamp: ts >>> 0, payload, marker: i === payloads.length - 1 }));
    ts += 6000;
  };
  for (let gop = 0; gop < 2; gop++) {
    picture(stapA([SPS, PPS]), FU_IDR_START, FU_IDR_MIDDLE, FU_IDR_END, IDR_LATER_SLICE);
    for (let i = 0; i < 3; i++) picture(stapA([P_SLICE_1, P_SLICE_2]));
  }
  return out;
}

interface Sent {
  readonly seq: number;
  readonly timestamp: number;
  readonly payload: Buffer;
}

/** Runs `packets` through a fresh gate that joins at index `join`; the source's parameter-set cache sees them all. */
function runH264(packets: readonly Pkt[], join: number, sets = new H264ParameterSets(), nowMs = (_i: number) => 0): Sent[] {
  const gate = new SubscriberGate(streamStartFor('h264', () => sets.latest()), 90000);
  const sent: Sent[] = [];
  packets.forEach((p, i) => {
    sets.observe(p.payload);
    if (i < join) return;
    const r = gate.admit(p, nowMs(i));
    sent.push(...r.inject);
    if (r.forward) sent.push({ ...r.forward, payload: p.payload });
  });
  return sent;
}

const fuContinuation = (p: Buffer) => (p[0]! & 0x1f) === 28 && (p[1]! & 0x80) === 0;

/** The NAL units of the first picture sent ("5*": a picture's first slice; FU-A counted at its start). */
function firstPictureNals(sent: readonly Sent[]): string[] {
  const ts = sent[0]?.timestamp;
  return sent
    .filter((s) => s.timestamp === ts && !fuContinuation(s.payload))
    .flatMap((s) => h264Nals(s.payload))
    .map((n) => `${n.type}${n.firstSlice ? '*' : ''}`);
}

const u16 = (n: number) => n & 0xffff;

test('H.264 gate: a viewer joining at any packet of the GOP starts with SPS, PPS and the first IDR slice, numbers continuous', () => {
  const packets = ffmpegGops();
  const secondIdr = packets.findIndex((p, i) => i > 0 && p.payload.equals(stapA([SPS, PPS])));
  for (let join = 0; join < secondIdr + 2; join++) {
    const sent = runH264(packets, join);
    // Joins at the FU-A start, in the middle of the IDR or at its second slice once opened a picture the decoder
    // could not read ("non-existing PPS 0"): all of them now wait for the next IDR.
    const opensAt = join <= 1 ? 0 : secondIdr;
    assert.ok(sent.length > 0, `join ${join}: something was sent`);
    assert.deepEqual(firstPictureNals(sent), ['7', '8', '5*', '5'], `join ${join}: the first picture is SPS, PPS, IDR slices`);
    assert.equal(sent[0]!.timestamp, packets[opensAt]!.timestamp, `join ${join}: starts at the IDR of packet ${opensAt}`);
    assert.equal(sent[0]!.seq, packets[opensAt]!.seq, `join ${join}: the injected parameter sets take the number of the STAP-A not sent`);
    for (let i = 1; i < sent.length; i++) {
      assert.equal(sent[i]!.seq, u16(sent[i - 1]!.seq + 1), `join ${join}: sequence numbers continue at ${i}`);
    }
    assert.equal(sent.length, packets.length - opensAt, `join ${join}: every packet from the start on is sent once`);
  }
});

test('H.264 gate: parameter sets in the IDR packet itself are not repeated; none known means no start', () => {
  const sets = new H264ParameterSets();
  const inBand: Pkt[] = [
    { ssrc: 1, seq: 10, timestamp: 0, payload: stapA([SPS, PPS, b(0x65, 0x88, 0x01)]), marker: true },
    { ssrc: 1, seq: 11, timestamp: 3000, payload: P_SLICE_1, marker: true },
  ];
  const sent = runH264(inBand, 0, sets);
  assert.deepEqual(
    sent.map((s) => s.seq),
    [10, 11],
    'nothing injected',
  );

  // A publisher that never sent its parameter sets (nor put them in its offer): an IDR alone cannot be decoded.
  const gate = new SubscriberGate(streamStartFor('h264', () => undefined), 90000);
  const bare = gate.admit({ ssrc: 1, seq: 1, timestamp: 0, payload: FU_IDR_START }, 0);
  assert.equal(bare.forward, undefined);
  assert.equal(gate.waiting, true);

  // One that sent them once, out of band (sprop-parameter-sets): they go out before its IDR.
  const seeded = new H264ParameterSets(`${SPS.toString('base64')},${PPS.toString('base64')}`);
  const late = runH264([{ ssrc: 1, seq: 500, timestamp: 9000, payload: FU_IDR_START, marker: false }], 0, seeded);
  assert.deepEqual(
    late.map((s) => [s.seq, s.timestamp, h264Nals(s.payload).map((n) => n.type)]),
    [
      [499, 9000, [7, 8]],
      [500, 9000, [5]],
    ],
  );
});

test('gate: a new publisher SSRC closes it until that stream’s keyframe; numbers continue across the change', () => {
  const sets = new H264ParameterSets();
  const gate = new SubscriberGate(streamStartFor('h264', () => sets.latest()), 90000);
  const sent: Sent[] = [];
  let now = 0;
  const feed = (packets: readonly Pkt[]) => {
    for (const p of packets) {
      sets.observe(p.payload);
      const r = gate.admit(p, now);
      sent.push(...r.inject);
      if (r.forward) sent.push({ ...r.forward, payload: p.payload });
      now += 10;
    }
  };
  const first = ffmpegGops(0xaaaa, 100, 1000).slice(0, 8);
  feed(first);
  assert.equal(gate.waiting, false);
  const lastBefore = sent.at(-1)!;
  // The encoder restarts: new SSRC, unrelated numbers, and it starts mid-GOP (a P picture first).
  const second = ffmpegGops(0xbbbb, 40000, 7_000_000).slice(5);
  feed(second.slice(0, 3));
  assert.equal(gate.waiting, true, 'P pictures of the new stream are held back');
  assert.equal(sent.length, first.length, 'nothing of the new stream before its keyframe');
  feed(second.slice(3));
  assert.equal(gate.waiting, false);
  const after = sent.slice(first.length);
  assert.deepEqual(firstPictureNals(after), ['7', '8', '5*', '5']);
  assert.equal(after[0]!.seq, u16(lastBefore.seq + 1), 'sequence numbers go on from the old stream');
  // Packets fed 10 ms apart: the new stream's timestamps go on by the time elapsed since the last packet sent
  // (at 70 ms; three held-back P pictures and the STAP-A [SPS, PPS] later, the IDR came at 120 ms).
  const gapMs = 50;
  assert.equal(after[0]!.timestamp, (lastBefore.timestamp + gapMs * 90) >>> 0);
  for (let i = 1; i < after.length; i++) assert.equal(after[i]!.seq, u16(after[i - 1]!.seq + 1));
  const secondFromIdr = second.slice(3);
  assert.equal(
    after.at(-1)!.timestamp - after[0]!.timestamp,
    secondFromIdr.at(-1)!.timestamp - secondFromIdr[1]!.timestamp,
    'within a stream, timestamp differences are the publisher’s',
  );
});

test('VP8 gate: interframes are held back, the keyframe opens; audio passes at once', () => {
  const vp8 = new SubscriberGate(streamStartFor('vp8', () => undefined), 90000);
  const table: [string, Buffer, number | undefined][] = [
    ['interframe start', b(0x10, 0x01), undefined],
    ['interframe continuation', b(0x00, 0x22), undefined],
    ['keyframe start', b(0x10, 0x00), 52],
    ['keyframe continuation', b(0x00, 0x33), 53],
    ['interframe after it', b(0x10, 0x01), 54],
  ];
  table.forEach(([what, payload, want], i) => {
    const r = vp8.admit({ ssrc: 7, seq: 50 + i, timestamp: 3000 * i, payload }, 0);
    assert.equal(r.forward?.seq, want, what);
    assert.deepEqual(r.inject, [], what);
  });
  const opus = new SubscriberGate(streamStartFor('opus', () => undefined), 48000);
  const r = opus.admit({ ssrc: 9, seq: 65535, timestamp: 4294967000, payload: b(0xfc) }, 0);
  assert.deepEqual(r.forward, { seq: 65535, timestamp: 4294967000 });
  assert.deepEqual(opus.admit({ ssrc: 9, seq: 0, timestamp: 33, payload: b(0xfc) }, 20).forward, { seq: 0, timestamp: 33 }, 'wraps like the input');
});

test('gate: a sender report of the forwarded stream maps to the subscriber’s timestamps with the packets’ own offset', () => {
  const key = b(0x10, 0x00);
  const inter = b(0x10, 0x01);
  const gate = new SubscriberGate(streamStartFor('vp8', () => undefined), 90000);
  // Closed: no offset known yet, the report is not translated.
  gate.admit({ ssrc: 1, seq: 10, timestamp: 1000, payload: inter }, 0);
  assert.equal(gate.outgoingTimestamp(1, 900), undefined, 'closed gate');
  // First start: the publisher's own numbers, so a report's timestamp is unchanged (wrap included).
  gate.admit({ ssrc: 1, seq: 11, timestamp: 4294967000, payload: key }, 0);
  assert.equal(gate.outgoingTimestamp(1, 4294967000), 4294967000);
  assert.equal(gate.outgoingTimestamp(1, 500), 500);
  assert.equal(gate.outgoingTimestamp(2, 500), undefined, 'another stream');
  gate.admit({ ssrc: 1, seq: 12, timestamp: 3000, payload: inter }, 33);
  // A new encoder stream (SSRC 2) with other numbers: closed until its keyframe, then shifted.
  assert.equal(gate.admit({ ssrc: 2, seq: 500, timestamp: 777_000, payload: inter }, 50).forward, undefined);
  assert.equal(gate.outgoingTimestamp(1, 3000), undefined, 'the old stream is gone');
  assert.equal(gate.outgoingTimestamp(2, 777_000), undefined, 'the new stream is not forwarded yet');
  const opened = gate.admit({ ssrc: 2, seq: 501, timestamp: 780_000, payload: key }, 100);
  assert.notEqual(opened.forward!.timestamp, 780_000, 'the new stream is shifted');
  // The report says "publisher timestamp 783000 is NTP X": the subscriber's packet of that instant carries the
  // timestamp the report now names, so both map to the same NTP time.
  const later = gate.admit({ ssrc: 2, seq: 502, timestamp: 783_000, payload: inter }, 133);
  assert.equal(gate.outgoingTimestamp(2, 783_000), later.forward!.timestamp);
  assert.equal(gate.outgoingTimestamp(2, 780_000 - 90_000), (opened.forward!.timestamp - 90_000) >>> 0, 'a report before the packet');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { H264ParameterSets, h264IdrStart, h264Nals, stapA } from './h264.ts';
import { vp8StartsKeyframe } from './keyframe.ts';
import { vp8KeyframeSize } from './video-size.ts';

const b = (...bytes: number[]) => Buffer.from(bytes);
// Hand-made units: the header byte sets the type; an IDR/non-IDR slice's next byte starts with first_mb_in_slice.
const SPS = b(0x67, 0x42, 0xc0, 0x1f, 0xda);
const PPS = b(0x68, 0xce, 0x3c, 0x80);
const IDR_FIRST = b(0x65, 0x88, 0x84, 0x00); // first_mb_in_slice = 0 (bit 1)
const IDR_LATER = b(0x65, 0x00, 0x4b, 0x21); // first_mb_in_slice > 0 (leading zero bits): a later slice
const P_FIRST = b(0x41, 0x9a, 0x02);

test('VP8 keyframe start: S bit, partition 0, P bit 0, extensions skipped', () => {
  const cases: [string, Buffer, boolean][] = [
    ['S=1, PID=0, P=0', b(0x10, 0x00), true],
    ['P=1 is an interframe', b(0x10, 0x01), false],
    ['not a partition start', b(0x00, 0x00), false],
    ['partition 1', b(0x11, 0x00), false],
    ['X with a 15-bit PictureID', b(0x90, 0x80, 0x81, 0x23, 0x00), true],
    ['X with a 7-bit PictureID, interframe', b(0x90, 0x80, 0x05, 0x01), false],
    ['X with PictureID, TL0PICIDX and TID', b(0x90, 0xe0, 0x05, 0x07, 0x40, 0x00), true],
    ['truncated after the descriptor', b(0x90, 0x80, 0x05), false],
    ['empty', b(), false],
  ];
  for (const [what, payload, want] of cases) assert.equal(vp8StartsKeyframe(payload), want, what);
});

test('H.264 NAL units of a payload: single, STAP-A, FU-A; first slice of a picture', () => {
  const types = (p: Buffer) => h264Nals(p).map((n) => `${n.type}${n.firstSlice ? '*' : ''}${n.unit ? '' : '~'}`);
  const cases: [string, Buffer, string[]][] = [
    ['single SPS', SPS, ['7']],
    ['single IDR, first slice', IDR_FIRST, ['5*']],
    ['single IDR, later slice', IDR_LATER, ['5']],
    ['STAP-A [SPS, PPS]', stapA([SPS, PPS]), ['7', '8']],
    ['STAP-A [SPS, PPS, SEI, IDR]', stapA([SPS, PPS, b(0x06, 0x05, 0x01), IDR_FIRST]), ['7', '8', '6', '5*']],
    ['FU-A start of a first IDR slice', b(0x7c, 0x85, 0x88, 0x00), ['5*~']],
    ['FU-A start of a later IDR slice', b(0x7c, 0x85, 0x00, 0x4b), ['5~']],
    ['FU-A middle', b(0x7c, 0x05, 0x88), ['5~']],
    ['FU-A end of a P slice', b(0x5c, 0x41, 0x12), ['1~']],
    ['STAP-A cut short keeps the complete units', Buffer.concat([stapA([SPS]), b(0x00, 0x09, 0x68)]), ['7']],
    ['STAP-B (interleaved mode) is not read', b(0x79, 0x00, 0x01), []],
    ['empty', b(), []],
  ];
  for (const [what, payload, want] of cases) assert.deepEqual(types(payload), want, what);
  assert.deepEqual(h264Nals(stapA([SPS, PPS]))[1]!.unit, PPS, 'STAP-A units come back byte for byte');
  assert.equal(stapA([SPS, PPS])[0], 0x78, 'STAP-A header: NRI of its highest unit (3), type 24');
});

test('H.264 decoder start: the first slice of an IDR picture, and whether SPS+PPS precede it in the packet', () => {
  const cases: [string, Buffer, { withParameterSets: boolean } | undefined][] = [
    ['SPS alone (the IDR follows in another packet)', SPS, undefined],
    ['STAP-A [SPS, PPS]', stapA([SPS, PPS]), undefined],
    ['IDR first slice alone', IDR_FIRST, { withParameterSets: false }],
    ['IDR later slice (joining there loses the first)', IDR_LATER, undefined],
    ['STAP-A [SPS, PPS, IDR]', stapA([SPS, PPS, IDR_FIRST]), { withParameterSets: true }],
    ['STAP-A [PPS, IDR] lacks the SPS', stapA([PPS, IDR_FIRST]), { withParameterSets: false }],
    ['FU-A start, first IDR slice', b(0x7c, 0x85, 0x88), { withParameterSets: false }],
    ['FU-A start, later IDR slice', b(0x7c, 0x85, 0x00), undefined],
    ['FU-A middle of an IDR', b(0x7c, 0x05, 0x88), undefined],
    ['P slice', P_FIRST, undefined],
  ];
  for (const [what, payload, want] of cases) assert.deepEqual(h264IdrStart(payload), want, what);
});

test('H.264 parameter sets: latest SPS and PPS from packets, seeded from sprop-parameter-sets', () => {
  const sets = new H264ParameterSets();
  assert.equal(sets.latest(), undefined);
  sets.observe(SPS);
  assert.equal(sets.latest(), undefined, 'both are needed');
  sets.observe(P_FIRST);
  const payload = stapA([SPS, PPS]);
  sets.observe(payload);
  assert.deepEqual(sets.latest(), { sps: SPS, pps: PPS });
  payload.fill(0); // the cache holds copies, not views of the packet
  assert.deepEqual(sets.latest(), { sps: SPS, pps: PPS });
  const newer = b(0x68, 0xce, 0x38, 0x80);
  sets.observe(newer);
  assert.deepEqual(sets.latest()?.pps, newer);

  const seeded = new H264ParameterSets(`${SPS.toString('base64')},${PPS.toString('base64')}`);
  assert.deepEqual(seeded.latest(), { sps: SPS, pps: PPS });
});

test('VP8 keyframe size: from the keyframe header after the descriptor; none for interframes and later packets', () => {
  // Descriptor X=1, I=1 with a 15-bit PictureID; frame tag (P=0); start code; 320 × 180 with scaling bits set.
  const key = b(0x90, 0x80, 0x81, 0x23, 0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x41, 0xb4, 0x80);
  assert.deepEqual(vp8KeyframeSize(key), { width: 320, height: 180 });
  assert.equal(vp8KeyframeSize(b(0x10, 0x01, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00)), undefined, 'P=1');
  assert.equal(vp8KeyframeSize(b(0x00, 0x00, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xb4, 0x00)), undefined, 'S=0');
  assert.equal(vp8KeyframeSize(b(0x10, 0x00, 0x02, 0x00, 0x9d, 0x01, 0x2b, 0x40, 0x01, 0xb4, 0x00)), undefined, 'no start code');
});

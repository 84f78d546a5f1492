import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectedSliceCount, segmentArgs, shouldCut, slicePolicy } from './slice-policy.ts';
import { buildSdp } from './sdp.ts';
import { LineSplitter, parseSegmentLine } from './segment-list.ts';
import { rtcpBye } from './track-pipeline.ts';

test('audio cuts at every 15 s mark, keyframe or not', () => {
  const a = slicePolicy('audio');
  assert.equal(shouldCut(a, 0, 14.99, false), false);
  assert.equal(shouldCut(a, 0, 15, false), true);
  assert.equal(shouldCut(a, 1, 29.9, true), false);
  assert.equal(shouldCut(a, 1, 30.02, false), true);
});

test('video cuts at the first keyframe at or after each mark', () => {
  const v = slicePolicy('video');
  assert.equal(shouldCut(v, 0, 15.5, false), false);
  assert.equal(shouldCut(v, 0, 14.9, true), false);
  assert.equal(shouldCut(v, 0, 16, true), true);
  assert.equal(shouldCut(v, 1, 28, true), false, 'next mark is 30 s');
});

test('expected slice counts', () => {
  assert.equal(expectedSliceCount(slicePolicy('audio'), 0), 0);
  assert.equal(expectedSliceCount(slicePolicy('audio'), 14), 1);
  assert.equal(expectedSliceCount(slicePolicy('audio'), 30.05), 2, 'a remainder under the slack is no slice');
  assert.equal(expectedSliceCount(slicePolicy('audio'), 31), 3);
  assert.equal(expectedSliceCount(slicePolicy('video'), 31, 2), 3, 'keyframes at 16 s and 30 s: cut at 16, 30 → third slice of 1 s');
  assert.equal(expectedSliceCount(slicePolicy('video'), 31.5, 4), 2, 'keyframes every 4 s: cuts at 16 and 32 → 2 slices');
  assert.equal(expectedSliceCount(slicePolicy('video'), 16.5, 4, 1), 1, 'phase 1: first keyframe after 15 s is 17 s');
  assert.throws(() => slicePolicy('audio', 0), RangeError);
});

test('segment muxer arguments', () => {
  assert.deepEqual(segmentArgs(slicePolicy('audio')), ['-f', 'segment', '-segment_time', '15', '-reset_timestamps', '0']);
  assert.equal(segmentArgs(slicePolicy('video'), 'webm').at(-1), '1');
});

test('SDP for ffmpeg RTP input', () => {
  const sdp = buildSdp({ codec: 'H264', payloadType: 102, clockRate: 90000, fmtp: 'packetization-mode=1' }, 40000);
  assert.match(sdp, /m=video 40000 RTP\/AVP 102\r\na=rtpmap:102 H264\/90000\r\na=fmtp:102 packetization-mode=1\r\n/);
  assert.match(buildSdp({ codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 }, 40002), /m=audio 40002 RTP\/AVP 111\r\na=rtpmap:111 opus\/48000\/2/);
  assert.throws(() => buildSdp({ codec: 'VP8', payloadType: 96, clockRate: 90000 }, 40001), RangeError);
  assert.throws(() => buildSdp({ codec: 'VP8', payloadType: 200, clockRate: 90000 }, 40000), RangeError);
});

test('segment list lines and line splitting', () => {
  assert.deepEqual(parseSegmentLine('slice_00001.ts,15.000000,30.021333'), { file: 'slice_00001.ts', startSec: 15, endSec: 30.021333 });
  assert.equal(parseSegmentLine(''), undefined);
  assert.equal(parseSegmentLine('a.ts,5,1'), undefined);
  assert.equal(parseSegmentLine('a.ts,x,1'), undefined);
  const sp = new LineSplitter();
  assert.deepEqual(sp.push('a,0,1\nb,1'), ['a,0,1']);
  assert.deepEqual(sp.push(',2\n'), ['b,1,2']);
  assert.deepEqual(sp.flush(), []);
});

test('RTCP BYE bytes', () => {
  const b = rtcpBye(0xdeadbeef);
  assert.equal(b.toString('hex'), '80c90001deadbeef81cb0001deadbeef');
});

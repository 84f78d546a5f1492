import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aacArgs, aacChannels, fmtpStereo, opusPacketStereo, rtpPayloadOffset } from './aac-output.ts';

/** An RTP packet with `csrcs` CSRCs, an optional one-word header extension, and the given payload. */
function rtp(payload: number[], csrcs = 0, extension = false): Buffer {
  const head = Buffer.alloc(12 + 4 * csrcs + (extension ? 8 : 0));
  head[0] = 0x80 | (extension ? 0x10 : 0) | csrcs;
  head[1] = 111;
  if (extension) head.writeUInt16BE(1, 12 + 4 * csrcs + 2);
  return Buffer.concat([head, Buffer.from(payload)]);
}

test('the payload starts after CSRCs and the header extension', () => {
  assert.equal(rtpPayloadOffset(rtp([0xfc])), 12);
  assert.equal(rtpPayloadOffset(rtp([0xfc], 2)), 20);
  assert.equal(rtpPayloadOffset(rtp([0xfc], 1, true)), 24);
  assert.equal(rtpPayloadOffset(rtp([])), undefined);
  assert.equal(rtpPayloadOffset(Buffer.from([0x80, 111])), undefined);
});

test("an Opus packet's TOC byte says whether it is stereo", () => {
  // Config 31 (CELT FB 20 ms): 0xf8 mono, 0xfc stereo.
  assert.equal(opusPacketStereo(rtp([0xf8, 0])), false);
  assert.equal(opusPacketStereo(rtp([0xfc, 0], 0, true)), true);
  assert.equal(opusPacketStereo(rtp([])), undefined);
});

test('mono unless the fmtp or a packet says stereo (RFC 7587: no sprop-stereo means mono)', () => {
  assert.equal(fmtpStereo('minptime=10;useinbandfec=1'), false);
  assert.equal(fmtpStereo('minptime=10; sprop-stereo=1'), true);
  assert.equal(fmtpStereo('sprop-stereo=0;stereo=1'), false);
  assert.equal(aacChannels(undefined, []), 1);
  assert.equal(aacChannels('useinbandfec=1', [rtp([0xf8]), rtp([0xf8])]), 1);
  assert.equal(aacChannels('useinbandfec=1', [rtp([0xf8]), rtp([0xfc])]), 2);
  assert.equal(aacChannels('sprop-stereo=1', [rtp([0xf8])]), 2);
});

test('AAC at 64 kb/s with the channel count given; the fast coder for mono only', () => {
  assert.deepEqual(aacArgs(1), ['-c:a', 'aac', '-b:a', '64k', '-ac', '1', '-aac_coder', 'fast']);
  assert.deepEqual(aacArgs(2), ['-c:a', 'aac', '-b:a', '64k', '-ac', '2', '-aac_coder', 'twoloop']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtpHeader, RtpPacket } from 'werift';
import { extmapId } from './sdp.ts';
import { serializeGated, TAP_AUDIO_LEVEL_ID } from './gated-forward.ts';
import { AUDIO_LEVEL_URI, audioLevelBlock, readAudioLevel, readRtpHeader } from '../../rtp-payload/index.ts';

const packetWith = (extensions: { id: number; payload: Buffer }[]) =>
  new RtpPacket(new RtpHeader({ payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 42, extensions }), Buffer.from([0xf8, 1, 2, 3])).serialize();

test('RFC 6464 audio level: read under its id in the one-byte and two-byte forms, beside other extensions; absent or malformed is undefined', () => {
  // werift writes the one-byte form (0xBEDE) for ids below 15: a mid, then the level with the voice flag.
  const oneByte = packetWith([{ id: 4, payload: Buffer.from('0') }, { id: 1, payload: Buffer.from([0x80 | 33]) }]);
  assert.deepEqual(readAudioLevel(oneByte, 1), { level: 33, voice: true });
  assert.equal(readAudioLevel(oneByte, 2), undefined, 'another id');
  assert.equal(readRtpHeader(oneByte)!.payloadEnd - readRtpHeader(oneByte)!.payloadOffset, 4, 'the payload after the block');
  // The two-byte form (0x100X): id, length, data.
  const two = Buffer.concat([Buffer.from([0x90, 111, 0, 7, 0, 0, 3, 192, 0, 0, 0, 42]), Buffer.from([0x10, 0x00, 0x00, 0x01, 20, 1, 90, 0]), Buffer.from([0xf8])]);
  assert.deepEqual(readAudioLevel(two, 20), { level: 90, voice: false });
  assert.equal(readAudioLevel(packetWith([]), 1), undefined, 'no extension block');
  // A block whose element runs past its end.
  const cut = Buffer.concat([Buffer.from([0x90, 111, 0, 7, 0, 0, 3, 192, 0, 0, 0, 42]), Buffer.from([0xbe, 0xde, 0x00, 0x01, 0x13, 9, 9, 9])]);
  assert.equal(readAudioLevel(cut, 1), undefined);
  assert.equal(readAudioLevel(Buffer.from([1, 2, 3]), 1), undefined, 'not RTP');
});

test('the in-process tap writes the level as its packets\' only extension; the extension id is read from a description', () => {
  const gated = { payloadType: 111, ssrc: 5, marker: false, sequenceNumber: 9, timestamp: 1920, payload: Buffer.from([0xf8, 7]), padding: false, paddingSize: 0 };
  const plain = serializeGated(gated);
  assert.equal(plain.length, 14);
  assert.equal(readAudioLevel(plain, TAP_AUDIO_LEVEL_ID), undefined);
  const withLevel = serializeGated({ ...gated, audioLevel: 0x80 | 12 });
  assert.deepEqual(readAudioLevel(withLevel, TAP_AUDIO_LEVEL_ID), { level: 12, voice: true });
  const h = readRtpHeader(withLevel)!;
  assert.deepEqual([h.sequenceNumber, h.timestamp, h.ssrc, h.payloadType], [9, 1920, 5, 111]);
  assert.deepEqual(withLevel.subarray(h.payloadOffset, h.payloadEnd), Buffer.from([0xf8, 7]));
  assert.deepEqual(audioLevelBlock(3, 0x7f), Buffer.from([0xbe, 0xde, 0, 1, 0x30, 0x7f, 0, 0]));

  const sdp = ['v=0', 'm=video 9 UDP/TLS/RTP/SAVPF 96', `a=extmap:1 ${AUDIO_LEVEL_URI}`, 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid', `a=extmap:9/recvonly ${AUDIO_LEVEL_URI}`, ''].join('\r\n');
  assert.equal(extmapId(sdp, 'audio', AUDIO_LEVEL_URI), 9, "the audio section's, with a direction");
  assert.equal(extmapId(sdp, 'audio', 'urn:x'), undefined);
  assert.equal(extmapId('v=0\r\n', 'audio', AUDIO_LEVEL_URI), undefined);
});

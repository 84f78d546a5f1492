import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeAmf0, FLV_TAG, flvHeader, flvTag } from '../../rtmp/index.ts';
import { FlvKinds } from './flv-kinds.ts';
import { HeldFlv } from './held-flv.ts';
import { PassThrough } from 'node:stream';

const video = (ms: number) => flvTag(FLV_TAG.video, ms, Buffer.from([0x17, 1, 0, 0, 0, 0xaa]));
const audio = (ms: number) => flvTag(FLV_TAG.audio, ms, Buffer.from([0xaf, 1, 0x21]));
const meta = (o: Record<string, number>) => flvTag(FLV_TAG.script, 0, encodeAmf0(['onMetaData', o]));

/** Feeds `parts` in pieces of 7 bytes (tags split across writes, as a socket delivers them). */
function read(...parts: Buffer[]) {
  const k = new FlvKinds();
  const all = Buffer.concat([flvHeader(), ...parts]);
  let seen;
  for (let i = 0; i < all.length; i += 7) seen = k.push(all.subarray(i, i + 7));
  return seen;
}

test('FLV kinds: from the encoder\'s metadata when it names the codecs, else from the tags within 1.5 s of media time', () => {
  assert.deepEqual(read(meta({ width: 640, videocodecid: 7 }), audio(0), video(0)), { audio: false, video: true }, 'ffmpeg -an: metadata without audiocodecid');
  assert.deepEqual(read(meta({ audiocodecid: 10, videocodecid: 7 })), { audio: true, video: true });
  assert.deepEqual(read(meta({ duration: 0 }), video(0), video(40), audio(45)), { audio: true, video: true }, 'metadata naming no codec: the tags');
  assert.deepEqual(read(video(0), video(1000), video(1499)), undefined, 'not yet');
  assert.deepEqual(read(video(0), video(1000), video(1500)), { audio: false, video: true });
  assert.deepEqual(read(audio(100), audio(1700)), { audio: true, video: false });
  assert.equal(read(), undefined, 'nothing yet');
});

test('held FLV: kept until its kinds are known, then handed on whole, the header announcing only the kinds found', async () => {
  const held = new HeldFlv();
  held.write(flvHeader());
  held.write(meta({ videocodecid: 7 }));
  held.write(video(0));
  assert.deepEqual(await held.kinds, { audio: false, video: true });
  const out = new PassThrough();
  const got: Buffer[] = [];
  out.on('data', (b: Buffer) => got.push(b));
  held.attach(out);
  held.write(video(66));
  await new Promise<void>((resolve) => held.end(resolve));
  const bytes = Buffer.concat(got);
  assert.equal(bytes[4], 0x01, 'TypeFlags: video only');
  assert.deepEqual(bytes.subarray(5), Buffer.concat([flvHeader().subarray(5), meta({ videocodecid: 7 }), video(0), video(66)]));
});

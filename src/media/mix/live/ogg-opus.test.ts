import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runFfmpeg } from '../../ffmpeg.ts';
import { opusPacketSamples } from '../../../rtp-payload/index.ts';
import { OggOpusWriter, oggCrc } from './ogg-opus.ts';
import { readRtpHeader } from '../../../rtp-payload/index.ts';
import { startRtpSource } from './testing/rtp-source.ts';
import { waitUntil } from '../../../testing/wait.ts';

test('Opus packet lengths from the TOC byte, and Ogg pages with the right checksum', () => {
  assert.equal(opusPacketSamples(Uint8Array.of(0xfc)), 960); // CELT 20 ms, one frame
  assert.equal(opusPacketSamples(Uint8Array.of(0x78 | 1)), 1920); // hybrid 20 ms, two frames
  assert.equal(opusPacketSamples(Uint8Array.of(0x08)), 960); // SILK NB 20 ms
  assert.equal(opusPacketSamples(Uint8Array.of(0x18 | 3, 2)), 2 * 2880); // SILK 60 ms, two frames (code 3)
  assert.equal(opusPacketSamples(Uint8Array.of(0x18 | 3, 0)), undefined);
  assert.equal(opusPacketSamples(Uint8Array.of()), undefined);
  // The check value of this CRC (polynomial 0x04c11db7, not reflected, no final xor) over "123456789".
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

test('real Opus RTP from ffmpeg, written here as Ogg, decodes in ffmpeg to exactly the samples its TOC bytes count', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-ogg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const packets: Buffer[] = [];
  const source = await startRtpSource({ kind: 'opus' }, (p) => packets.push(Buffer.from(p)));
  // 1.5 s of 20 ms packets.
  await waitUntil(() => packets.length >= 75, { timeoutMs: 60_000, what: '75 Opus packets' });
  await source.stop();
  const w = new OggOpusWriter(2);
  let samples = 0;
  const pages = [w.headers()];
  for (const p of packets) {
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

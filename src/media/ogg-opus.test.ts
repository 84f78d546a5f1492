import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFPROBE_BIN } from './ffmpeg.ts';
import { oggCrc, OggOpusWriter, opusPacketSamples } from './ogg-opus.ts';

/** An Opus RTP packet: sequence number, timestamp, and a 20 ms CELT mono frame of silence-like bytes. */
function rtp(seq: number, ts: number): Buffer {
  const p = Buffer.alloc(12 + 40);
  p[0] = 0x80;
  p[1] = 111;
  p.writeUInt16BE(seq & 0xffff, 2);
  p.writeUInt32BE(ts >>> 0, 4);
  p[12] = 0xf8; // config 31 (CELT FB 20 ms), mono, one frame
  return p;
}

test("Ogg's CRC is the unreflected 0x04c11db7 one", () => {
  assert.equal(oggCrc(Buffer.from('123456789')), 0x89a1897f);
});

test('Opus packet durations come from the TOC byte', () => {
  assert.equal(opusPacketSamples(Buffer.from([0xf8])), 960); // CELT 20 ms, one frame
  assert.equal(opusPacketSamples(Buffer.from([0x08])), 960); // SILK 20 ms
  assert.equal(opusPacketSamples(Buffer.from([0x09])), 1920); // SILK 20 ms, two frames
  assert.equal(opusPacketSamples(Buffer.from([0xe3, 0x03])), 360); // CELT 2.5 ms, three frames
  assert.equal(opusPacketSamples(Buffer.from([])), 0);
});

test('ffprobe reads the stream with the RTP timing: gaps stay gaps, duplicates and late packets are dropped', () => {
  const w = new OggOpusWriter();
  const pages = [w.header(1)];
  const base = 0xffffff00; // the timestamps wrap inside the stream
  for (let i = 0; i < 50; i++) {
    if (i >= 20 && i < 30) continue; // 200 ms lost
    const page = w.packet(rtp(i, base + i * 960));
    if (page) pages.push(page);
    if (i === 5) assert.equal(w.packet(rtp(i, base + (i - 1) * 960)), undefined);
    if (i === 5) assert.equal(w.packet(rtp(i, base + i * 960)), undefined);
    if (i === 40) assert.equal(w.packet(rtp(39, base + 39 * 960)), undefined);
  }
  pages.push(w.flush()!);
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-ogg-'));
  try {
    const file = join(dir, 'a.ogg');
    writeFileSync(file, Buffer.concat(pages));
    const out = execFileSync(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'packet=pts', '-show_entries', 'stream=codec_name,channels', '-of', 'csv=p=0', file]).toString();
    const lines = out.trim().split('\n');
    assert.ok(lines.includes('opus,1'), out);
    const pts = lines.filter((l) => /^\d+$/.test(l)).map(Number);
    assert.equal(pts.length, 40);
    assert.deepEqual(pts.slice(18, 22), [18 * 960, 19 * 960, 30 * 960, 31 * 960]);
    assert.equal(pts[39], 49 * 960);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
import { runChild } from '../../process/index.ts';
import { FFMPEG_BIN } from '../../media/ffmpeg.ts';
import { probe } from '../individual/testing/media-checks.ts';
import { writeMp4Files } from '../common/output/index.ts';
import { recoverWebLeftovers } from './recovery.ts';

test('restart: segments the old process closed but never handed over are uploaded and its playlist is finished', async () => {
  const sessionDir = mkdtempSync(join(tmpdir(), 'web-recovery-'));
  try {
    const g0 = join(sessionDir, 'g0');
    mkdirSync(join(g0, 'hls'), { recursive: true });
    mkdirSync(join(g0, 'capture'), { recursive: true });
    const seg = (run: number, n: number) => join(g0, 'capture', `seg_${String(run).padStart(3, '0')}_${String(n).padStart(5, '0')}.ts`);
    for (const p of [seg(0, 0), seg(0, 1), seg(1, 0)]) writeFileSync(p, 'x'.repeat(188));
    writeFileSync(join(g0, 'hls', 'journal.jsonl'), JSON.stringify({ localPath: seg(0, 0), uri: 'sid_c_20260101000000000.ts', startMs: 0, durationSec: 3 }) + '\n');
    writeFileSync(join(g0, 'hls', 'playlist.m3u8'), '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:3.000,\nsid_c_20260101000000000.ts\n');
    mkdirSync(join(sessionDir, 'g1'));
    const uploaded: string[] = [];
    const upload = {
      objectKey: (n: string) => `pre/${n}`,
      enqueue: async (_p: string, key: string) => (uploaded.push(key), { ok: true as const, key, bytes: 1 }),
    };
    const r = await recoverWebLeftovers({ sessionDir, currentGeneration: 'g1', naming: { sid: 'sid', cname: 'c' }, upload });
    assert.deepEqual(r.map((x) => [x.generation, x.track.recovered, x.track.alreadyEnded]), [['g0', 2, false]]);
    assert.equal(r[0]!.track.slices.length, 3, 'every slice still on disk, for the MP4s');
    assert.equal(uploaded.filter((k) => k.endsWith('.ts')).length, 2);
    assert.equal(uploaded.at(-1), 'pre/sid_c.m3u8', 'the first generation keeps its unprefixed playlist name');
    const pl = parsePlaylist(readFileSync(join(g0, 'hls', 'playlist.m3u8'), 'utf8'), 'video');
    assert.ok(pl.ended);
    assert.equal(pl.entries.length, 3);
    // seg 0/1 continues run 0; seg 1/0 starts run 1: one discontinuity.
    assert.deepEqual(pl.entries.map((e) => e.discontinuity), [false, false, true]);
    // Nothing more to upload a second time.
    const again = await recoverWebLeftovers({ sessionDir, currentGeneration: 'g1', naming: { sid: 'sid', cname: 'c' }, upload });
    assert.deepEqual(again.map((x) => [x.generation, x.track.recovered, x.track.alreadyEnded]), [['g0', 0, true]]);
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }
});

test('restart: the MP4 files of a generation that ended in a crash are written from its slices, under its names', async () => {
  const sessionDir = mkdtempSync(join(tmpdir(), 'web-recovery-mp4-'));
  try {
    // g1 (the second generation, names with bak0_) crashed after two real 1 s slices of one encoder run.
    const g1 = join(sessionDir, 'g1');
    mkdirSync(join(g1, 'capture'), { recursive: true });
    const made = await runChild(FFMPEG_BIN, [
      '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=15:d=2', '-f', 'lavfi', '-i', 'sine=f=440:d=2',
      '-c:v', 'libx264', '-g', '15', '-c:a', 'aac', '-f', 'segment', '-segment_time', '1', '-segment_format', 'mpegts',
      join(g1, 'capture', 'seg_000_%05d.ts'),
    ]);
    assert.equal(made.code, 0, made.stderr.toString());
    mkdirSync(join(sessionDir, 'g2'));
    const uploaded: { path: string; key: string }[] = [];
    const upload = {
      objectKey: (n: string) => `pre/${n}`,
      enqueue: async (path: string, key: string) => (uploaded.push({ path, key }), { ok: true as const, key, bytes: 1 }),
    };
    const [run] = await recoverWebLeftovers({ sessionDir, currentGeneration: 'g2', naming: { sid: 'sid', cname: 'c' }, upload });
    assert.ok(run);
    assert.equal(run.track.recovered, 2);
    const files = await writeMp4Files(
      { slices: run.track.slices, naming: run.naming, workDir: join(sessionDir, 'g2', 'mp4', run.generation) },
      { split: { kind: 'once-reached', reachMs: 120 * 60_000 }, streams: { audio: true, video: true }, owner: { trackType: 'audio_and_video', uid: '0', mixedAllUser: true }, upload },
    );
    assert.deepEqual(files.map((f) => f.fileName), ['pre/bak0_sid_c_0.mp4']);
    const mp4 = uploaded.find((u) => u.key === 'pre/bak0_sid_c_0.mp4')!;
    const p = await probe(mp4.path);
    assert.deepEqual([...p.codecs].sort(), ['aac', 'h264']);
    assert.ok(Math.abs(p.duration - 2) < 0.3, `${p.duration} s`);
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }
});

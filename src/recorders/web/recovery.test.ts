import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../media/index.ts';
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
    assert.deepEqual(r, { g0: 2 });
    assert.equal(uploaded.filter((k) => k.endsWith('.ts')).length, 2);
    assert.equal(uploaded.at(-1), 'pre/sid_c.m3u8', 'the first generation keeps its unprefixed playlist name');
    const pl = parsePlaylist(readFileSync(join(g0, 'hls', 'playlist.m3u8'), 'utf8'), 'video');
    assert.ok(pl.ended);
    assert.equal(pl.entries.length, 3);
    // seg 0/1 continues run 0; seg 1/0 starts run 1: one discontinuity.
    assert.deepEqual(pl.entries.map((e) => e.discontinuity), [false, false, true]);
    // Nothing more to do a second time.
    assert.deepEqual(await recoverWebLeftovers({ sessionDir, currentGeneration: 'g1', naming: { sid: 'sid', cname: 'c' }, upload }), {});
  } finally {
    rmSync(sessionDir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  appendSlice,
  createPlaylist,
  parsePlaylist,
  playlistName,
  renderPlaylist,
  sliceName,
} from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { generationNaming, recoverLeftovers } from './recovery.ts';

test('slices closed on disk but never enqueued by the previous run are uploaded and its playlist finished', async () => {
  const root = mkdtempSync(join(tmpdir(), 'reeltime-recovery-'));
  try {
    const naming = { sid: 'abc', cname: 'room' };
    const track = join(root, 'g0', '7-audio');
    mkdirSync(join(track, 's1'), { recursive: true });
    const t = Date.UTC(2026, 0, 1);
    const uploadedName = sliceName(naming, '7', 'audio', t, 'ts');
    writeFileSync(join(track, 's1', 'slice_00000.ts'), 'x'.repeat(100));
    writeFileSync(join(track, 's1', 'slice_00001.ts'), 'y'.repeat(100));
    writeFileSync(join(track, 'journal.jsonl'), JSON.stringify({ localPath: join(track, 's1', 'slice_00000.ts'), uri: uploadedName, startMs: t, durationSec: 15 }) + '\n');
    writeFileSync(join(track, 'playlist.m3u8'), renderPlaylist(appendSlice(createPlaylist('audio'), { uri: uploadedName, durationSec: 15, startMs: t, newStream: true })));
    const enqueued: string[] = [];
    const upload = {
      objectKey: (f: string) => `p/${f}`,
      enqueue: async (_path: string, key: string) => {
        enqueued.push(key);
        return { ok: true as const, key, bytes: 1 };
      },
    } as unknown as UploadSession;
    const out = await recoverLeftovers({ sessionDir: root, currentGeneration: 'g1', naming, upload, playlistKey: (n, uid, kind) => playlistName(n, uid, kind) });
    assert.deepEqual(out, [{ uid: '7', kind: 'audio', slices: 1, playlistKey: 'p/abc_room__uid_s_7__uid_e_audio.m3u8', firstStartMs: t }]);
    assert.equal(enqueued.length, 2);
    assert.match(enqueued[0]!, /^p\/abc_room__uid_s_7__uid_e_audio_\d{17}\.ts$/, 'the leftover keeps the first run’s (unprefixed) name');
    assert.equal(enqueued[1], 'p/abc_room__uid_s_7__uid_e_audio.m3u8');
    const pl = parsePlaylist(readFileSync(join(track, 'playlist.m3u8'), 'utf8'), 'audio');
    assert.equal(pl.entries.length, 2);
    assert.equal(pl.entries[1]!.discontinuity, false, 'same stream');
    assert.ok(pl.ended);
    // A second recovery finds nothing more to do.
    assert.deepEqual(await recoverLeftovers({ sessionDir: root, currentGeneration: 'g1', naming, upload, playlistKey: (n, uid, kind) => playlistName(n, uid, kind) }), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('generation directories map to bak<n>_ prefixes', () => {
  assert.equal(generationNaming({ sid: 's', cname: 'c' }, 'g0').backupIndex, undefined);
  assert.equal(generationNaming({ sid: 's', cname: 'c' }, 'g1').backupIndex, 0);
  assert.equal(generationNaming({ sid: 's', cname: 'c' }, 'g3').backupIndex, 2);
});

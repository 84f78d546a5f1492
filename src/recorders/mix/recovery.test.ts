import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { appendSlice, createPlaylist, mixSliceName, parsePlaylist, renderPlaylist } from '../../media/index.ts';
import type { RecordedFile } from '../../recording/dispatch/index.ts';
import { resumedBackupIndex } from '../common/output/index.ts';
import { recoverMixRuns } from './recovery.ts';

const naming = { sid: 'abc', cname: 'room' };

function fakeUpload(enqueued: string[]) {
  return {
    objectKey: (f: string) => `p/${f}`,
    enqueue: async (_path: string, key: string) => (enqueued.push(key), { ok: true as const, key, bytes: 1 }),
  };
}

test('mix: the dead run’s slices never handed over (the one cut off too) are uploaded under its names, its playlist ended; a second recovery uploads nothing', async () => {
  const root = mkdtempSync(join(tmpdir(), 'reeltime-mix-recovery-'));
  try {
    const g0 = join(root, 'g0');
    mkdirSync(join(g0, 'mix', 'run0'), { recursive: true });
    mkdirSync(join(g0, 'hls'), { recursive: true });
    mkdirSync(join(root, 'g1'));
    const t = Date.UTC(2026, 0, 1);
    const handed = join(g0, 'mix', 'run0', 'slice_00000.ts');
    writeFileSync(handed, 'a'.repeat(188));
    writeFileSync(join(g0, 'mix', 'run0', 'slice_00001.ts'), 'b'.repeat(188));
    writeFileSync(join(g0, 'mix', 'run0', 'slice_00002.ts'), '');
    const uri = mixSliceName(naming, t, 'ts');
    writeFileSync(join(g0, 'hls', 'journal.jsonl'), JSON.stringify({ localPath: handed, uri, startMs: t, durationSec: 15 }) + '\n');
    writeFileSync(join(g0, 'hls', 'playlist.m3u8'), renderPlaylist(appendSlice(createPlaylist('video'), { uri, durationSec: 15, startMs: t, newStream: true })));

    const enqueued: string[] = [];
    const runs = await recoverMixRuns({ sessionDir: root, currentGeneration: 'g1', naming, kind: 'video', upload: fakeUpload(enqueued) });
    assert.equal(runs.length, 1);
    const [run] = runs;
    assert.equal(run!.naming.backupIndex, undefined, 'the first run keeps its unprefixed names');
    assert.deepEqual([run!.track.recovered, run!.track.alreadyEnded, run!.track.playlistKey, run!.track.firstStartMs], [1, false, 'p/abc_room.m3u8', t]);
    assert.deepEqual(run!.track.slices.map((s) => s.localPath.split('/').at(-1)), ['slice_00000.ts', 'slice_00001.ts'], 'both slices for the MP4, the empty one left out');
    assert.equal(enqueued.length, 2);
    assert.match(enqueued[0]!, /^p\/abc_room_\d{17}\.ts$/);
    assert.equal(enqueued[1], 'p/abc_room.m3u8');
    const pl = parsePlaylist(readFileSync(join(g0, 'hls', 'playlist.m3u8'), 'utf8'), 'video');
    assert.deepEqual([pl.entries.length, pl.ended, pl.entries[1]!.discontinuity], [2, true, false]);

    const again: string[] = [];
    const second = await recoverMixRuns({ sessionDir: root, currentGeneration: 'g2', naming, kind: 'video', upload: fakeUpload(again) });
    assert.deepEqual(again, [], 'nothing uploaded twice');
    const g0run = second.find((r) => r.naming.backupIndex === undefined)!;
    assert.deepEqual([g0run.track.alreadyEnded, g0run.track.slices.length], [true, 2], 'still listed, its slices still there for its MP4');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('mix: a run killed within its first slice (nothing handed over) still gets an ended playlist', async () => {
  const root = mkdtempSync(join(tmpdir(), 'reeltime-mix-recovery-'));
  try {
    mkdirSync(join(root, 'g1', 'mix', 'run0'), { recursive: true });
    writeFileSync(join(root, 'g1', 'mix', 'run0', 'slice_00000.ts'), 'c'.repeat(188));
    const enqueued: string[] = [];
    const runs = await recoverMixRuns({ sessionDir: root, currentGeneration: 'g2', naming, kind: 'audio', upload: fakeUpload(enqueued) });
    assert.deepEqual(runs.map((r) => [r.naming.backupIndex, r.track.recovered, r.track.playlistKey]), [[0, 1, 'p/bak0_abc_room.m3u8']]);
    assert.match(enqueued[0]!, /^p\/bak0_abc_room_\d{17}\.ts$/);
    assert.ok(parsePlaylist(readFileSync(join(root, 'g1', 'hls', 'playlist.m3u8'), 'utf8'), 'audio').ended);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the bak<n>_ index of a resumed run is past every reported prefix and every run directory on disk', async () => {
  const root = mkdtempSync(join(tmpdir(), 'reeltime-mix-recovery-'));
  const file = (fileName: string): RecordedFile => ({ fileName, trackType: 'audio_and_video', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: 0 });
  try {
    assert.equal(await resumedBackupIndex([], join(root, 'missing')), 0);
    mkdirSync(join(root, 'g0'));
    assert.equal(await resumedBackupIndex([file('p/abc_room.m3u8')], root), 0);
    // bak0's run died before it reported a file: the next run is bak1, in g2.
    mkdirSync(join(root, 'g1'));
    assert.equal(await resumedBackupIndex([file('p/abc_room.m3u8')], root), 1);
    assert.equal(await resumedBackupIndex([file('p/bak3_abc_room.m3u8')], root), 4);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../../log/index.ts';
import type { RecordedFile } from '../../../recording/dispatch/index.ts';
import type { EnqueueResult } from '../../../storage/index.ts';
import { recorderSignals } from '../events.ts';
import { RecordingOutput } from './recording-output.ts';

function harness(dir: string, hls = true) {
  const events: { type: number; details: Record<string, unknown> }[] = [];
  const statuses: number[] = [];
  const reported: string[][] = [];
  const handed: string[] = [];
  let refuse = false;
  const upload = {
    objectKey: (name: string) => `rec/${name}`,
    async enqueue(_path: string, key: string): Promise<EnqueueResult> {
      if (refuse && key.endsWith('.ts')) return { ok: false, reason: 'spool-full', message: 'spool full' };
      handed.push(key);
      return { ok: true, key, bytes: 1 };
    },
    finish: async () => ({ uploadingStatus: 'uploaded' as const, files: [] }),
  };
  const report = {
    event: (type: number, _s: number, details: Record<string, unknown>) => void events.push({ type, details }),
    status: (s: number) => void statuses.push(s),
    files: (f: readonly RecordedFile[]) => void reported.push(f.map((x) => x.fileName)),
  };
  const signals = recorderSignals(report as never);
  const previous: RecordedFile = { fileName: 'rec/old.m3u8', trackType: 'audio', uid: '7', mixedAllUser: false, isPlayable: true, sliceStartTime: 1 };
  const output = new RecordingOutput({ previousFiles: [previous], upload, report, signals, log: createLogger('silent'), hls });
  const slice = async (n: number) => {
    const localPath = join(dir, `slice_${n}.ts`);
    await writeFile(localPath, 'x');
    return { localPath, startMs: 1_000_000 + n * 15_000, durationSec: 15, container: 'ts' as const, bytes: 1 };
  };
  return { events, statuses, reported, handed, output, slice, refuse: () => (refuse = true) };
}

test('recording output: slices in close order, 42 per stream, 4 and status 5 once, the file list in its order', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rec-output-'));
  try {
    const h = harness(dir);
    h.output.listRecovered([
      { fileName: 'rec/old.m3u8', trackType: 'audio', uid: '7', mixedAllUser: false, isPlayable: true, sliceStartTime: 1 },
      { fileName: 'rec/bak0_lost.m3u8', trackType: 'audio', uid: '7', mixedAllUser: false, isPlayable: true, sliceStartTime: 2 },
    ]);
    const owner = { trackType: 'audio', uid: '7', mixedAllUser: false } as const;
    const a = h.output.track({ dir: join(dir, 'a'), kind: 'audio', playlistName: 'a.m3u8', sliceName: (ms) => `a_${ms}.ts` }, owner, { streamUid: '7', trackType: 'audio' });
    const after: string[] = [];
    const s0 = await h.slice(0);
    const s1 = await h.slice(1);
    h.output.serial(() => h.output.sliceClosed(a, s0, async () => void after.push('playlist')));
    h.output.serial(() => h.output.sliceClosed(a, s1));
    await h.output.settled();
    assert.deepEqual(h.handed, [`rec/a_${s0.startMs}.ts`, 'rec/a.m3u8', `rec/a_${s1.startMs}.ts`, 'rec/a.m3u8'], 'a slice before the playlist naming it');
    assert.deepEqual(h.events.map((e) => e.type), [42, 4], 'one 42 for the stream, one 4 for the first playlist');
    assert.deepEqual(h.statuses, [5]);
    assert.deepEqual(after, ['playlist']);
    assert.ok(h.output.recorded);
    h.output.addOutputs([{ fileName: 'rec/a.mp4', ...owner, isPlayable: true, sliceStartTime: s0.startMs }, { fileName: 'rec/old.m3u8', ...owner, isPlayable: true, sliceStartTime: 1 }]);
    assert.deepEqual(h.output.files().map((f) => f.fileName), ['rec/old.m3u8', 'rec/bak0_lost.m3u8', 'rec/a.m3u8', 'rec/a.mp4'], 'each file once, outputs last');
    assert.deepEqual(h.reported.at(-1), ['rec/old.m3u8', 'rec/bak0_lost.m3u8', 'rec/a.m3u8']);
    assert.equal(await h.output.awaitUploads(), 'uploaded');
    assert.equal(h.events.at(-1)?.type, 31);
    // A slice the spool refuses is an uploader error (event 1) and names nothing.
    h.refuse();
    await h.output.sliceClosed(a, await h.slice(2));
    assert.equal(h.events.at(-1)?.type, 1);
    assert.equal(a.closed.length, 3, 'the MP4s are cut from every closed slice');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('recording output without hls: slices kept for the MP4s, no playlist listed or uploaded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rec-output-'));
  try {
    const h = harness(dir, false);
    const t = h.output.track({ dir: join(dir, 'v'), kind: 'video', playlistName: 'v.m3u8', sliceName: (ms) => `v_${ms}.ts` }, { trackType: 'audio_and_video', uid: '0', mixedAllUser: true });
    await h.output.sliceClosed(t, await h.slice(0));
    assert.deepEqual(h.handed, []);
    assert.ok(h.output.recorded);
    assert.deepEqual(h.output.files().map((f) => f.fileName), ['rec/old.m3u8']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parsePlaylist } from '../../../media/index.ts';
import type { EnqueueResult } from '../../../storage/index.ts';
import { HlsTrackWriter, JOURNAL_FILE, PLAYLIST_CONTENT_TYPE } from './hls-track.ts';

const T0 = Date.UTC(2026, 0, 1, 12);

test('HLS track writer: slice before playlist, discontinuity after a break, journal, ENDLIST once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hls-track-'));
  try {
    const handed: { key: string; contentType: string | undefined; text: string | undefined }[] = [];
    let refuse = false;
    const upload = {
      objectKey: (name: string) => `rec/${name}`,
      async enqueue(localPath: string, key: string, opts?: { contentType?: string }): Promise<EnqueueResult> {
        if (refuse) return { ok: false, reason: 'spool-full', message: 'spool full' };
        const text = opts?.contentType === PLAYLIST_CONTENT_TYPE ? await readFile(localPath, 'utf8') : undefined;
        handed.push({ key, contentType: opts?.contentType, text });
        return { ok: true, key, bytes: 1 };
      },
    };
    const w = new HlsTrackWriter({
      dir: join(dir, '7-audio'),
      kind: 'audio',
      upload,
      playlistName: 'p.m3u8',
      sliceName: (ms, c) => `s_${ms}.${c}`,
    });
    const slice = async (startMs: number, durationSec: number) => {
      const localPath = join(dir, `${startMs}.ts`);
      await writeFile(localPath, 'x');
      return w.addSlice({ localPath, startMs, durationSec, container: 'ts' });
    };
    await w.end();
    assert.equal(handed.length, 0, 'a track that recorded nothing uploads nothing');

    const first = await slice(T0, 15);
    assert.deepEqual(first, { ok: true, key: `rec/s_${T0}.ts`, startsStream: true, discontinueUtcMs: T0, firstPlaylist: true, playlistUploaded: true });
    assert.deepEqual(handed.map((h) => h.key), [`rec/s_${T0}.ts`, 'rec/p.m3u8']);
    const second = await slice(T0 + 15_000, 4);
    assert.equal(second.ok && second.startsStream, false);
    assert.equal(second.ok && second.firstPlaylist, false);

    // The user left and came back 10 s later: a new stream.
    w.beginStream();
    const third = await slice(T0 + 29_000, 15);
    assert.equal(third.ok && third.discontinueUtcMs, T0 + 19_000, 'end of the previous stream');
    refuse = true;
    assert.deepEqual(await slice(T0 + 44_000, 15), { ok: false, message: 'spool full' });
    refuse = false;

    await w.end();
    await w.end();
    const playlists = handed.filter((h) => h.contentType === PLAYLIST_CONTENT_TYPE);
    assert.equal(playlists.length, 4, 'after each slice, then once with ENDLIST');
    const last = parsePlaylist(playlists.at(-1)!.text!, 'audio');
    assert.equal(last.ended, true);
    assert.deepEqual(last.entries.map((e) => [e.uri, e.discontinuity]), [
      [`s_${T0}.ts`, false],
      [`s_${T0 + 15_000}.ts`, false],
      [`s_${T0 + 29_000}.ts`, true],
    ]);
    const journal = (await readFile(join(dir, '7-audio', JOURNAL_FILE), 'utf8')).trim().split('\n');
    assert.equal(journal.length, 3);
    assert.deepEqual(w.slices.map((s) => s.startMs), [T0, T0 + 15_000, T0 + 29_000]);
    assert.equal(w.firstStartMs, T0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

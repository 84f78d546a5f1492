// A recorder's WHEP subscription replaced mid-recording (the channel node ended the first session): what the
// individual recorder's files show across the switch, measured with ffprobe (docs/recording-individual.md,
// "A WHEP subscription replaced mid-recording").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Sfu } from '../../channel/sfu.ts';
import { FFMPEG_BIN, FFPROBE_BIN, parsePlaylist } from '../../media/index.ts';
import { rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { bucketKeys, probe, sleep, waitFor } from '../individual/testing/media-checks.ts';

const run = promisify(execFile);

/** Every packet's pts and duration (s) of a file, in file order. */
async function packets(file: string, kind: 'audio' | 'video'): Promise<{ pts: number; dur: number }[]> {
  const { stdout } = await run(FFPROBE_BIN, ['-v', 'error', '-select_streams', kind === 'audio' ? 'a:0' : 'v:0', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', file], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.split(',').map(Number))
    .filter((f) => Number.isFinite(f[0]))
    .map((f) => ({ pts: f[0]!, dur: Number.isFinite(f[1]) ? f[1]! : 0 }));
}

test('recording.mediaPath whep: a WHEP subscription replaced mid-recording: the files across the switch, measured', async (t) => {
  const { subscribe } = Sfu.prototype;
  const made: { sfu: Sfu; id: string; atMs: number }[] = [];
  Sfu.prototype.subscribe = async function (this: Sfu, p) {
    const s = await subscribe.call(this, p);
    made.push({ sfu: this, id: s.id, atMs: Date.now() });
    return s;
  };
  const h = await startHarness({ recording: { mediaPath: 'whep' } });
  try {
    const cname = 'ind-whep-replace';
    await h.publish({ cname, uid: 303, color: 'red', toneHz: 440, codec: 'h264' });
    const { resourceId, sid } = await h.startRecording(cname, '9303', {
      token: rtcToken(cname, 9303, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    await waitFor(() => ['audio', 'video'].every((k) => bucketKeys(h.bucketDir).some((x) => x.includes(`__uid_s_303__uid_e_${k}_`))), 120_000, 'a slice of each kind');
    await sleep(4000);
    // The channel node ends the recorder's WHEP session (as a node restarting or timing it out would).
    const first = made[0]!;
    const cutAt = Date.now();
    await first.sfu.end(first.id, 'connection_failed');
    await waitFor(() => made.length >= 2, 60_000, 'a replacement WHEP session');
    const replacedAt = made[1]!.atMs;
    await sleep(20_000);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9303', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    t.diagnostic(`cut → replacement WHEP POST: ${replacedAt - cutAt} ms; WHEP sessions made: ${made.length}`);

    const keys = bucketKeys(h.bucketDir);
    for (const [kind, codec] of [
      ['audio', 'aac'],
      ['video', 'h264'],
    ] as const) {
      const plKey = keys.find((k) => k.endsWith(`__uid_s_303__uid_e_${kind}.m3u8`));
      assert.ok(plKey, `${kind} playlist in ${keys.join(', ')}`);
      const text = readFileSync(join(h.bucketDir, plKey), 'utf8');
      const pl = parsePlaylist(text, kind);
      const listed = pl.entries.reduce((s, e) => s + e.durationSec, 0);
      // The media timeline: every packet of every slice in playlist order; a jump is a gap between packets.
      let prevEnd: number | undefined;
      let biggest = { gap: 0, at: '' };
      let backwards = 0;
      let probed = 0;
      for (const e of pl.entries) {
        const file = join(h.bucketDir, join(plKey, '..', e.uri));
        const p = await probe(file);
        assert.deepEqual(p.codecs, [codec], `${e.uri} codec`);
        probed += p.duration;
        for (const pk of await packets(file, kind)) {
          if (prevEnd !== undefined) {
            const gap = pk.pts - prevEnd;
            if (gap > biggest.gap) biggest = { gap, at: e.uri };
            if (gap < -0.5) backwards++;
          }
          prevEnd = pk.pts + pk.dur;
        }
      }
      // The playlist decoded end to end, as a player reads it.
      const decoded = await run(FFMPEG_BIN, ['-v', 'error', '-allowed_segment_extensions', 'ALL', '-i', join(h.bucketDir, plKey), '-f', 'null', '-'], { maxBuffer: 16 * 1024 * 1024 }).then(
        (r) => r.stderr.trim(),
        (e: { stderr?: string }) => `failed: ${e.stderr ?? ''}`,
      );
      const errorLines = decoded ? decoded.split('\n').length : 0;
      t.diagnostic(
        `${kind}: ${pl.entries.length} slices, playlist ${listed.toFixed(1)} s, probed ${probed.toFixed(1)} s, ` +
          `discontinuity tags ${(text.match(/#EXT-X-DISCONTINUITY\b/g) ?? []).length}, biggest pts gap ${biggest.gap.toFixed(2)} s (in ${biggest.at}), ` +
          `backward jumps ${backwards}, decode errors ${errorLines}${decoded ? `: ${decoded.split('\n').slice(0, 3).join(' | ')}` : ''}`,
      );
      assert.equal(backwards, 0, `${kind}: timestamps never go backwards`);
      assert.ok(Math.abs(probed - listed) < 1.5, `${kind}: slices ${probed} s vs playlist ${listed} s`);
    }
  } finally {
    Sfu.prototype.subscribe = subscribe;
    await h.close();
  }
});

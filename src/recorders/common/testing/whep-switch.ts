// What a recorder's files show across a WHEP subscription replaced mid-recording (ffprobe), for the tests of
// whep-replace.test.ts and whep-ended.test.ts (docs/recording-individual.md, "A WHEP subscription replaced
// mid-recording").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { LeaveReason } from '../../../channel/index.ts';
import { FFMPEG_BIN, FFPROBE_BIN, parsePlaylist } from '../../../media/index.ts';
import { rtcToken, startHarness, storageConfig, type Harness } from '../../individual/testing/harness.ts';
import { bucketKeys } from '../../individual/testing/media-checks.ts';
import { waitUntil } from '../../../testing/wait.ts';
import type { WhepPeer } from '../follower/index.ts';

const run = promisify(execFile);

/**
 * A slice's codecs, its duration (the container's, as `probe` reads it) and every packet's pts and duration (s) of
 * its first stream of `kind`, in file order (packets without a pts skipped): one ffprobe for both.
 */
async function probePackets(file: string, kind: 'audio' | 'video'): Promise<{ codecs: string[]; duration: number; packets: { pts: number; dur: number }[] }> {
  const { stdout } = await run(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'format=duration:stream=index,codec_name,codec_type:packet=stream_index,pts_time,duration_time', '-of', 'json', file], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const j = JSON.parse(stdout) as {
    format?: { duration?: string };
    streams?: { index: number; codec_name: string; codec_type: string }[];
    packets?: { stream_index: number; pts_time?: string; duration_time?: string }[];
  };
  const streams = j.streams ?? [];
  const stream = streams.find((st) => st.codec_type === kind)?.index;
  const packets = (j.packets ?? [])
    .filter((pk) => pk.stream_index === stream && pk.pts_time !== undefined && pk.pts_time !== 'N/A')
    .map((pk) => ({ pts: Number(pk.pts_time), dur: Number.isFinite(Number(pk.duration_time)) ? Number(pk.duration_time) : 0 }))
    .filter((pk) => Number.isFinite(pk.pts));
  return { codecs: streams.map((st) => st.codec_name), duration: Number(j.format?.duration ?? NaN), packets };
}

export interface Measured {
  readonly kind: 'audio' | 'video';
  /** Discontinuity tags in the playlist. */
  readonly discontinuities: number;
  /** Largest forward gap between consecutive packets within one stream (between discontinuities), s. */
  readonly maxGapSec: number;
  /** Packets more than 0.1 s before the previous one's end within one stream. */
  readonly backwards: number;
  readonly listedSec: number;
  readonly probedSec: number;
  /** Errors of ffmpeg decoding each stream (run of slices between discontinuities) end to end. */
  readonly decodeErrors: string;
}

/** What uid's audio and video playlists in the bucket show (ffprobe of every slice, a decode of every stream). */
export async function measureRecordedStreams(h: Harness, uid: number, t: TestContext): Promise<Measured[]> {
  const keys = bucketKeys(h.bucketDir);
  const out: Measured[] = [];
  for (const [kind, codec] of [
    ['audio', 'aac'],
    ['video', 'h264'],
  ] as const) {
    const plKey = keys.find((k) => k.endsWith(`__uid_s_${uid}__uid_e_${kind}.m3u8`));
    assert.ok(plKey, `${kind} playlist in ${keys.join(', ')}`);
    const text = readFileSync(join(h.bucketDir, plKey), 'utf8');
    const pl = parsePlaylist(text, kind);
    let prevEnd: number | undefined;
    let maxGapSec = 0;
    let backwards = 0;
    let probedSec = 0;
    const runs: string[][] = [];
    const perSlice: string[] = [];
    for (const e of pl.entries) {
      const file = join(h.bucketDir, join(plKey, '..', e.uri));
      if (e.discontinuity || runs.length === 0) {
        prevEnd = undefined;
        runs.push([]);
      }
      runs[runs.length - 1]!.push(file);
      const { codecs, duration, packets: pks } = await probePackets(file, kind);
      assert.deepEqual(codecs, [codec], `${e.uri} codec`);
      probedSec += duration;
      let sliceGap = 0;
      for (const pk of pks) {
        if (prevEnd !== undefined) {
          const gap = pk.pts - prevEnd;
          sliceGap = Math.max(sliceGap, gap);
          if (gap < -0.1) backwards++;
        }
        prevEnd = Math.max(prevEnd ?? -Infinity, pk.pts + pk.dur);
      }
      maxGapSec = Math.max(maxGapSec, sliceGap);
      perSlice.push(`${e.discontinuity ? 'DISC ' : ''}${e.durationSec.toFixed(1)} s, pts ${pks[0]?.pts.toFixed(2)}..${pks[pks.length - 1]?.pts.toFixed(2)}, max gap ${sliceGap.toFixed(2)} s`);
    }
    // Each stream decoded end to end from its slices (ffmpeg's own HLS reader ignores discontinuity tags).
    const errors: string[] = [];
    for (const files of runs) {
      const r = await run(FFMPEG_BIN, ['-v', 'error', '-i', `concat:${files.join('|')}`, '-f', 'null', '-'], { maxBuffer: 16 * 1024 * 1024 }).then(
        (x) => x.stderr.trim(),
        (e: { stderr?: string }) => `failed: ${e.stderr ?? ''}`,
      );
      if (r) errors.push(r.split('\n').slice(0, 2).join(' | '));
    }
    const m: Measured = {
      kind,
      discontinuities: (text.match(/#EXT-X-DISCONTINUITY\b/g) ?? []).length,
      maxGapSec,
      backwards,
      listedSec: pl.entries.reduce((s, e) => s + e.durationSec, 0),
      probedSec,
      decodeErrors: errors.join(' || '),
    };
    t.diagnostic(
      `${kind}: ${pl.entries.length} slices [${perSlice.join('; ')}], playlist ${m.listedSec.toFixed(1)} s, probed ${m.probedSec.toFixed(1)} s, ` +
        `discontinuities ${m.discontinuities}, largest gap within a stream ${m.maxGapSec.toFixed(2)} s, backward ${m.backwards}, decode errors: ${m.decodeErrors || 'none'}`,
    );
    out.push(m);
  }
  return out;
}

/**
 * A WHEP session the channel's SFU made for the recorder; `end` ends it as the channel node would (telling the
 * recorder's peer, or `silently`: as if the node were gone).
 */
export interface WhepSession {
  end(reason: LeaveReason, how?: { readonly silently?: boolean }): Promise<boolean>;
}

/** Slice length of these recordings: short, so that the first slices and those after the switch come soon. */
const SLICE_SECONDS = 4;

/** Slice files of uid's `kind` stream in the bucket. */
const slicesOf = (h: Harness, uid: number, kind: 'audio' | 'video') => bucketKeys(h.bucketDir).filter((x) => x.includes(`__uid_s_${uid}__uid_e_${kind}_`)).length;

/**
 * Records uid's publisher over WHEP, runs `cut` (given the channel's WHEP sessions and the recorder's WHEP peers) once each stream has two slices, records until each stream has two
 * more slices after the replacement session was made (the new media is in the files, not just its start).
 */
export async function recordAcross(
  t: TestContext,
  cname: string,
  uid: number,
  cut: (made: readonly WhepSession[], recorderPeers: readonly WhepPeer[]) => Promise<void>,
) {
  const made: (WhepSession & { atMs: number })[] = [];
  const recorderPeers: WhepPeer[] = [];
  const logLines: string[] = [];
  const h = await startHarness({
    logLines,
    recording: { mediaPath: 'whep', individualSliceSeconds: SLICE_SECONDS },
    sfuTestHooks: { onSubscribed: ({ end }) => void made.push({ end, atMs: Date.now() }) },
    recorderTestHooks: { whepPeerMade: (peer) => void recorderPeers.push(peer) },
  });
  try {
    await h.publish({ cname, uid, color: 'red', toneHz: 440, codec: 'h264' });
    const recUid = String(9000 + uid);
    const { resourceId, sid } = await h.startRecording(cname, recUid, {
      token: rtcToken(cname, Number(recUid), 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const kinds = ['audio', 'video'] as const;
    await waitUntil(() => kinds.every((k) => slicesOf(h, uid, k) >= 2), { timeoutMs: 120_000, intervalMs: 200, what: 'two slices of each kind' });
    const cutAt = Date.now();
    await cut(made, recorderPeers);
    await waitUntil(() => made.length >= 2, { timeoutMs: 90_000, intervalMs: 200, what: 'a replacement WHEP session' });
    t.diagnostic(`cut → replacement WHEP session: ${made[1]!.atMs - cutAt} ms`);
    const atReplacement = kinds.map((k) => slicesOf(h, uid, k));
    await waitUntil(() => kinds.every((k, i) => slicesOf(h, uid, k) >= atReplacement[i]! + 2), { timeoutMs: 90_000, intervalMs: 200, what: 'two slices of each kind after the replacement' });
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: recUid, clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const errors = h.events.filter((e) => e.payload.sid === sid && e.eventType === 1).map((e) => e.payload.details);
    t.diagnostic(`error events: ${JSON.stringify(errors)}`);
    // Audio (43) and video (44) stream states of the publisher, in order.
    const states = ([43, 44] as const).map((type) =>
      h.events.filter((e) => e.payload.sid === sid && e.eventType === type && e.payload.details.streamUid === String(uid)).map((e) => e.payload.details.state as number),
    );
    t.diagnostic(`stream states: audio ${JSON.stringify(states[0])}, video ${JSON.stringify(states[1])}`);
    // What a slicer's ffmpeg said when it ended on its own (an error event above came from one: session 25's CI).
    const slicerExits = logLines.filter((l) => l.includes('slicer exited')).map((l) => l.slice(0, 600));
    return { measured: await measureRecordedStreams(h, uid, t), errors, states, slicerExits };
  } finally {
    await h.close();
  }
}

/**
 * Work done once recording has stopped: the `[hls, mp4]` MP4 per user, and scene 2's postponed transcoding
 * (one MP4 per user) or postponed audio mixing (one file of all users), each uploaded through the session.
 * Scene 2 reports `transcoderStarted`, `transcoderCompleted` and `postponeTranscodeFinalResult` (docs/notify.md).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  audioMixName,
  mixAudio,
  transcodedMp4Name,
  userMp4,
  type FileTrack,
  type SessionNaming,
} from '../../media/index.ts';
import type { RecordedFile } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { RecorderSignals } from '../common/events.ts';
import type { IndividualOptions } from './options.ts';
import type { TrackRecording } from './track-recording.ts';

export interface PostProcessInput {
  readonly options: IndividualOptions;
  readonly naming: SessionNaming;
  readonly tracks: readonly TrackRecording[];
  readonly upload: UploadSession;
  readonly workDir: string;
  readonly signals: Pick<RecorderSignals, 'emit'>;
  readonly mp4Name: (uid: string, track: FileTrack, startMs: number) => string;
}

interface UserTracks {
  readonly uid: string;
  readonly audio: TrackRecording | undefined;
  readonly video: TrackRecording | undefined;
}

function byUser(tracks: readonly TrackRecording[]): UserTracks[] {
  const m = new Map<string, { audio?: TrackRecording; video?: TrackRecording }>();
  for (const t of tracks) {
    if (!t.hls.recorded) continue;
    const u = m.get(t.uid) ?? {};
    u[t.kind] = t;
    m.set(t.uid, u);
  }
  return [...m].map(([uid, u]) => ({ uid, audio: u.audio, video: u.video }));
}

async function mp4Of(u: UserTracks, dir: string, output: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await userMp4({
    video: u.video?.hls.slices ?? [],
    audio: u.audio?.hls.slices ?? [],
    videoCodec: u.video?.codec === 'VP8' ? 'VP8' : u.video ? 'H264' : undefined,
    workDir: dir,
    output,
  });
}

function trackOf(u: UserTracks): { track: FileTrack; trackType: RecordedFile['trackType'] } {
  if (u.audio && u.video) return { track: 'av', trackType: 'audio_and_video' };
  return u.video ? { track: 'video', trackType: 'video' } : { track: 'audio', trackType: 'audio' };
}

function startOf(u: UserTracks): number {
  return Math.min(...[u.audio, u.video].flatMap((t) => (t?.hls.firstStartMs !== undefined ? [t.hls.firstStartMs] : [])));
}

export async function runPostProcess(i: PostProcessInput): Promise<RecordedFile[]> {
  const users = byUser(i.tracks);
  const files: RecordedFile[] = [];
  const dir = join(i.workDir, 'post');
  if (i.options.mp4) {
    for (const u of users) {
      const { track, trackType } = trackOf(u);
      const start = startOf(u);
      const name = i.mp4Name(u.uid, track, start);
      const out = join(dir, u.uid, name);
      await mp4Of(u, join(dir, u.uid), out);
      const res = await i.upload.enqueue(out, i.upload.objectKey(name), { contentType: 'video/mp4' });
      if (res.ok) files.push({ fileName: res.key, trackType, uid: u.uid, mixedAllUser: false, isPlayable: true, sliceStartTime: start });
    }
  }
  const pp = i.options.postProcess;
  if (pp.kind === 'none') return files;
  i.signals.emit('transcoderStarted');
  if (pp.kind === 'postponeTranscoding') {
    const results: { uid: string; result: 'success' | 'fail'; fileList: { fileName: string }[] }[] = [];
    for (const u of users) {
      const name = transcodedMp4Name(i.naming, u.uid);
      const out = join(dir, 'transcode', u.uid, name);
      try {
        await mp4Of(u, join(dir, 'transcode', u.uid), out);
        const res = await i.upload.enqueue(out, i.upload.objectKey(name), { contentType: 'video/mp4' });
        if (!res.ok) throw new Error(res.message);
        results.push({ uid: u.uid, result: 'success', fileList: [{ fileName: res.key }] });
        const { trackType } = trackOf(u);
        files.push({ fileName: res.key, trackType, uid: u.uid, mixedAllUser: false, isPlayable: true, sliceStartTime: startOf(u) });
      } catch {
        results.push({ uid: u.uid, result: 'fail', fileList: [] });
      }
    }
    const ok = results.filter((r) => r.result === 'success').length;
    const result = ok === results.length ? 'all_success' : ok > 0 ? 'partial_success' : 'fail';
    i.signals.emit('transcoderCompleted', { result, uids: results });
    i.signals.emit('postponeTranscodeFinalResult', {
      result: result === 'all_success' ? 'total_success' : result === 'partial_success' ? 'partial_success' : 'failed',
      fileList: results.flatMap((r) => r.fileList),
    });
    return files;
  }
  const name = audioMixName(i.naming, pp.format);
  const out = join(dir, 'mix', name);
  mkdirSync(join(dir, 'mix'), { recursive: true });
  const audioUsers = users.filter((u) => u.audio).map((u) => ({ uid: u.uid, slices: u.audio!.hls.slices }));
  let fileList: { fileName: string }[] = [];
  try {
    await mixAudio({ users: audioUsers, format: pp.format, sampleRate: pp.sampleRate, bitrate: pp.bitrate, channels: pp.channels, workDir: join(dir, 'mix'), output: out });
    const res = await i.upload.enqueue(out, i.upload.objectKey(name));
    if (!res.ok) throw new Error(res.message);
    fileList = [{ fileName: res.key }];
    const start = Math.min(...audioUsers.map((u) => u.slices[0]!.startMs));
    files.push({ fileName: res.key, trackType: 'audio', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: start });
  } catch {
    fileList = [];
  }
  const success = fileList.length > 0;
  i.signals.emit('transcoderCompleted', {
    result: success ? 'all_success' : 'fail',
    uids: audioUsers.map((u) => ({ uid: u.uid, result: success ? 'success' : 'fail', fileList })),
  });
  i.signals.emit('postponeTranscodeFinalResult', { result: success ? 'total_success' : 'failed', fileList });
  return files;
}

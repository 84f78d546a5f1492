/**
 * What follows the live session once every stream and subscription has ended: playlists finished with
 * `#EXT-X-ENDLIST`, the MP4s and scene 2 outputs (post-process.ts), the final file list, and the wait for the
 * last upload. Runs once per session, after the live part has let go of the channel.
 */
import { rm } from 'node:fs/promises';
import type { Logger } from '../../log/index.ts';
import { userMp4Name, type SessionNaming } from '../../media/index.ts';
import type { RecordedFile, StopResult } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE } from '../../recording/index.ts';
import type { RecorderSignals } from '../common/events.ts';
import type { RecordingOutput } from '../common/output/index.ts';
import type { IndividualOptions } from './options.ts';
import { runPostProcess } from './post-process.ts';
import type { TrackRecording } from './track-recording.ts';

export interface FinalizeInput {
  readonly tracks: readonly TrackRecording[];
  readonly output: RecordingOutput;
  readonly options: IndividualOptions;
  readonly naming: SessionNaming;
  readonly upload: UploadSession;
  readonly workDir: string;
  readonly signals: RecorderSignals;
  readonly log: Logger;
}

export async function finalizeRecording(i: FinalizeInput): Promise<StopResult> {
  const recordedAnything = i.output.recorded;
  await i.output.endPlaylists();
  let outputs: RecordedFile[] = [];
  let postProcessed = false;
  if (recordedAnything) {
    try {
      outputs = await runPostProcess({
        options: i.options,
        naming: i.naming,
        tracks: i.tracks,
        upload: i.upload,
        workDir: i.workDir,
        signals: i.signals,
        mp4Name: (uid, track, startMs) => userMp4Name(i.naming, uid, track, startMs),
      });
      postProcessed = true;
    } catch (e) {
      i.log.error({ err: (e as Error).message }, 'post-processing failed');
      i.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.postProcessFailed, 'post-processing failed');
    }
  }
  i.output.addOutputs(outputs);
  if (outputs.length > 0) i.output.fileUploaded();
  // `[mp4]` alone: the slices were only the MP4s' intermediate (never published); once the MP4s are written they go.
  if (!i.options.hls && postProcessed) await removeTrackDirs(i.tracks, i.log);
  const files = i.output.reportFiles();
  const uploadingStatus = await i.output.awaitUploads(files);
  return { uploadingStatus, files, recordedAnything };
}

async function removeTrackDirs(tracks: readonly TrackRecording[], log: Logger): Promise<void> {
  for (const t of tracks) {
    await rm(t.hls.dir, { recursive: true, force: true }).catch((e: Error) => log.warn({ err: e.message, dir: t.hls.dir }, 'slices not removed'));
  }
}

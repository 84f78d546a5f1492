/**
 * What a web-mode session runs with, read once from the validated start request (docs/recording-web.md,
 * "Request"), plus the object names of its files. Pure: no clock, no I/O.
 */
import type { CaptureOptions } from '../../media/capture/index.ts';
import { mixMp4Name, mixPlaylistName, mixSliceName, type SessionNaming } from '../../media/index.ts';
import type { PinnedPage } from './page-hosts.ts';
import type { MixAudioProfileId } from '../../media/mix/index.ts';
import type { RecordingTask } from '../../recording/dispatch/index.ts';

export interface WebOptions {
  readonly url: string;
  readonly width: number;
  readonly height: number;
  readonly videoFps: number | undefined;
  readonly videoBitrateKbps: number | undefined;
  readonly audioProfile: MixAudioProfileId;
  readonly mobile: boolean;
  readonly maxRecordingHour: number;
  /** Length of each MP4 file, seconds (`maxVideoDuration` minutes, default 120). */
  readonly mp4SplitSec: number;
  readonly onhold: boolean;
  /** `readyTimeout` in ms; 0 = no detection. */
  readonly readyTimeoutMs: number;
  readonly rtmpUrl: string | undefined;
  readonly hls: boolean;
  readonly mp4: boolean;
  /** Segment length; undefined = the capture's 15 s. */
  readonly sliceSeconds: number | undefined;
}

/** Settings only tests change, so that a slice or an MP4 split does not take 15 s or 30 min. */
export interface WebTuning {
  readonly sliceSeconds?: number | undefined;
  readonly mp4SplitSec?: number | undefined;
}

const DEFAULT_MAX_VIDEO_MINUTES = 120;

/** The configured web tuning (`recording.webSliceSeconds`, `recording.webMp4SplitSeconds`; 0 = the service's). */
export function webTuning(settings: { readonly webSliceSeconds: number; readonly webMp4SplitSeconds: number }): WebTuning {
  return {
    ...(settings.webSliceSeconds > 0 ? { sliceSeconds: settings.webSliceSeconds } : {}),
    ...(settings.webMp4SplitSeconds > 0 ? { mp4SplitSec: settings.webMp4SplitSeconds } : {}),
  };
}

export function webOptions(task: RecordingTask, tuning: WebTuning = {}): WebOptions {
  const services = task.clientRequest.extensionServiceConfig?.extensionServices ?? [];
  let web: Extract<(typeof services)[number], { serviceName: 'web_recorder_service' }> | undefined;
  let rtmpUrl: string | undefined;
  for (const s of services) {
    if (s.serviceName === 'web_recorder_service') web = s;
    else if (s.serviceName === 'rtmp_publish_service') rtmpUrl = s.serviceParam.outputs[0]?.rtmpUrl;
  }
  if (!web) throw new Error('web mode without web_recorder_service (validation lets none through)');
  const p = web.serviceParam;
  const av = task.clientRequest.recordingFileConfig?.avFileType ?? ['hls'];
  return Object.freeze({
    url: p.url,
    width: p.videoWidth,
    height: p.videoHeight,
    videoFps: p.videoFps,
    videoBitrateKbps: p.videoBitrate,
    audioProfile: p.audioProfile,
    mobile: p.mobile === true,
    maxRecordingHour: p.maxRecordingHour,
    mp4SplitSec: tuning.mp4SplitSec ?? (p.maxVideoDuration ?? DEFAULT_MAX_VIDEO_MINUTES) * 60,
    // The stored hold (start's, then the last update's): a restarted recorder keeps an update's hold.
    onhold: task.onhold ?? p.onhold === true,
    readyTimeoutMs: (p.readyTimeout ?? 0) * 1000,
    rtmpUrl,
    hls: av.includes('hls'),
    mp4: av.includes('mp4'),
    sliceSeconds: tuning.sliceSeconds,
  });
}

/** A page's files are named as a mix recording's (one file of the whole channel; media/naming.ts). */
export const webPlaylistName = (n: SessionNaming): string => mixPlaylistName(n);
/** `<sid>_<cname>_<utc>.ts`, utc = the segment's first sample. */
export const webSliceName = (n: SessionNaming, startMs: number): string => mixSliceName(n, startMs, 'ts');
/** `<sid>_<cname>_<index>.mp4`, index from 0. */
export const webMp4Name = (n: SessionNaming, index: number): string => mixMp4Name(n, index);

/** What the page capture is started with: the request's page and encoder settings, the pinned hosts (page-hosts.ts). */
export function captureSettings(o: WebOptions, workDir: string, onhold: boolean, pinned: PinnedPage): CaptureOptions {
  return {
    workDir,
    width: o.width,
    height: o.height,
    ...(o.videoFps !== undefined ? { videoFps: o.videoFps } : {}),
    ...(o.videoBitrateKbps !== undefined ? { videoBitrateKbps: o.videoBitrateKbps } : {}),
    audioProfile: o.audioProfile,
    mobile: o.mobile,
    ...(o.sliceSeconds !== undefined ? { sliceSeconds: o.sliceSeconds } : {}),
    onhold,
    ...(o.rtmpUrl !== undefined ? { rtmpUrl: o.rtmpUrl } : {}),
    ...pinned,
  };
}

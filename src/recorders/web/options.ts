/**
 * What a web-mode session runs with: the session's settings (built at the dispatch boundary from the start request
 * and the updates stored since, recording/dispatch/settings; docs/recording-web.md, "Request") with the configured
 * test tuning, plus the object names of its files. Pure: no clock, no I/O.
 */
import type { CaptureOptions } from '../../media/capture/index.ts';
import { mixMp4Name, mixPlaylistName, mixSliceName, type SessionNaming } from '../../media/index.ts';
import type { PinnedPage } from './page-hosts.ts';
import type { RecordingTask, WebSettings } from '../../recording/dispatch/index.ts';
import { settingsFor } from '../../recording/index.ts';

export interface WebOptions extends WebSettings {
  /** Segment length; undefined = the capture's 15 s. */
  readonly sliceSeconds: number | undefined;
}

/** Settings only tests change, so that a slice or an MP4 split does not take 15 s or 30 min. */
export interface WebTuning {
  readonly sliceSeconds?: number | undefined;
  readonly mp4SplitSec?: number | undefined;
}

/** The configured web tuning (`recording.webSliceSeconds`, `recording.webMp4SplitSeconds`; 0 = the service's). */
export function webTuning(settings: { readonly webSliceSeconds: number; readonly webMp4SplitSeconds: number }): WebTuning {
  return {
    ...(settings.webSliceSeconds > 0 ? { sliceSeconds: settings.webSliceSeconds } : {}),
    ...(settings.webMp4SplitSeconds > 0 ? { mp4SplitSec: settings.webMp4SplitSeconds } : {}),
  };
}

export function webOptions(task: RecordingTask, tuning: WebTuning = {}): WebOptions {
  const s = settingsFor(task.settings, 'web');
  return Object.freeze({ ...s, mp4SplitSec: tuning.mp4SplitSec ?? s.mp4SplitSec, sliceSeconds: tuning.sliceSeconds });
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

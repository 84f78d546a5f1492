/**
 * One web-mode recording session (docs/recording-web.md): a page capture (media/capture) whose TS segments go
 * into one HLS track, `readyTimeout` and page failures turned into reloads and stop codes, `onhold` as pausing
 * the capture's encoder, and at the end the MP4 files and the wait for the uploads. Timers run on the injected
 * clock.
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { startCapture, type CaptureEvent, type CaptureHandle, type CapturedSegment, type LoadResult, type PinnedHost } from '../../media/capture/index.ts';
import { resolveOutbound, type OutboundPolicy } from '../../net/index.ts';
import type { SessionNaming } from '../../media/index.ts';
import type { RecorderReport, RecorderUpdate, RecordingTask, RtmpStatus, StopResult } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { RecordingOutput, type OutputTrack } from '../common/output/index.ts';
import { SessionSignals } from '../common/signals/index.ts';
import { webPlaylistName, webSliceName, type WebOptions } from './options.ts';
import { recoverWebLeftovers, type RecoveredWebRun } from './recovery.ts';

/** Codes of event 71 (docs/recording-web.md, "Events"). */
export const WEB_STOP = Object.freeze({
  ok: { code: 0, message: 'ok' },
  maxRecordingHour: { code: 1, message: 'max_recording_hour' },
  capabilityLimit: { code: 2, message: 'capability_limit' },
  pageLoadTimeout: { code: 4, message: 'page_load_timeout' },
  accessUrlFailed: { code: 5, message: 'access_url_failed' },
  recorderError: { code: 6, message: 'recorder_error' },
});
export interface WebStop {
  readonly code: number;
  readonly message: string;
}

const HOUR_MS = 3_600_000;

export interface WebSessionDeps {
  readonly task: RecordingTask;
  readonly options: WebOptions;
  readonly report: RecorderReport;
  readonly upload: UploadSession;
  readonly clock: Clock;
  readonly log: Logger;
  readonly workDir: string;
  readonly naming: SessionNaming;
  /** Replaces the real capture (session tests). */
  readonly startCapture?: typeof startCapture;
  /**
   * Where private targets are refused: the page URL is checked again here, and the browser pinned to the address
   * approved now (docs/recording-web.md, "The page URL"). Absent: the browser reaches 127.0.0.1 only.
   */
  readonly pageUrlPolicy?: OutboundPolicy | undefined;
  /** `recording.webPageHosts`: other hosts pages may load from, pinned like the page's; `*` any (docs/recording-web.md). */
  readonly pageHosts?: readonly string[] | undefined;
}

export class WebSession {
  private readonly signals: SessionSignals;
  private readonly output: RecordingOutput;
  /** The page's one HLS track. */
  private readonly out: OutputTrack;
  private capture: CaptureHandle | undefined;
  private ending: Promise<StopResult> | undefined;
  /** The page called notifyReady (or detection is off). */
  private ready: boolean;
  private onhold: boolean;
  private readyTimer: TimerHandle | undefined;
  private readyMisses = 0;
  private crashes = 0;
  private rtmpUrl: string | undefined;
  /** The last CDN status reported, so each change is reported once. */
  private rtmpReported: { readonly url: string; readonly status: RtmpStatus } | undefined;
  /** Earlier generations of this session (before a process restart), recovered at start. */
  private recoveredRuns: readonly RecoveredWebRun[] = [];

  constructor(private readonly d: WebSessionDeps) {
    this.signals = new SessionSignals(d);
    this.ready = d.options.readyTimeoutMs === 0;
    this.onhold = d.options.onhold;
    this.rtmpUrl = d.options.rtmpUrl;
    this.output = new RecordingOutput({ previousFiles: d.task.previousFiles, upload: d.upload, report: d.report, signals: this.signals, log: d.log, hls: d.options.hls });
    // No event 42: a page has no channel streams to name.
    this.out = this.output.track(
      { dir: join(d.workDir, 'hls'), kind: 'video', playlistName: webPlaylistName(d.naming), sliceName: (startMs) => webSliceName(d.naming, startMs) },
      { trackType: 'audio_and_video', uid: '0', mixedAllUser: true },
    );
  }

  private get recording(): boolean {
    return this.ready && !this.onhold;
  }

  /** Opens the page; resolves once it is loaded (or the session ended because it could not be). */
  async start(): Promise<void> {
    const o = this.d.options;
    this.signals.open();
    await mkdir(this.d.workDir, { recursive: true });
    if (this.d.task.resumed) {
      this.recoveredRuns = await recoverWebLeftovers({
        sessionDir: dirname(this.d.workDir),
        currentGeneration: basename(this.d.workDir),
        naming: { sid: this.d.task.sid, cname: this.d.task.cname },
        upload: this.d.upload,
      });
      const recovered = Object.fromEntries(this.recoveredRuns.filter((r) => !r.track.alreadyEnded).map((r) => [r.generation, r.track.recovered]));
      if (Object.keys(recovered).length > 0) this.d.log.info({ recovered }, 'segments of the previous run recovered');
      this.output.recoveredRuns(this.out, this.recoveredRuns);
      this.output.reportEarlierFiles();
    }
    const pinnedHosts: PinnedHost[] = [];
    const allowed = this.d.pageHosts ?? [];
    if (this.d.pageUrlPolicy) {
      // start's check ran in the API process, maybe long ago (a hand-over after a restart): the answer the browser
      // is held to is the one approved here, just before it opens the page.
      try {
        const target = await resolveOutbound(o.url, this.d.pageUrlPolicy);
        pinnedHosts.push({ host: target.url.hostname, address: target.address });
      } catch (e) {
        void this.fail(WEB_STOP.accessUrlFailed, (e as Error).message);
        return;
      }
      // Hosts the operator lets pages load from (scripts from a CDN, the page's API) pass the same guard; one it
      // refuses or that does not resolve stays unreachable for this page, which still records.
      for (const host of allowed) {
        if (host === '*' || pinnedHosts.some((p) => p.host === host)) continue;
        try {
          const target = await resolveOutbound(`https://${host}/`, this.d.pageUrlPolicy);
          pinnedHosts.push({ host: target.url.hostname, address: target.address });
        } catch (e) {
          this.d.log.warn({ host, err: (e as Error).message }, 'recording.webPageHosts: host not pinned');
        }
      }
    }
    this.capture = await (this.d.startCapture ?? startCapture)(
      {
        workDir: join(this.d.workDir, 'capture'),
        width: o.width,
        height: o.height,
        ...(o.videoFps !== undefined ? { videoFps: o.videoFps } : {}),
        ...(o.videoBitrateKbps !== undefined ? { videoBitrateKbps: o.videoBitrateKbps } : {}),
        audioProfile: o.audioProfile,
        mobile: o.mobile,
        ...(o.sliceSeconds !== undefined ? { sliceSeconds: o.sliceSeconds } : {}),
        // The encoder runs only while recording: not before notifyReady when detection is on, not on hold.
        onhold: !this.recording,
        ...(o.rtmpUrl !== undefined ? { rtmpUrl: o.rtmpUrl } : {}),
        pinnedHosts,
        openNetwork: pinnedHosts.length > 0 && allowed.includes('*'),
      },
      (e) => this.onCaptureEvent(e),
    );
    if (this.ending) return;
    this.signals.startProgress();
    if (this.rtmpUrl !== undefined) this.rtmp(this.rtmpUrl, this.onhold ? 'onhold' : 'connecting');
    const loaded = await this.capture.load(o.url);
    if (this.ending) return;
    if (pageFailed(loaded)) {
      void this.fail(WEB_STOP.accessUrlFailed, loaded.errorText ?? `HTTP ${loaded.status}`);
      return;
    }
    const now = this.d.clock.now();
    this.signals.emit('webRecorderStarted', { recorderStartTime: now });
    this.signals.status('recorderReady');
    this.d.report.sliceStartTime(now);
    this.armReadyTimer();
  }

  private armReadyTimer(): void {
    if (this.ready || this.d.options.readyTimeoutMs === 0) return;
    if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
    this.readyTimer = this.d.clock.setTimeout(() => {
      this.readyTimer = undefined;
      if (this.ready || this.ending) return;
      this.readyMisses += 1;
      if (this.readyMisses >= 2) {
        void this.fail(WEB_STOP.pageLoadTimeout, 'the page did not call notifyReady in time after a reload');
        return;
      }
      this.signals.emit('webRecorderReload', { reason: 'page_load_timeout' });
      this.reload();
    }, this.d.options.readyTimeoutMs);
  }

  /** Reloads the page; the readyTimeout timer starts over with the new navigation. */
  private reload(): void {
    const capture = this.capture;
    if (!capture) return;
    void capture.reload().then(
      (r) => {
        if (this.ending) return;
        if (pageFailed(r)) void this.fail(WEB_STOP.accessUrlFailed, r.errorText ?? `HTTP ${r.status}`);
        else this.armReadyTimer();
      },
      (e: Error) => void this.fail(WEB_STOP.recorderError, `reload failed: ${e.message}`),
    );
  }

  private onCaptureEvent(e: CaptureEvent): void {
    if (this.ending && e.kind !== 'segment') return;
    switch (e.kind) {
      case 'segment':
        this.output.serial(() => this.segmentClosed(e.segment));
        return;
      case 'page-ready':
        if (this.ready) return;
        this.ready = true;
        if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
        this.readyTimer = undefined;
        if (!this.onhold) void this.capture?.resume();
        return;
      case 'document-status':
        if (e.status === 404 || e.status >= 500) void this.fail(WEB_STOP.accessUrlFailed, `HTTP ${e.status}`);
        return;
      case 'load-failed':
        void this.fail(WEB_STOP.accessUrlFailed, e.errorText);
        return;
      case 'renderer-crashed':
        this.crashes += 1;
        if (this.crashes >= 2) {
          void this.fail(WEB_STOP.recorderError, 'the page renderer crashed again after a reload');
          return;
        }
        this.signals.emit('webRecorderReload', { reason: 'renderer_crashed' });
        this.reload();
        return;
      case 'capability-limit':
        this.signals.emit('webRecorderCapabilityLimit', { limitType: e.limitType });
        void this.fail(WEB_STOP.capabilityLimit, `the page uses ${e.limitType}`);
        return;
      case 'child-exited':
        this.d.log.warn({ child: e.child, code: e.code, signal: e.signal, stderr: e.stderrTail.slice(-300) }, 'capture child exited');
        void this.fail(WEB_STOP.recorderError, `${e.child} exited`);
        return;
      case 'push-connecting':
      case 'push-publishing':
      case 'push-failed':
        // A report about an earlier target (or one sent on hold) no longer describes the output.
        if (e.rtmpUrl !== this.rtmpUrl || this.onhold) return;
        if (e.kind === 'push-failed') this.d.log.warn({ err: e.message }, 'CDN push failed');
        this.rtmp(e.rtmpUrl, e.kind === 'push-connecting' ? 'connecting' : e.kind === 'push-publishing' ? 'publishing' : 'disconnected');
        return;
    }
  }

  private rtmp(rtmpUrl: string, status: RtmpStatus): void {
    const last = this.rtmpReported;
    if (last?.url === rtmpUrl && last.status === status) return;
    this.rtmpReported = { url: rtmpUrl, status };
    this.d.report.rtmpStatus?.(rtmpUrl, status);
    this.signals.emit('rtmpPublishStatus', { rtmpUrl, status });
  }

  private async segmentClosed(s: CapturedSegment): Promise<void> {
    if (!this.d.options.hls && !this.d.options.mp4) return;
    if (s.newStream) this.out.writer.beginStream();
    await this.output.sliceClosed(this.out, { localPath: s.path, startMs: s.startMs, durationSec: s.durationSec, container: 'ts', bytes: s.bytes });
  }

  async update(change: RecorderUpdate): Promise<void> {
    if (change.storage) await this.d.upload.updateStorage(change.storage);
    const capture = this.capture;
    if (!capture || this.ending) return;
    if (change.onhold !== undefined && change.onhold !== this.onhold) {
      this.onhold = change.onhold;
      if (this.onhold) {
        await capture.pause();
        if (this.rtmpUrl !== undefined) this.rtmp(this.rtmpUrl, 'onhold');
      } else if (this.ready) {
        if (this.rtmpUrl !== undefined) this.rtmp(this.rtmpUrl, 'connecting');
        await capture.resume();
      }
    }
    if (change.rtmpUrl !== undefined) {
      this.rtmpUrl = change.rtmpUrl;
      this.rtmp(change.rtmpUrl, this.onhold ? 'onhold' : 'connecting');
      await capture.setPushUrl(change.rtmpUrl);
    }
  }

  /** An API stop (or the control plane's maxRecordingHour expiry, told apart by the clock). */
  stop(): Promise<StopResult> {
    const hours = this.d.options.maxRecordingHour;
    const expired = this.d.clock.now() >= this.d.task.startedAt + hours * HOUR_MS;
    return this.end(expired ? WEB_STOP.maxRecordingHour : WEB_STOP.ok, expired ? `max recording hour is ${hours}` : 'stopped by stop');
  }

  /** The recorder ends on its own: event 71 with the code, abnormal exit. */
  async fail(stop: WebStop, details: string): Promise<void> {
    if (this.ending) return;
    this.d.log.warn({ code: stop.code, details }, 'web recorder stops');
    const r = await this.end(stop, details);
    this.d.report.ended({ reason: 'error', uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything, message: stop.message });
  }

  private end(stop: WebStop, details: string): Promise<StopResult> {
    this.ending ??= this.finish(stop, details);
    return this.ending;
  }

  private async finish(stop: WebStop, details: string): Promise<StopResult> {
    if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
    this.signals.stopProgress();
    const abnormal = stop.code !== 0 && stop.code !== 1;
    if (!abnormal) this.signals.status('recordingStopped');
    // The capture flushes its last segment before stop() resolves; the chain then uploads it.
    await this.capture?.stop().catch((e: Error) => this.d.log.error({ err: e.message }, 'capture stop failed'));
    if (this.rtmpUrl !== undefined) this.rtmp(this.rtmpUrl, 'disconnected');
    await this.output.endPlaylists();
    if (this.d.options.mp4) {
      const split = { kind: 'once-reached', reachMs: this.d.options.mp4SplitSec * 1000 } as const;
      await this.output.writeMp4s(this.out, this.d.naming, { dir: join(this.d.workDir, 'mp4'), split, streams: { audio: true, video: true } });
    }
    const files = this.output.reportFiles();
    this.signals.emit('webRecorderStopped', {
      code: stop.code,
      message: stop.message,
      details,
      fileList: files.map((f) => ({ fileName: f.fileName, sliceStartTime: f.sliceStartTime })),
    });
    if (abnormal) this.signals.status('exitedAbnormally');
    this.signals.close();
    const uploadingStatus = await this.output.awaitUploads(files);
    if (!abnormal) this.signals.status('componentsStopped');
    return { uploadingStatus, files, recordedAnything: this.out.closed.length > 0 || this.recoveredRuns.length > 0 };
  }
}

/** HTTP 404 or 5xx, or nothing loaded at all, ends the session (code 5). */
function pageFailed(r: LoadResult): boolean {
  if (r.errorText !== undefined) return true;
  return r.status !== undefined && (r.status === 404 || r.status >= 500);
}

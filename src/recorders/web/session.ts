/**
 * One web-mode recording session (docs/recording-web.md): a page capture (media/capture) whose TS segments go
 * into the recording output's one HLS track; the page's state (page-state.ts: `readyTimeout`, reloads, hold, stop
 * codes) stepped by one pure function whose effects run here; the CDN push's status; and at the end the MP4 files
 * and the wait for the uploads. Timers run on the injected clock.
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { startCapture, type CaptureEvent, type CaptureHandle, type CapturedSegment, type LoadResult } from '../../media/capture/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { SessionNaming } from '../../media/index.ts';
import type { RecorderReport, RecorderUpdate, RecordingTask, StopResult, WebStop } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { WEB_STOP } from '../../recording/index.ts';
import { RecordingOutput, type OutputTrack } from '../common/output/index.ts';
import { SessionSignals } from '../common/signals/index.ts';
import { CdnPushStatus } from './cdn-push.ts';
import { captureSettings, webPlaylistName, webSliceName, type WebOptions } from './options.ts';
import { pinPageHosts, type PinnedPage } from './page-hosts.ts';
import { initialPageState, isRecording, stepPage, type WebPageEffect, type WebPageInput, type WebPageState } from './page-state.ts';
import { recoverWebLeftovers } from './recovery.ts';

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
  private readonly cdn: CdnPushStatus;
  private page: WebPageState;
  private capture: CaptureHandle | undefined;
  private readyTimer: TimerHandle | undefined;
  private ending: Promise<StopResult> | undefined;

  constructor(private readonly d: WebSessionDeps) {
    this.signals = new SessionSignals(d);
    this.page = initialPageState(d.options.readyTimeoutMs > 0, d.options.onhold);
    this.cdn = new CdnPushStatus(d.options.rtmpUrl, d.report, this.signals);
    this.output = new RecordingOutput({ previousFiles: d.task.previousFiles, upload: d.upload, report: d.report, signals: this.signals, log: d.log, hls: d.options.hls });
    // No event 42: a page has no channel streams to name.
    this.out = this.output.track(
      { dir: join(d.workDir, 'hls'), kind: 'video', playlistName: webPlaylistName(d.naming), sliceName: (startMs) => webSliceName(d.naming, startMs) },
      { trackType: 'audio_and_video', uid: '0', mixedAllUser: true },
    );
  }

  private get onhold(): boolean {
    return this.page.kind !== 'ended' && this.page.onhold;
  }

  /** Opens the page; resolves once it is loaded (or the session ended because it could not be). */
  async start(): Promise<void> {
    const o = this.d.options;
    this.signals.open();
    await mkdir(this.d.workDir, { recursive: true });
    if (this.d.task.resumed) await this.recoverEarlierRuns();
    let pinned: PinnedPage;
    try {
      pinned = await pinPageHosts(o.url, this.d.pageUrlPolicy, this.d.pageHosts ?? [], this.d.log);
    } catch (e) {
      void this.fail(WEB_STOP.accessUrlFailed, (e as Error).message);
      return;
    }
    // The encoder runs only while recording: not before notifyReady when detection is on, not on hold.
    const settings = {
      ...captureSettings(o, join(this.d.workDir, 'capture'), !isRecording(this.page), pinned),
      // The push target passes the same guard as the page, at each connect (and `start`/`update` in the API).
      pushPolicy: this.d.pageUrlPolicy,
    };
    this.capture = await (this.d.startCapture ?? startCapture)(settings, (e) => this.onCaptureEvent(e));
    if (this.ending) return;
    this.signals.startProgress();
    this.cdn.set(this.onhold ? 'onhold' : 'connecting');
    const loaded = await this.capture.load(o.url);
    if (this.ending) return;
    const failure = pageFailure(loaded);
    if (failure !== undefined) {
      void this.fail(WEB_STOP.accessUrlFailed, failure);
      return;
    }
    const now = this.d.clock.now();
    this.signals.emit('webRecorderStarted', { recorderStartTime: now });
    this.signals.status('recorderReady');
    this.d.report.sliceStartTime(now);
    this.armReadyTimer();
  }

  /** Earlier generations' playlists finished and listed (with `hls`), their slices kept for the MP4s. */
  private async recoverEarlierRuns(): Promise<void> {
    const runs = await recoverWebLeftovers({
      sessionDir: dirname(this.d.workDir),
      currentGeneration: basename(this.d.workDir),
      naming: { sid: this.d.task.sid, cname: this.d.task.cname },
      upload: this.d.upload,
    });
    const recovered = Object.fromEntries(runs.filter((r) => !r.track.alreadyEnded).map((r) => [r.generation, r.track.recovered]));
    if (Object.keys(recovered).length > 0) this.d.log.info({ recovered }, 'segments of the previous run recovered');
    this.output.recoveredRuns(this.out, runs);
    this.output.reportEarlierFiles();
  }

  /** The page's next state; its effects run in order (an update waits for the encoder's pause or resume). */
  private async step(input: WebPageInput): Promise<void> {
    const { state, effects } = stepPage(this.page, input);
    this.page = state;
    for (const e of effects) await this.run(e);
  }

  private async run(e: WebPageEffect): Promise<void> {
    switch (e.kind) {
      case 'reload':
        this.signals.emit('webRecorderReload', { reason: e.reason });
        this.reload();
        return;
      case 'arm-ready-timer':
        this.armReadyTimer();
        return;
      case 'capability-limit':
        this.signals.emit('webRecorderCapabilityLimit', { limitType: e.limitType });
        return;
      case 'cancel-ready-timer':
        if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
        this.readyTimer = undefined;
        return;
      case 'pause':
        await this.capture?.pause();
        this.cdn.set('onhold');
        return;
      case 'resume':
        if (e.afterHold) this.cdn.set('connecting');
        await this.capture?.resume();
        return;
      case 'end':
        void this.fail(e.stop, e.details);
        return;
    }
  }

  /** While the page has not called notifyReady: its readyTimeout, started over with each navigation. */
  private armReadyTimer(): void {
    if (this.page.kind !== 'waiting') return;
    if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
    this.readyTimer = this.d.clock.setTimeout(() => {
      this.readyTimer = undefined;
      void this.step({ kind: 'ready-timeout' });
    }, this.d.options.readyTimeoutMs);
  }

  /** Reloads the page; the readyTimeout timer starts over with the new navigation. */
  private reload(): void {
    const capture = this.capture;
    if (!capture) return;
    void capture.reload().then(
      (r) => void this.step({ kind: 'reloaded', failure: pageFailure(r) }),
      (e: Error) => void this.fail(WEB_STOP.recorderError, `reload failed: ${e.message}`),
    );
  }

  private onCaptureEvent(e: CaptureEvent): void {
    if (this.ending && e.kind !== 'segment') return;
    switch (e.kind) {
      case 'segment':
        this.output.serial(() => this.segmentClosed(e.segment));
        return;
      case 'child-exited':
        this.d.log.warn({ child: e.child, code: e.code, signal: e.signal, stderr: e.stderrTail.slice(-300) }, 'capture child exited');
        void this.step(e);
        return;
      case 'page-ready':
      case 'renderer-crashed':
      case 'audio-service-lost':
      case 'document-status':
      case 'load-failed':
      case 'capability-limit':
        void this.step(e);
        return;
      case 'push-connecting':
      case 'push-publishing':
      case 'push-failed':
        // A report sent on hold no longer describes the output.
        if (this.onhold) return;
        if (e.kind === 'push-failed' && e.rtmpUrl === this.cdn.url) this.d.log.warn({ err: e.message }, 'CDN push failed');
        this.cdn.pushed(e.rtmpUrl, e.kind === 'push-connecting' ? 'connecting' : e.kind === 'push-publishing' ? 'publishing' : 'disconnected');
        return;
    }
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
    if (change.onhold !== undefined) await this.step({ kind: 'hold', onhold: change.onhold });
    if (change.rtmpUrl !== undefined) {
      this.cdn.retarget(change.rtmpUrl, this.onhold ? 'onhold' : 'connecting');
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

  /** The first end wins: the page's state ends with its code, the end work runs once. */
  private end(stop: WebStop, details: string): Promise<StopResult> {
    this.page = stepPage(this.page, { kind: 'end', stop, details }).state;
    this.ending ??= this.finish(stop, details);
    return this.ending;
  }

  private async finish(stop: WebStop, details: string): Promise<StopResult> {
    if (this.readyTimer) this.d.clock.clearTimeout(this.readyTimer);
    this.signals.stopProgress();
    const abnormal = stop.code !== 0 && stop.code !== 1;
    if (!abnormal) this.signals.status('recordingStopped');
    // The capture flushes its last segment before stop() resolves; the output's chain then uploads it.
    await this.capture?.stop().catch((e: Error) => this.d.log.error({ err: e.message }, 'capture stop failed'));
    this.cdn.set('disconnected');
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
    return { uploadingStatus, files, recordedAnything: this.out.closed.length > 0 || this.output.recoveredAny };
  }
}

/** HTTP 404 or 5xx, or nothing loaded at all, ends the session (code 5): what failed, or undefined. */
function pageFailure(r: LoadResult): string | undefined {
  if (r.errorText !== undefined) return r.errorText;
  return r.status !== undefined && (r.status === 404 || r.status >= 500) ? `HTTP ${r.status}` : undefined;
}

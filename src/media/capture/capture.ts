/**
 * startCapture: one web page capture = a virtual display, a private sound server, a kiosk Chromium playing into
 * it, and an encoder run that records both into ≈15 s MPEG-TS segments; with a CDN push, the same encoded stream
 * also goes to a pusher process of its own, which can fail, restart or change target without touching the run.
 * Pausing (`onhold`) ends the encoder run and keeps the page alive; resuming starts a new run that appends.
 * stop() ends the encoder first (its last segment is flushed and reported), then the browser, the sound server
 * and the display, and deletes the profile and sound folders. docs/recording-web.md explains the choices.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapturedBrowser, type LoadResult } from './browser.ts';
import { watchAudioService } from './audio-service-watch.ts';
import { startVirtualDisplay, type VirtualDisplay } from './display.ts';
import { EncoderRun } from './encoder.ts';
import { MonitorReader } from './monitor-reader.ts';
import type { CaptureEventListener } from './events.ts';
import { CdnPusher, isRtmpUrl, type PushStatusChange } from '../push/index.ts';
import { resolveCaptureOptions, type CaptureOptions, type ResolvedCaptureOptions } from './options.ts';
import { startSoundServer, type SoundServer } from './sound-server.ts';
import type { CaptureChildName, SupervisedChild } from './supervised-child.ts';

/**
 * How far before an encoder run's start its media time 0 lies: enough to keep the B-frame decode times and the
 * AAC priming positive, and small, because the segment muxer puts its n-th cut at n slice lengths of media time
 * (counted from 0, not from the first packet): the first segment of a run ends at the first mark after it began.
 */
const ORIGIN_LEAD_MS = 1000;

export interface CaptureHandle {
  /** The X display (`:N`) the page is drawn on. */
  readonly display: string;
  readonly onhold: boolean;
  /** Folder of the browser profile and the sound server's socket; deleted by stop(). */
  readonly privateDir: string;
  /** The push target the next (or current) encoder run uses. */
  readonly rtmpUrl: string | undefined;
  /** The capture's children still running, by role. */
  children(): { readonly name: CaptureChildName; readonly pid: number }[];
  /** Their process ids. */
  pids(): number[];
  load(url: string): Promise<LoadResult>;
  reload(): Promise<LoadResult>;
  /** Stops encoding (the current segment is closed and reported); page, browser and sound keep running. */
  pause(): Promise<void>;
  /** Starts a new encoder run whose first segment is marked `newStream`. */
  resume(): Promise<void>;
  /**
   * Sets or clears the push target. Only the pusher process restarts; the encoder run goes on, unless the capture
   * had no push so far (its encoder then restarts once with the push branch: a new run).
   */
  setPushUrl(url: string | undefined): Promise<void>;
  /** Test hook: crashes the page's renderer (the crash is reported as an event). */
  crashRenderer(): void;
  /** Ends everything in order; no child is left running when it resolves. Safe to call twice. */
  stop(): Promise<void>;
}

class Capture implements CaptureHandle {
  private encoder: EncoderRun | undefined;
  private nextRun = 0;
  private paused: boolean;
  private readonly pusher: CdnPusher;
  /** Encoder runs write the stream for the pusher (once a push target was ever set). */
  private pushBranch: boolean;
  private stopped: Promise<void> | undefined;
  /** Serialises pause/resume/setPushUrl/stop so encoder runs never overlap. */
  private queue: Promise<void> = Promise.resolve();
  private readonly unwatchAudio: () => void;

  constructor(
    private readonly o: ResolvedCaptureOptions,
    private readonly screen: VirtualDisplay,
    private readonly sound: SoundServer,
    private readonly reader: MonitorReader,
    private readonly browser: CapturedBrowser,
    readonly privateDir: string,
    private readonly onEvent: CaptureEventListener,
  ) {
    this.paused = o.onhold;
    this.pushBranch = o.rtmpUrl !== undefined;
    this.pusher = new CdnPusher({ onStatus: (c) => this.pushStatus(c), rtmpUrl: o.rtmpUrl, outbound: o.pushPolicy, ...o.pushTimeouts });
    for (const child of [screen.process, sound.process, reader.process, browser.process]) this.watch(child);
    this.unwatchAudio = watchAudioService(
      () => (browser.process.running ? browser.process.pid : undefined),
      () => {
        if (!this.stopped) this.onEvent({ kind: 'audio-service-lost' });
      },
    );
  }

  get display(): string {
    return this.screen.display;
  }
  get onhold(): boolean {
    return this.paused;
  }
  get rtmpUrl(): string | undefined {
    return this.pusher.target;
  }

  private pushStatus(c: PushStatusChange): void {
    if (this.stopped) return;
    if (c.status === 'connecting') this.onEvent({ kind: 'push-connecting', rtmpUrl: c.rtmpUrl });
    else if (c.status === 'publishing') this.onEvent({ kind: 'push-publishing', rtmpUrl: c.rtmpUrl });
    else this.onEvent({ kind: 'push-failed', rtmpUrl: c.rtmpUrl, message: c.message ?? 'disconnected' });
  }

  private watch(child: SupervisedChild): void {
    void child.exited.then((e) => {
      if (child.stopRequested || this.stopped) return;
      this.onEvent({ kind: 'child-exited', child: child.name, code: e.code, signal: e.signal, stderrTail: e.stderrTail });
    });
  }

  children(): { readonly name: CaptureChildName; readonly pid: number }[] {
    const all = [this.screen.process, this.sound.process, this.reader.process, this.browser.process]
      .filter((c) => c.running && c.pid !== undefined)
      .map((c) => ({ name: c.name, pid: c.pid! }));
    const enc = this.encoder?.ffmpeg;
    if (enc?.running && enc.child.pid) all.push({ name: 'encoder', pid: enc.child.pid });
    const pusher = this.pusher.pid;
    if (pusher !== undefined) all.push({ name: 'pusher', pid: pusher });
    return all;
  }

  pids(): number[] {
    return this.children().map((c) => c.pid);
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Starts a run once the sound reader has samples (at once, but for the first run of a capture). */
  async startEncoder(): Promise<void> {
    await this.reader.ready();
    const startMs = Date.now();
    const run = new EncoderRun(
      {
        options: this.o,
        display: this.screen.display,
        originMs: startMs - ORIGIN_LEAD_MS,
        run: this.nextRun++,
        push: this.pushBranch,
      },
      this.reader,
      // The run's sound begins with the sample captured when it starts; its picture a moment later, when ffmpeg
      // grabs its first frame.
      startMs,
      this.onEvent,
    );
    this.encoder = run;
    // A new run's timestamps start over: the pusher joins it with a new child.
    if (run.pushStream) run.pushStream.on('data', this.pusher.beginStream());
    void run.finished().then((e) => {
      if (run.stopRequested || this.stopped) return;
      if (this.encoder === run) this.encoder = undefined;
      void this.pusher.endStream();
      this.onEvent({ kind: 'child-exited', child: 'encoder', code: e.code, signal: e.signal, stderrTail: e.stderrTail });
    });
  }

  private async stopEncoder(): Promise<void> {
    const run = this.encoder;
    this.encoder = undefined;
    await run?.stop();
    // After the encoder: the pusher sends what the run wrote last, then ends its FLV.
    if (run?.pushStream) await this.pusher.endStream();
  }

  load(url: string): Promise<LoadResult> {
    return this.browser.load(url);
  }
  reload(): Promise<LoadResult> {
    return this.browser.reload();
  }
  crashRenderer(): void {
    this.browser.crashRenderer();
  }

  pause(): Promise<void> {
    return this.serial(async () => {
      if (this.stopped || this.paused) return;
      this.paused = true;
      await this.stopEncoder();
    });
  }

  resume(): Promise<void> {
    return this.serial(async () => {
      if (this.stopped || !this.paused) return;
      this.paused = false;
      await this.startEncoder();
    });
  }

  setPushUrl(url: string | undefined): Promise<void> {
    if (url !== undefined && !isRtmpUrl(url)) return Promise.reject(new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL'));
    return this.serial(async () => {
      if (this.stopped) return;
      if (this.pushBranch || url === undefined) {
        await this.pusher.setTarget(url);
        return;
      }
      this.pushBranch = true;
      await this.pusher.setTarget(url);
      if (this.paused) return;
      await this.stopEncoder();
      await this.startEncoder();
    });
  }

  stop(): Promise<void> {
    this.unwatchAudio();
    this.stopped ??= this.serial(async () => {
      // The encoder first, so its last segment holds the page up to the end; then the page's browser, the sound
      // server it played into, and the display everything was drawn on.
      await this.stopEncoder().catch(() => undefined);
      await this.pusher.stop().catch(() => undefined);
      await this.browser.close().catch(() => undefined);
      await this.reader.stop();
      await this.sound.process.stop();
      await this.screen.process.stop();
      rmSync(this.privateDir, { recursive: true, force: true });
    });
    return this.stopped;
  }
}

/**
 * Starts display, sound server and browser (in that order: each needs the one before), then the encoder unless
 * `onhold`. The page stays blank until load(). A failure on the way stops what was started and rethrows.
 */
export async function startCapture(options: CaptureOptions, onEvent: CaptureEventListener): Promise<CaptureHandle> {
  const o = resolveCaptureOptions(options);
  mkdirSync(o.workDir, { recursive: true });
  // Profile and sound socket live outside the segment folder: nothing the page makes the browser write can
  // land among the files that get uploaded.
  const privateDir = mkdtempSync(join(tmpdir(), 'reeltime-capture-'));
  const started: { stop(): Promise<unknown> }[] = [];
  try {
    const screen = await startVirtualDisplay(o.width, o.height);
    started.push(screen.process);
    const sound = await startSoundServer(join(privateDir, 'pulse'), o.audio.sampleRate);
    started.push(sound.process);
    // The reader from the start: by the time a run begins, its clock has settled (monitor-reader.ts).
    const reader = new MonitorReader(sound.server, sound.monitor, o.audio.sampleRate, o.audio.channels, sound.clientEnv);
    started.push(reader);
    const profileDir = join(privateDir, 'profile');
    mkdirSync(profileDir, { recursive: true });
    const browser = await CapturedBrowser.launch(
      {
        chromiumPath: o.chromiumPath,
        display: screen.display,
        pulseServer: sound.server,
        sink: sound.sink,
        width: o.width,
        height: o.height,
        mobile: o.mobile,
        profileDir,
        pinnedHosts: o.pinnedHosts,
        openNetwork: o.openNetwork,
      },
      onEvent,
    );
    started.push({ stop: () => browser.close() });
    const capture = new Capture(o, screen, sound, reader, browser, privateDir, onEvent);
    if (!o.onhold) await capture.startEncoder();
    return capture;
  } catch (err) {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
    rmSync(privateDir, { recursive: true, force: true });
    throw err;
  }
}

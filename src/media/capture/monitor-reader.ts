/**
 * The capture's one reader of its sound card: `pacat --record` on the null sink's monitor for the whole life of
 * the capture, its raw samples counted on a SampleClock and handed to the current encoder run through a pipe.
 * Because the reader outlives encoder runs, a run's sound starts on a sample timeline whose anchor has long
 * settled, and every run's timestamps are `start + n / rate` from its first packet on (docs/recording-web.md,
 * "Sound timestamps"; ffmpeg's own pulse input restarted its clock estimate with every run and stamped the first
 * second of each run unevenly).
 */
import type { Writable } from 'node:stream';
import { SampleClock } from './sample-clock.ts';
import { SupervisedChild } from './supervised-child.ts';

export const SOUND_READER_BIN = 'pacat';
/**
 * The fragment the server sends: batches arrive every 20 ms, so the clock's bound is tight within a few ms.
 * (The null sink then renders in blocks of at most this, a little more work for the sound server: measured in
 * the doc.)
 */
export const READER_LATENCY_MS = 20;
/** pacat's verbose report of the stream's position (libpulse's pa_stream_get_time), in seconds. */
const STREAM_TIME = /Time: (\d+\.\d+) sec; Latency/g;
/** Sound kept for a run that starts: it begins at the run's start even if the spawn took a moment. */
const RING_MS = 3000;
/** A run's pipe holding more than this many seconds unread (ffmpeg stuck) gets no more until it drains. */
const MAX_BACKLOG_SEC = 10;

interface Chunk {
  /** Timeline index of its first sample. */
  readonly start: number;
  readonly data: Buffer;
}

interface Attached {
  readonly out: Writable;
  /** Timeline index of the next sample it gets. */
  next: number;
}

export class MonitorReader {
  readonly process: SupervisedChild;
  readonly clock: SampleClock;
  private readonly frameBytes: number;
  private ring: Chunk[] = [];
  /** Bytes of an incomplete sample frame at the end of the last read. */
  private partial: Buffer = Buffer.alloc(0);
  private sink: Attached | undefined;
  private readonly firstBatch: Promise<void>;
  /** Samples a stuck run did not get (it is not real time any more; counted for diagnostics). */
  droppedSamples = 0;

  constructor(
    server: string,
    monitor: string,
    readonly sampleRate: number,
    readonly channels: number,
    env: NodeJS.ProcessEnv,
    private readonly now: () => number = Date.now,
  ) {
    this.clock = new SampleClock(sampleRate);
    this.frameBytes = 2 * channels;
    this.process = new SupervisedChild(
      'sound-reader',
      SOUND_READER_BIN,
      [
        // Verbose: pacat reports the stream's playing position every 50 ms ("Time: 1.234 sec; Latency: …").
        '--verbose',
        '--record',
        '--raw',
        `--server=${server}`,
        `--device=${monitor}`,
        '--format=s16le',
        `--rate=${sampleRate}`,
        `--channels=${channels}`,
        `--latency-msec=${READER_LATENCY_MS}`,
        '--client-name=reeltime-capture',
        '--stream-name=monitor',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const stdout = this.process.child.stdout!;
    this.firstBatch = new Promise((resolve) => {
      stdout.on('data', (d: Buffer) => {
        this.read(d, this.now());
        resolve();
      });
    });
    // No more sound: the run's sound input ends, and ffmpeg goes on with the picture (the exit is reported).
    stdout.on('end', () => this.sink?.out.end());
    let text = '';
    // (The supervisor reads stderr as text too, for its tail.)
    this.process.child.stderr!.on('data', (d: Buffer | string) => {
      const now = this.now();
      text += String(d);
      for (const m of text.matchAll(STREAM_TIME)) this.clock.played(Number(m[1]) * 1000, now);
      text = text.slice(-64);
    });
  }

  /** Resolves once samples have arrived (the clock has an anchor); rejects if none come in `timeoutMs`. */
  async ready(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no sound from the monitor within ${timeoutMs} ms: ${this.process.running ? 'pacat silent' : 'pacat exited'}`)), timeoutMs);
    });
    const exited = this.process.exited.then((e) => {
      throw new Error(`pacat exited (${e.code ?? e.signal}): ${e.stderrTail.trim().slice(-300)}`);
    });
    try {
      await Promise.race([this.firstBatch, late, exited]);
    } finally {
      clearTimeout(timer);
    }
  }

  private read(d: Buffer, nowMs: number): void {
    const bytes = this.partial.length > 0 ? Buffer.concat([this.partial, d]) : d;
    const whole = bytes.length - (bytes.length % this.frameBytes);
    this.partial = Buffer.from(bytes.subarray(whole));
    if (whole === 0) return;
    const count = whole / this.frameBytes;
    const before = this.clock.samples;
    const silence = this.clock.arrived(count, nowMs);
    if (silence > 0) this.add({ start: before, data: Buffer.alloc(silence * this.frameBytes) });
    this.add({ start: before + silence, data: bytes.subarray(0, whole) });
  }

  private add(c: Chunk): void {
    this.ring.push(c);
    const keepFrom = this.clock.samples - Math.ceil((RING_MS * this.sampleRate) / 1000);
    while (this.ring.length > 1 && this.ring[0]!.start + this.ring[0]!.data.length / this.frameBytes <= keepFrom) this.ring.shift();
    if (this.sink) this.send(this.sink, c);
  }

  private send(s: Attached, c: Chunk): void {
    const count = c.data.length / this.frameBytes;
    const end = c.start + count;
    if (end <= s.next) return;
    const from = Math.max(0, s.next - c.start);
    if (s.out.writableLength > MAX_BACKLOG_SEC * this.sampleRate * this.frameBytes) {
      this.droppedSamples += count - from;
    } else {
      s.out.write(from === 0 ? c.data : c.data.subarray(from * this.frameBytes));
    }
    s.next = end;
  }

  /**
   * The timeline index a run starting at `utcMs` begins with: the first sample captured then, or the oldest one
   * still kept.
   */
  startIndex(utcMs: number): number {
    const oldest = this.ring[0]?.start ?? this.clock.samples;
    return Math.max(oldest, this.clock.indexAt(utcMs));
  }

  /** Sends the samples from timeline index `from` on to `out` (kept ones at once, then as they come) until detach. */
  attach(out: Writable, from: number): void {
    this.detach();
    const s: Attached = { out, next: from };
    this.sink = s;
    // A run's ffmpeg that exits closes its end of the pipe: stop writing, and keep the error from being thrown.
    out.on('error', () => this.detach(out));
    for (const c of this.ring) this.send(s, c);
    if (!this.process.running) out.end();
  }

  /** Stops sending to `out` (or to whatever is attached). */
  detach(out?: Writable): void {
    if (this.sink && (out === undefined || this.sink.out === out)) this.sink = undefined;
  }

  stop(): Promise<unknown> {
    this.detach();
    return this.process.stop();
  }
}

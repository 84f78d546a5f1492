/**
 * CdnPusher: the CDN push in a process of its own (docs/recording-web.md, "CDN push"). An encoder that encodes
 * once hands its MPEG-TS stream to feed(); the pusher passes it, in whole TS packets, to an ffmpeg child that
 * copies it into FLV, and reeltime's RTMP client (`rtmp/`) publishes that to the RTMP(S) target: the stream key stays
 * in this process, and the connection goes to the address the outbound guard approved. The child can fail, be
 * restarted or be pointed elsewhere while the encoder goes on: nothing here ever blocks the feed (packets are dropped
 * while no child takes them).
 *
 * Statuses: `connecting` when a child starts, `publishing` once the CDN started the publish and has been sent media,
 * `disconnected` when the child or the connection ends on its own, the CDN refuses the publish, it does not get
 * through in time, or it stops taking bytes. A disconnected push stays down (no automatic retry) until setTarget()
 * or the next stream (beginStream) starts a new child. Children stopped on purpose (pause, target switch, stop)
 * report nothing.
 */
import type { Readable, Writable } from 'node:stream';
import { OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../../net/index.ts';
import { FlvFormatError, FlvReader, publishTarget, RtmpPublisher, type PublishTarget } from '../../rtmp/index.ts';
import { FfmpegProcess } from '../ffmpeg.ts';
import { GopCache } from './gop-cache.ts';
import { isRtmpUrl, PUSH_INPUT_FD, PUSH_OUTPUT_FD, pusherArgs, TS_PACKET_BYTES } from './pusher-args.ts';

export type PushStatus = 'connecting' | 'publishing' | 'disconnected';

export interface PushStatusChange {
  readonly rtmpUrl: string;
  readonly status: PushStatus;
  /** Why the push is down (`disconnected` only). */
  readonly message?: string;
}

export interface CdnPusherOptions {
  readonly onStatus: (change: PushStatusChange) => void;
  /** The target from the start (no child runs before the first beginStream). */
  readonly rtmpUrl?: string | undefined;
  /**
   * From the first bytes handed to a child to its first bytes at the CDN (probe, connect, handshake). Default
   * 15 s. Counted from the input, not the child's start: an encoder that is late is not the CDN's fault.
   */
  readonly connectTimeoutMs?: number;
  /** Longest time a publishing child may hold bytes it was given without sending anything on. Default 8 s. */
  readonly stallTimeoutMs?: number;
  /** Bytes waiting for the child beyond which packets are dropped instead of queued. Default 4 MiB. */
  readonly maxBacklogBytes?: number;
  /**
   * The outbound guard's policy (production: private targets refused). Each child's target host is resolved and
   * checked just before each connection, which goes to the approved address (TLS still checks the host name).
   * Without it, the host is resolved as usual (development).
   */
  readonly outbound?: OutboundPolicy | undefined;
  /** Certificate authorities an `rtmps://` target may chain to besides the system's (a private CDN; tests). */
  readonly ca?: string | undefined;
}

/** How long a child stopped on purpose gets to finish the FLV at the CDN after its input ended. */
const GRACEFUL_EXIT_MS = 2000;

class PushChild {
  readonly ffmpeg: FfmpegProcess;
  readonly input: Writable;
  readonly output: Readable;
  readonly publisher: RtmpPublisher;
  /** `stopping`: stopped on purpose, its last FLV tags still going out; `down`: nothing more is sent or reported. */
  state: 'connecting' | 'publishing' | 'stopping' | 'down' = 'connecting';
  /** Bytes the connection had handed to the network at the last look. */
  sentBytes = 0;
  /** Since when bytes handed to the child have been waiting with nothing sent to the CDN (undefined: none wait). */
  waitingSince: number | undefined;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly rtmpUrl: string,
    target: PublishTarget,
    address: string | undefined,
    ca: string | undefined,
  ) {
    this.ffmpeg = new FfmpegProcess(pusherArgs(), { extraPipes: 2, stderrLimit: 4096 });
    this.input = this.ffmpeg.child.stdio[PUSH_INPUT_FD] as Writable;
    // EPIPE once the child is gone: its exit is what reports the failure.
    this.input.on('error', () => undefined);
    this.output = this.ffmpeg.pipe(PUSH_OUTPUT_FD);
    // Read once the CDN has started the publish: until then ffmpeg's FLV waits in the pipe.
    this.output.pause();
    this.publisher = new RtmpPublisher({ target, address, ca });
  }

  /** Whether the connection handed more bytes to the network since the last look (then nothing waits). */
  progressed(): boolean {
    const sent = this.publisher.sentBytes;
    if (sent <= this.sentBytes) return false;
    this.sentBytes = sent;
    this.waitingSince = undefined;
    return true;
  }
}

export class CdnPusher {
  readonly #o: Required<Omit<CdnPusherOptions, 'rtmpUrl' | 'outbound' | 'ca'>>;
  readonly #outbound: OutboundPolicy | undefined;
  readonly #ca: string | undefined;
  #target: string | undefined;
  /** An MPEG-TS stream is flowing (between beginStream and endStream). */
  #streaming = false;
  #stream = 0;
  /** The unfinished TS packet at the end of the last chunk. */
  #carry: Buffer = Buffer.alloc(0);
  /** The stream from its latest keyframe: what a child joining it is given first. */
  #gop = new GopCache();
  #child: PushChild | undefined;
  #dropped = 0;
  #closed = false;
  /** Serialises child starts and stops: two children never push at once. */
  #queue: Promise<void> = Promise.resolve();

  constructor({ rtmpUrl, outbound, ca, ...options }: CdnPusherOptions) {
    if (rtmpUrl !== undefined && !isRtmpUrl(rtmpUrl)) throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
    this.#target = rtmpUrl;
    this.#outbound = outbound;
    this.#ca = ca;
    this.#o = {
      connectTimeoutMs: 15_000,
      stallTimeoutMs: 8_000,
      maxBacklogBytes: 4 * 1024 * 1024,
      ...options,
    };
  }

  get target(): string | undefined {
    return this.#target;
  }

  /** The running child's process id. */
  get pid(): number | undefined {
    const c = this.#child;
    return c?.ffmpeg.running ? c.ffmpeg.child.pid : undefined;
  }

  /** Bytes of the stream that no child took (none running, or it fell behind). */
  get droppedBytes(): number {
    return this.#dropped;
  }

  #serial(step: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(step);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Points the push at `url` (a new child, the old one stopped first) or, with undefined, stops it. */
  setTarget(url: string | undefined): Promise<void> {
    // Refuses a URL that is not RTMP before anything changes; one without a stream key is reported by its child.
    if (url !== undefined && !isRtmpUrl(url)) throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
    return this.#serial(async () => {
      this.#target = url;
      await this.#stopChild();
      if (!this.#closed && this.#streaming && url !== undefined) await this.#startChild(url);
    });
  }

  /**
   * A new MPEG-TS stream begins (an encoder run starts; its timestamps start over, so a new child joins it).
   * Returns the function that takes the stream's bytes; bytes of an earlier stream are ignored from now on.
   */
  beginStream(): (chunk: Buffer) => void {
    const stream = ++this.#stream;
    this.#streaming = true;
    this.#carry = Buffer.alloc(0);
    this.#gop = new GopCache();
    void this.#serial(async () => {
      await this.#stopChild();
      if (!this.#closed && this.#streaming && this.#stream === stream && this.#target !== undefined) await this.#startChild(this.#target);
    });
    return (chunk) => {
      if (this.#stream === stream && this.#streaming) this.#feed(chunk);
    };
  }

  /** The stream ended (pause, stop): the child finishes what it has and exits, reporting nothing. */
  endStream(): Promise<void> {
    this.#streaming = false;
    this.#stream++;
    return this.#serial(() => this.#stopChild());
  }

  /** Ends the push for good. */
  stop(): Promise<void> {
    this.#closed = true;
    return this.endStream();
  }

  #feed(chunk: Buffer): void {
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    const whole = data.length - (data.length % TS_PACKET_BYTES);
    this.#carry = Buffer.from(data.subarray(whole));
    if (whole === 0) return;
    const packets = data.subarray(0, whole);
    this.#gop.push(packets);
    const c = this.#child;
    if (!c || c.state === 'down' || c.state === 'stopping' || c.input.destroyed || c.input.writableLength > this.#o.maxBacklogBytes) {
      this.#dropped += whole;
      return;
    }
    this.#write(c, packets);
  }

  #write(c: PushChild, bytes: Buffer): void {
    if (bytes.length === 0) return;
    c.waitingSince ??= Date.now();
    c.input.write(bytes);
  }

  /**
   * Where the connection for `url` goes: `{}` (the host as named) without a guard, the guard's approved address with
   * one, or undefined when the target is refused.
   */
  async #approve(url: string, target: PublishTarget): Promise<{ address?: string } | undefined> {
    if (!this.#outbound) return {};
    try {
      return { address: (await resolveOutboundHost(target.host, this.#outbound)).address };
    } catch (e) {
      const why = e instanceof OutboundUrlError && e.refusal === 'unresolvable' ? 'the CDN host could not be resolved' : 'the CDN host is not a public address';
      this.#o.onStatus({ rtmpUrl: url, status: 'disconnected', message: why });
      return undefined;
    }
  }

  async #startChild(url: string): Promise<void> {
    let target: PublishTarget;
    try {
      target = publishTarget(url);
    } catch (e) {
      // rtmp://host/key: no application to connect to (the request's format allows it, RTMP does not).
      return this.#o.onStatus({ rtmpUrl: url, status: 'disconnected', message: (e as Error).message });
    }
    const approved = await this.#approve(url, target);
    // Stopped, ended or pointed elsewhere while the host was being resolved: nothing to start.
    if (!approved || this.#closed || !this.#streaming || this.#target !== url) return;
    const c = new PushChild(url, target, approved.address, this.#ca);
    this.#child = c;
    this.#o.onStatus({ rtmpUrl: url, status: 'connecting' });
    // Joining a running stream: start on its latest keyframe (picture and sound together, no probe wait).
    if (this.#streaming) this.#write(c, this.#gop.snapshot());
    const flv = new FlvReader();
    c.output.on('data', (d: Buffer) => {
      if (c.state === 'down') return;
      if (!c.publisher.isPublished) return void this.#down(c, 'the pusher wrote before the publish started');
      let sendable = true;
      try {
        for (const tag of flv.push(d)) sendable = c.publisher.send(tag) && sendable;
      } catch (e) {
        if (e instanceof FlvFormatError) return this.#down(c, `the pusher's FLV did not read: ${e.message}`);
        throw e;
      }
      // The socket's buffer is full: ffmpeg waits (and the feed drops what no longer fits) until it drains.
      if (!sendable) c.output.pause();
      if (c.state === 'connecting') {
        c.state = 'publishing';
        this.#o.onStatus({ rtmpUrl: url, status: 'publishing' });
      }
      c.progressed();
    });
    c.publisher.onDrain(() => {
      if (c.state !== 'down') c.output.resume();
    });
    void c.publisher.published.then(() => {
      if (c.state !== 'down') c.output.resume();
    });
    void c.publisher.closed.then((end) => {
      if (end) this.#down(c, end.reason);
    });
    // One watchdog for both limits: not through in time, or nothing sent for too long once publishing.
    c.timer = setInterval(() => {
      if (c.progressed() || c.waitingSince === undefined) return;
      const waited = Date.now() - c.waitingSince;
      if (c.state === 'connecting' && waited > this.#o.connectTimeoutMs) this.#down(c, `no connection to the CDN within ${this.#o.connectTimeoutMs} ms`);
      else if (c.state === 'publishing' && waited > this.#o.stallTimeoutMs) this.#down(c, `nothing sent to the CDN for ${this.#o.stallTimeoutMs} ms`);
    }, 500);
    void c.ffmpeg.exited.then((exit) => {
      clearInterval(c.timer);
      // ffmpeg never had the target, so its words carry no stream key.
      const last = exit.stderrTail.trim().split('\n').at(-1) ?? '';
      this.#down(c, `pusher exited (${exit.code ?? exit.signal}): ${last}`);
    });
  }

  /** The push is lost: reported once, the child and the connection ended; the stream's packets are dropped from now on. */
  #down(c: PushChild, message: string): void {
    if (c.state === 'down' || c.state === 'stopping') return;
    c.state = 'down';
    clearInterval(c.timer);
    c.publisher.destroy();
    if (c.ffmpeg.running) void c.ffmpeg.stop(1000, 200);
    this.#o.onStatus({ rtmpUrl: c.rtmpUrl, status: 'disconnected', message });
  }

  /**
   * Ends the current child quietly. A publishing one has its input closed so it can finish the FLV, which is sent on;
   * then the publish is ended at the CDN (ffmpeg stopped after GRACEFUL_EXIT_MS). Any other is just ended.
   */
  async #stopChild(): Promise<void> {
    const c = this.#child;
    this.#child = undefined;
    if (!c) return;
    const was = c.state;
    clearInterval(c.timer);
    if (was !== 'publishing') {
      c.state = 'down';
      c.publisher.destroy();
      if (c.ffmpeg.running) await c.ffmpeg.stop(1000, 200);
      return;
    }
    c.state = 'stopping';
    const flushed = new Promise<void>((r) => c.output.once('close', r));
    c.input.end();
    const timer = setTimeout(() => void c.ffmpeg.stop(1000, 200), GRACEFUL_EXIT_MS);
    // A CDN that stopped reading holds the last tags in the socket: the wait for them is bounded too.
    let giveUp: NodeJS.Timeout | undefined;
    try {
      await Promise.race([Promise.all([c.ffmpeg.exited, flushed]), new Promise((r) => (giveUp = setTimeout(r, GRACEFUL_EXIT_MS + 1500)))]);
    } finally {
      clearTimeout(timer);
      clearTimeout(giveUp);
    }
    await c.ffmpeg.exited;
    c.state = 'down';
    c.publisher.end();
  }
}

import type { ChildProcess } from 'node:child_process';
import { spawnChild } from '../../process/index.ts';
import { whipPublish, type WhipPublisher } from '../client/index.ts';
import { CaptureClock } from './capture-clock.ts';
import { COLOR, syntheticFfmpegArgs, type SyntheticMedia } from './ffmpeg-args.ts';
import { replayMedia } from './replay-cache.ts';
import { RtpReplay } from './replay.ts';
import { packetCounts, type RtpInput, rtpInput, socketInto, whipReports } from './rtp-input.ts';

/** A replay publisher's default loop. */
export const REPLAY_SECONDS = 10;

export interface SyntheticPublisherOptions extends Partial<SyntheticMedia> {
  /** reeltime base URL, e.g. http://127.0.0.1:8080 */
  readonly baseUrl: string;
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token?: string | undefined;
  readonly profile?: 'communication' | 'live';
  readonly stunUrl?: string;
  /**
   * Called when the last packet of video frame `index` (counted from the publisher's first frame, as its frame code
   * shows) goes to the peer: the frame's send time for latency benchmarks.
   */
  readonly onVideoFrame?: (index: number, sentAtMs: number) => void;
  /** Its sender reports put its clock this far ahead of ours (negative: behind); default 0. */
  readonly senderClockOffsetMs?: number;
  /**
   * `live` (default): an ffmpeg encodes in real time for the publisher's whole life; on a busy machine it falls
   * behind. `replay`: the same media is encoded once, faster than real time, into a cache file shared by every
   * process (publisher/replay-cache.ts), and sent in real time from memory, looped (publisher/replay.ts): no encoder
   * runs while publishing. The first publisher of a set of parameters on a machine waits for that encode.
   */
  readonly mode?: 'live' | 'replay';
  /**
   * Replay: the loop's length in seconds (default REPLAY_SECONDS). It is rounded up to whole `toneTurns` periods, and
   * with `frameCode` to whole frame-code periods (1024 frames: 68.3 s at 15 fps), so loops change neither.
   */
  readonly replaySeconds?: number;
  /** False: the publisher offers no NACK for its Opus, so lost audio is not resent (a sender whose audio has no repair but its own FEC). */
  readonly audioNack?: boolean;
  /**
   * Video as two simulcast encodings (rids `h` and `l`): the picture and one at half its size, from one live ffmpeg
   * (a replay publisher has one encoding: `simulcast` makes it live).
   */
  readonly simulcast?: boolean;
}

export interface SyntheticPublisher {
  readonly whip: WhipPublisher;
  /** Resolves when the peer is connected. */
  readonly ready: Promise<void>;
  /**
   * Its sender clock: our wall time (Unix ms) of a moment of its media timeline (ms from its start, e.g. where
   * `toneTurns` switches), as its sender reports say it less their `senderClockOffsetMs` (undefined before any).
   */
  captureTimeOf(mediaMs: number): number | undefined;
  /** RTP packets sent so far (read from ffmpeg, or paced out by the replay), per kind. */
  readonly packets: { audio: number; video: number };
  /** Resolves when the media ends (stop(), or a live ffmpeg's failure: then it rejects with ffmpeg's error). */
  readonly exited: Promise<void>;
  /** Stops the media, leaves the channel (DELETE) and closes the peer. */
  stop(): Promise<void>;
  /** Stops the media and the peer without telling the server (tests of dead-peer detection). */
  kill(): Promise<void>;
}

/** What makes the media: a live ffmpeg or the replay pacer. */
interface MediaSource {
  /** Resolves when it ends (stopped, or ffmpeg exited). */
  readonly exited: Promise<void>;
  /** ffmpeg's error output, if any. */
  failure(): string | undefined;
  /** How it ended, for an error before any media: the error output or the exit code. */
  ending(): string;
  stop(): Promise<void>;
}

async function liveSource(media: SyntheticMedia, video: RtpInput, audio: RtpInput, lowVideo?: RtpInput): Promise<MediaSource> {
  const vs = await socketInto(video);
  const as = await socketInto(audio);
  const ls = lowVideo && (await socketInto(lowVideo));
  const args = syntheticFfmpegArgs(media, vs.address().port, as.address().port, { realtime: true }, ls?.address().port);
  const ff: ChildProcess = spawnChild('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  ff.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  ff.once('error', (e) => {
    stderr += String(e);
  });
  // A failed spawn emits 'error' and no 'exit'.
  const exited = new Promise<void>((resolve) => {
    ff.once('exit', () => resolve());
    ff.once('error', () => resolve());
  });
  return {
    exited,
    failure: () => stderr.trim() || undefined,
    ending: () => stderr.trim() || `exit code ${ff.exitCode}`,
    async stop() {
      if (ff.exitCode === null && ff.signalCode === null) ff.kill('SIGKILL');
      await exited;
      vs.close();
      as.close();
      ls?.close();
    },
  };
}

async function replaySource(media: SyntheticMedia, seconds: number, video: RtpInput, audio: RtpInput): Promise<MediaSource> {
  const replay = new RtpReplay(await replayMedia(media, seconds), media.codec, (kind, p) => (kind === 'video' ? video : audio).deliver(p));
  let ended: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => (ended = resolve));
  replay.start();
  return {
    exited,
    failure: () => undefined,
    ending: () => 'stopped',
    async stop() {
      replay.stop();
      ended();
    },
  };
}

/** The media of a publisher with these options (defaults filled in, colour checked). */
function syntheticMedia(opts: Partial<SyntheticMedia>): SyntheticMedia {
  const media: SyntheticMedia = {
    color: opts.color ?? 'red',
    toneHz: opts.toneHz ?? 440,
    codec: opts.codec ?? 'vp8',
    width: opts.width ?? 640,
    height: opts.height ?? 360,
    fps: opts.fps ?? 15,
    toneTurns: opts.toneTurns,
    frameCode: opts.frameCode,
    ...(opts.opusFec ? { opusFec: true } : {}),
  };
  if (!COLOR.test(media.color)) throw new Error(`color must be a name like "red" or hex like "#ff0000", got "${media.color}"`);
  return media;
}

/**
 * Makes (or finds) the replay media of a publisher with these options, without publishing: a benchmark encodes its
 * publishers' media before it measures anything, and starts them all without waiting on one another's encodes.
 */
export async function prepareReplay(opts: Partial<SyntheticMedia> & Pick<SyntheticPublisherOptions, 'replaySeconds'>): Promise<void> {
  await replayMedia(syntheticMedia(opts), opts.replaySeconds ?? REPLAY_SECONDS);
}

/**
 * A synthetic WHIP publisher: ffmpeg renders a solid colour with a frame counter and a sine tone, encodes VP8 or
 * H.264 and Opus, and sends RTP to loopback ports that a werift client peer reads and forwards over WHIP (live);
 * or the RTP of such an encode, made once and cached, is paced out from memory (replay). Either way the packets
 * take the same path from here on: the capture clock's sender reports, the frame callbacks, the counters.
 * The media starts first and the WHIP session opens once both kinds flow, so the server gets media as soon as the
 * peer connects (a slow ffmpeg start on a busy machine would otherwise count against the server's idle timeout).
 */
export async function startSyntheticPublisher(opts: SyntheticPublisherOptions): Promise<SyntheticPublisher> {
  const media = syntheticMedia(opts);
  const q = new URLSearchParams({ uid: String(opts.uid), ...(opts.profile ? { profile: opts.profile } : {}) });
  const endpoint = `${opts.baseUrl.replace(/\/+$/, '')}/rtc/v1/apps/${encodeURIComponent(opts.appId)}/channels/${encodeURIComponent(opts.cname)}/whip?${q}`;
  const { packets, allFlowing, count } = packetCounts();
  const frameTicks = 90_000 / media.fps;
  let firstTimestamp: number | undefined;
  const countVideo = count('video');
  const onVideo = opts.onVideoFrame
    ? (msg: Buffer) => {
        countVideo();
        if ((msg[1]! & 0x80) === 0) return; // not the frame's last packet
        const ts = msg.readUInt32BE(4);
        firstTimestamp ??= ts;
        opts.onVideoFrame!(Math.round(((ts - firstTimestamp) >>> 0) / frameTicks), Date.now());
      }
    : countVideo;
  const clock = new CaptureClock(opts.senderClockOffsetMs ?? 0);
  const video = rtpInput('video', clock, onVideo);
  const audio = rtpInput('audio', clock, count('audio'));
  // The second encoding has timestamps of its own: a clock apart (it sends no sender reports).
  const lowVideo = opts.simulcast ? rtpInput('video', new CaptureClock(), () => undefined) : undefined;
  const source =
    opts.mode === 'replay' && !lowVideo
      ? await replaySource(media, opts.replaySeconds ?? REPLAY_SECONDS, video, audio)
      : await liveSource(media, video, audio, lowVideo);
  let whip: WhipPublisher | undefined;
  let stopped = false;
  const shutdown = async (leave: boolean) => {
    if (stopped) return;
    stopped = true;
    await source.stop();
    if (!whip) return;
    if (leave) await whip.close();
    else await whip.pc.close().catch(() => undefined);
  };
  const started = await Promise.race([allFlowing.then(() => true), source.exited.then(() => false)]);
  if (!started) {
    await shutdown(false);
    throw new Error(`ffmpeg exited before sending media: ${source.ending()}`);
  }
  try {
    whip = await whipPublish({
      endpoint,
      token: opts.token,
      video: media.codec,
      ...(opts.audioNack === false ? { audioNack: false } : {}),
      ...(opts.simulcast ? { simulcast: true } : {}),
      ...(opts.stunUrl ? { stunUrl: opts.stunUrl } : {}),
    });
  } catch (e) {
    await shutdown(false);
    throw e;
  }
  video.track = whip.video;
  audio.track = whip.audio;
  if (lowVideo) lowVideo.track = whip.lowVideo;
  video.reports = audio.reports = whipReports(whip);
  const session = whip;
  return {
    whip: session,
    ready: session.ready,
    captureTimeOf: (mediaMs) => clock.captureTimeOf(mediaMs),
    packets,
    exited: source.exited.then(() => {
      const failure = source.failure();
      if (!stopped && failure) throw new Error(`ffmpeg exited: ${failure}`);
    }),
    stop: () => shutdown(true),
    kill: () => shutdown(false),
  };
}

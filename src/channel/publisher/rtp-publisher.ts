import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { H264Reframer } from '../../rtp-payload/index.ts';
import { whipPublish, type RtpWriter, type WhipPublisher } from '../client/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { CaptureClock } from './capture-clock.ts';
import { packetCounts, rtpInput, socketInto, whipReports, type SenderReportTarget } from './rtp-input.ts';
import type { LocalPublishHandle } from '../sfu-types.ts';

/**
 * Publishes `kinds` into the channel in this process (`ChannelModule.publishLocal`, bound to the channel, uid and
 * token); throws ChannelError as a WHIP POST would answer.
 */
export type PublishInProcess = (kinds: readonly MediaKind[]) => LocalPublishHandle;

export interface RtpPublisherOptions {
  /** The WHIP endpoint of the channel, query (uid) included. */
  readonly endpoint: string;
  readonly token?: string | undefined;
  /**
   * When the channel lives in this process: its packets go straight into the SFU, not through a WHIP peer over
   * loopback (no SRTP, no UDP between the two; docs/ingest.md, "In-process publish").
   */
  readonly inProcess?: PublishInProcess | undefined;
  readonly video: 'vp8' | 'h264';
  /**
   * H.264: where a picture ends in what the process sends: `timestamp` (default; its marker bits cannot be trusted,
   * a camera's slices copied each with one; one frame of delay) or `marker` (it packetizes whole access units).
   */
  readonly h264PictureEnd?: 'marker' | 'timestamp';
  /** The kinds the process sends (default both): a source without audio publishes video only, and the reverse. */
  readonly kinds?: readonly MediaKind[];
  readonly stunUrl?: string;
  /**
   * Starts the process that sends RTP: video (payload type 96) to `videoPort`, Opus (111) to `audioPort`, both on
   * 127.0.0.1, from one media timeline (both kinds' first packets are of the same instant).
   */
  spawn(videoPort: number, audioPort: number): ChildProcess;
  /**
   * How long its kinds may take to start flowing before the publish is given up; undefined: as long as the process
   * runs (a listener waiting for its caller).
   */
  readonly startTimeoutMs?: number | undefined;
}

export interface RtpPublisher {
  /** Its WHIP session; undefined for an in-process publish. */
  readonly whip: WhipPublisher | undefined;
  /** Resolves when the peer is connected (at once in-process). */
  readonly ready: Promise<void>;
  readonly packets: { audio: number; video: number };
  /** Resolves when the process exits (its stderr tail, for the reason). */
  readonly exited: Promise<string>;
  /** Ends the process, leaves the channel (DELETE) and closes the peer. */
  stop(): Promise<void>;
}

/**
 * Publishes what an external process (an ffmpeg) sends as RTP into a channel over WHIP, on the synthetic
 * publisher's path: the packets go unchanged into a werift client peer's tracks, with the capture clock's sender
 * reports. The WHIP session opens once its kinds flow. Rejects when they do not within `startTimeoutMs` or the
 * process ends first (with its error output).
 */
export async function startRtpPublisher(opts: RtpPublisherOptions): Promise<RtpPublisher> {
  const kinds = opts.kinds ?? ['audio', 'video'];
  const { packets, allFlowing, count } = packetCounts(kinds);
  const clock = new CaptureClock();
  // An external process's H.264 (an ingest copying a camera's or an encoder's stream) may mark every slice of a
  // picture as its end and repeat parameter sets between slices: it goes out one access unit per picture.
  const reframer = opts.video === 'h264' ? new H264Reframer({ firstSequenceNumber: randomInt(0x10000), unitEndsAt: opts.h264PictureEnd ?? 'timestamp' }) : undefined;
  // The source cannot be asked for a keyframe: its first GOP waits for the peer rather than being lost before it.
  const video = rtpInput('video', clock, count('video'), reframer && ((msg) => reframer.push(msg)), { codec: opts.video });
  const audio = rtpInput('audio', clock, count('audio'));
  const sockets: Socket[] = [await socketInto(video), await socketInto(audio)];
  let child: ChildProcess;
  try {
    child = opts.spawn(sockets[0]!.address().port, sockets[1]!.address().port);
  } catch (e) {
    for (const s of sockets) s.close();
    throw e;
  }
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(stderr.trim() || `exit ${code ?? signal}`));
    child.once('error', (e) => resolve(String(e)));
  });
  let target: PublishTarget | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    for (const s of sockets) s.close();
    await target?.close().catch(() => undefined);
  };
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    allFlowing.then(() => 'flowing' as const),
    exited.then((why) => `the media process ended before sending ${kinds.join(' and ')}: ${why}`),
    new Promise<string>((resolve) => {
      if (opts.startTimeoutMs === undefined) return;
      timer = setTimeout(
        () => resolve(`no ${kinds.find((k) => packets[k] === 0)} within ${opts.startTimeoutMs} ms (the source's ${kinds.join(' and ')} are needed)`),
        opts.startTimeoutMs,
      );
    }),
  ]);
  clearTimeout(timer);
  if (outcome !== 'flowing') {
    await stop();
    throw new Error(outcome);
  }
  try {
    target = opts.inProcess
      ? inProcessTarget(opts.inProcess(kinds))
      : whipTarget(
          await whipPublish({
            endpoint: opts.endpoint,
            token: opts.token,
            video: kinds.includes('video') ? opts.video : false,
            audio: kinds.includes('audio'),
            // The process relays a source (an encoder, a camera) that cannot be asked for a keyframe.
            keyframeRequests: false,
            ...(opts.stunUrl ? { stunUrl: opts.stunUrl } : {}),
          }),
        );
  } catch (e) {
    await stop();
    throw e;
  }
  video.track = target.video;
  audio.track = target.audio;
  video.reports = audio.reports = target.reports;
  void target.ready.then(() => video.connected(), () => undefined);
  return { whip: target.whip, ready: target.ready, packets, exited, stop };
}

/** Where the inputs' packets and sender reports go: a WHIP session, or the channel in this process. */
interface PublishTarget {
  readonly whip: WhipPublisher | undefined;
  readonly video: RtpWriter | undefined;
  readonly audio: RtpWriter | undefined;
  readonly reports: SenderReportTarget;
  /** Resolves when packets reach the channel (a WHIP peer connected; at once in-process). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

function whipTarget(whip: WhipPublisher): PublishTarget {
  return { whip, video: whip.video, audio: whip.audio, reports: whipReports(whip), ready: whip.ready, close: () => whip.close() };
}

function inProcessTarget(local: LocalPublishHandle): PublishTarget {
  return {
    whip: undefined,
    video: { writeRtp: (p) => local.push('video', p) },
    audio: { writeRtp: (p) => local.push('audio', p) },
    reports: { live: () => true, sendSenderReport: (kind, mapping) => local.pushSenderReport(kind, mapping) },
    ready: Promise.resolve(),
    close: () => local.close(),
  };
}

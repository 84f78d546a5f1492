import type { ChildProcess } from 'node:child_process';
import { startRtpPublisher, type PublishInProcess, type RtpPublisher } from '../channel/index.ts';
import { FIRST_PLAN, ingestPictureEnd, nextPlan, spawnIngestFfmpeg, type MediaPlan } from './pipeline.ts';
import type { FlvKindsSeen, HeldFlv } from './rtmp/index.ts';
import type { IngressState } from './types.ts';

/** How a publish ended: `no-room` when its media came but this process had no room for it (its admission). */
export type PublishOutcome = 'ended' | 'no-room';

/** Where a publish goes: the channel's WHIP endpoint and token, or the channel in this process. */
export interface PublishInto {
  readonly endpoint: string;
  readonly token: string | undefined;
  /** Set when the channel lives in this process: ffmpeg's RTP goes straight into the SFU (no WHIP peer). */
  readonly inProcess: PublishInProcess | undefined;
}

/** How one publish runs: how its media starts (an ffmpeg sending RTP, or a WHEP relay), and what its end means. */
export interface PublishPlan {
  /** Starts the media and publishes it as the ingress's participant. */
  start(into: PublishInto, signal: AbortSignal): Promise<RtpPublisher>;
  /** Ends the source's connection (RTMP); called once at the end. */
  disconnect(reason: string): void;
  /** The state when the media process ends by itself: RTMP `failed` (the connection ends it first), SRT `waiting`. */
  readonly exitState: IngressState;
  /** The publish could not start (called before the end). */
  onFailure(): void;
}

/**
 * A publish whose media comes from an ffmpeg sending RTP (startRtpPublisher, H.264 and Opus); the ffmpeg is killed
 * when the publish ends, also while it is still starting. With `retry: 'retry'`, a source whose first ffmpeg ended
 * for a reason `nextPlan` knows (only video or only audio; H.265 video, re-encoded) is started again at once with the
 * plan that fits it, at most twice (an H.265 camera without a microphone): pulled sources and SRT, which connect
 * again; an RTMP publish's FLV went to the first ffmpeg and cannot.
 */
export function ffmpegPublish(
  spawn: (videoPort: number, audioPort: number, plan: MediaPlan) => ChildProcess,
  opts: {
    readonly startTimeoutMs: number | undefined;
    readonly retry: 'retry' | 'fail';
    /** Told the plan the publish started with. */
    readonly onPlan?: (plan: MediaPlan) => void;
    /** The plan tried first (an RTMP publish's kinds are known from its stream before ffmpeg starts). */
    readonly first?: MediaPlan;
    /** Where ffmpeg's H.264 RTP ends a picture with a plan (`ingestPictureEnd` of the input). */
    readonly pictureEnd: (plan: MediaPlan) => 'marker' | 'timestamp';
  },
): PublishPlan['start'] {
  const startTimeoutMs = opts.startTimeoutMs;
  const attempt = (plan: MediaPlan, into: PublishInto, signal: AbortSignal) =>
    startRtpPublisher({
      endpoint: into.endpoint,
      token: into.token,
      inProcess: into.inProcess,
      video: 'h264',
      h264PictureEnd: opts.pictureEnd(plan),
      kinds: plan.kinds,
      startTimeoutMs,
      spawn: (videoPort, audioPort) => {
        const child = spawn(videoPort, audioPort, plan);
        const kill = () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        };
        if (signal.aborted) kill();
        else signal.addEventListener('abort', kill, { once: true });
        return child;
      },
    });
  return async (into, signal) => {
    let plan = opts.first ?? FIRST_PLAN;
    for (let tries = 0; ; tries++) {
      try {
        const publisher = await attempt(plan, into, signal);
        opts.onPlan?.(plan);
        return publisher;
      } catch (e) {
        const next = opts.retry === 'retry' && tries < 2 ? nextPlan((e as Error).message, plan) : undefined;
        if (!next || signal.aborted) throw e;
        plan = next;
      }
    }
  };
}

/**
 * An accepted RTMP publish's media: its FLV is held (`HeldFlv`) until the stream shows which kinds it carries
 * (`FlvKinds`), then goes into an ffmpeg asked for those (an encoder without a microphone publishes its video alone).
 * Its FLV cannot be read twice, so no second ffmpeg is tried.
 */
export function flvPublish(
  flv: HeldFlv,
  opts: { readonly startTimeoutMs: number | undefined; readonly onPlan?: (plan: MediaPlan) => void },
): PublishPlan['start'] {
  return async (into, signal) => {
    const seen = await new Promise<FlvKindsSeen>((done, fail) => {
      void flv.kinds.then(done);
      signal.addEventListener('abort', () => fail(new Error('the publish ended before its media came')), { once: true });
    });
    const kinds = (['audio', 'video'] as const).filter((k) => seen[k]);
    if (kinds.length === 0) throw new Error('the source sent neither audio nor video');
    const spawn = (videoPort: number, audioPort: number, plan: MediaPlan) => {
      const child = spawnIngestFfmpeg(videoPort, audioPort, { kind: 'flv' }, plan);
      child.stdin!.on('error', () => undefined); // a dead ffmpeg's EPIPE: its exit says why
      flv.attach(child.stdin!);
      return child;
    };
    const first = kinds.length === 2 ? FIRST_PLAN : { kinds, video: 'copy' as const };
    return ffmpegPublish(spawn, {
      startTimeoutMs: opts.startTimeoutMs,
      retry: 'fail',
      first,
      pictureEnd: (plan) => ingestPictureEnd({ kind: 'flv' }, plan),
      ...(opts.onPlan ? { onPlan: opts.onPlan } : {}),
    })(into, signal);
  };
}

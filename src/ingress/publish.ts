import type { ChildProcess } from 'node:child_process';
import { startRtpPublisher, type MediaKind, type RtpPublisher } from '../channel/index.ts';
import { BOTH_KINDS, kindsPresent } from './pipeline.ts';
import type { IngressState } from './types.ts';

/** How a publish ended: `no-room` when its media came but this process had no room for it (its admission). */
export type PublishOutcome = 'ended' | 'no-room';

/** How one publish runs: how its media starts (an ffmpeg sending RTP, or a WHEP relay), and what its end means. */
export interface PublishPlan {
  /** Starts the media and publishes it as the ingress's participant (endpoint and token of its WHIP session). */
  start(endpoint: string, token: string | undefined, signal: AbortSignal): Promise<RtpPublisher>;
  /** Ends the source's connection (RTMP); called once at the end. */
  disconnect(reason: string): void;
  /** The state when the media process ends by itself: RTMP `failed` (the connection ends it first), SRT `waiting`. */
  readonly exitState: IngressState;
  /** The publish could not start (called before the end). */
  onFailure(): void;
}

/**
 * A publish whose media comes from an ffmpeg sending RTP (startRtpPublisher, H.264 and Opus); the ffmpeg is killed
 * when the publish ends, also while it is still starting. With `missingKinds` ('retry'), a source that turns out to
 * have only video or only audio (ffmpeg names the stream it could not map) is started again at once for the kind it
 * has: pulled sources and SRT, which connect again; an RTMP publish's FLV went to the first ffmpeg and cannot.
 */
export function ffmpegPublish(
  spawn: (videoPort: number, audioPort: number, kinds: readonly MediaKind[]) => ChildProcess,
  startTimeoutMs: number | undefined,
  missingKinds: 'retry' | 'fail' = 'retry',
): PublishPlan['start'] {
  const attempt = (kinds: readonly MediaKind[], endpoint: string, token: string | undefined, signal: AbortSignal) =>
    startRtpPublisher({
      endpoint,
      token,
      video: 'h264',
      kinds,
      startTimeoutMs,
      spawn: (videoPort, audioPort) => {
        const child = spawn(videoPort, audioPort, kinds);
        const kill = () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        };
        if (signal.aborted) kill();
        else signal.addEventListener('abort', kill, { once: true });
        return child;
      },
    });
  return async (endpoint, token, signal) => {
    try {
      return await attempt(BOTH_KINDS, endpoint, token, signal);
    } catch (e) {
      const present = missingKinds === 'retry' ? kindsPresent((e as Error).message, BOTH_KINDS) : undefined;
      if (!present || signal.aborted) throw e;
      return attempt(present, endpoint, token, signal);
    }
  };
}

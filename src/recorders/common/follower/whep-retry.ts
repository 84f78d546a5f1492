/**
 * A recorder's WHEP subscription to one publisher, kept connected: a WHEP session whose peer connection does not
 * come up within WHEP_CONNECT_BOUND_MS (ICE/DTLS never completing on a loaded host), or that fails or stays
 * disconnected that long later, is closed (DELETE) and replaced, with back-off, on the recorders' injected clock.
 * It retries for as long as the subscription is open: the recorder closes it when the publisher leaves or is
 * unsubscribed, and a refusal by the channel (publisher gone, token refused) ends the retries too.
 * Listeners stay attached across replacements; packets come from the current WHEP session only.
 */
import type { Clock, TimerHandle } from '../../../clock/index.ts';
import type { MediaKind } from '../../../channel/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { SenderReport } from '../../../media/mix/live/index.ts';
import type { VideoSize } from '../../../rtp-payload/index.ts';
import { ChannelRefusal, PacketListeners, type MediaSubscription } from './media-subscription.ts';

/**
 * How long a WHEP peer connection may take to (re)connect. On loopback it connects in well under a second, and
 * within a few seconds even at load 30; past 10 s it was never seen to come up (bench/cluster), so waiting longer
 * only loses media.
 */
export const WHEP_CONNECT_BOUND_MS = 10_000;

/** Pause before the n-th replacement (the last value repeats): quick first, then easing off a struggling host. */
export const WHEP_RETRY_BACKOFF_MS: readonly number[] = [500, 1_000, 2_000, 5_000, 10_000];

/** Socket-level failures of the WHEP POST: the channel node did not get to answer (restarting, overloaded, moving). */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Whether the error is a connection that failed at the network level (refused, reset, timed out), looking through
 * `cause` chains (fetch wraps the socket error), as opposed to an answer of the channel or a fault of our own.
 */
export function isNetworkError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  }
  return false;
}

/** What the peer connection reports: `failed` also covers a peer closed other than by us. */
export type LinkState = 'connected' | 'disconnected' | 'failed';

/** One WHEP session (one POST, one peer connection), as the supervisor sees it. */
export interface WhepLink extends MediaSubscription {
  /** Current state, then each change. */
  onState(cb: (s: LinkState | 'connecting') => void): void;
}

export interface SupervisedWhepOptions {
  readonly clock: Clock;
  readonly log: Pick<Logger, 'warn'>;
  /** The publisher's uid and the kinds subscribed (for the log). */
  readonly publisher: number;
  readonly kinds: readonly MediaKind[];
  /** Opens a new WHEP session (a ChannelRefusal when the channel refuses). */
  readonly open: () => Promise<WhepLink>;
}

type ReportListener = (kind: MediaKind, report: SenderReport) => void;

/**
 * Opens the first WHEP session and supervises it and its replacements until closed. A first POST that fails at the
 * network level (the channel node restarting or overloaded) is retried with the same back-off, the subscription
 * returned meanwhile (packets start when a link is up); the channel's refusals and any other error of the first
 * attempt are the caller's, as before.
 */
export async function supervisedWhep(o: SupervisedWhepOptions): Promise<MediaSubscription> {
  const packetListeners = new PacketListeners();
  const reportListeners: ReportListener[] = [];
  let current: WhepLink | undefined;
  /** The size the video is drawn at (a mix region), for every link this subscription makes. */
  let drawn: VideoSize | undefined;
  let closed = false;
  let failures = 0;
  let timer: TimerHandle | undefined;
  const clear = (): void => {
    if (timer) o.clock.clearTimeout(timer);
    timer = undefined;
  };
  const arm = (ms: number, fn: () => void): void => {
    clear();
    timer = o.clock.setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  const fields = { publisher: o.publisher, kinds: o.kinds.join('+') };

  const replace = (reason: string): void => {
    if (closed) return;
    const old = current;
    current = undefined;
    const wait = WHEP_RETRY_BACKOFF_MS[Math.min(failures, WHEP_RETRY_BACKOFF_MS.length - 1)]!;
    failures++;
    o.log.warn({ ...fields, attempt: failures, reason, retryInMs: wait }, 'WHEP subscription not connected: re-subscribing');
    void old?.close().catch(() => undefined);
    arm(wait, () => {
      o.open().then(
        (link) => {
          if (closed) return void link.close().catch(() => undefined);
          install(link);
        },
        (e: Error) => {
          if (closed) return;
          if (e instanceof ChannelRefusal) {
            // The publisher left or the token no longer admits us: membership events take it from here.
            o.log.warn({ ...fields, code: e.code }, 'WHEP re-subscription refused: giving up on this link');
            return;
          }
          replace(`subscribe failed: ${e.message}`);
        },
      );
    });
  };

  const install = (link: WhepLink): void => {
    current = link;
    // A replaced link is told the drawn size again: the node moves the new session's layer as it moved the old one's.
    if (drawn) link.fitVideo?.(drawn);
    link.onPacket((kind, track, packet) => {
      if (current === link) packetListeners.emit(kind, track, packet);
    });
    link.onSenderReport((kind, report) => {
      if (current === link) for (const l of reportListeners) l(kind, report);
    });
    arm(WHEP_CONNECT_BOUND_MS, () => replace(`not connected within ${WHEP_CONNECT_BOUND_MS} ms`));
    link.onState((s) => {
      if (current !== link || closed) return;
      if (s === 'connected') {
        failures = 0;
        clear();
      } else if (s === 'disconnected') {
        arm(WHEP_CONNECT_BOUND_MS, () => replace(`disconnected for ${WHEP_CONNECT_BOUND_MS} ms`));
      } else if (s === 'failed') {
        replace('peer connection failed');
      }
    });
  };

  try {
    install(await o.open());
  } catch (e) {
    if (!isNetworkError(e)) throw e;
    replace(`subscribe failed: ${(e as Error).message}`);
  }
  return {
    onPacket: (cb) => packetListeners.add(cb),
    onSenderReport: (cb) => void reportListeners.push(cb),
    requestKeyframe: () => current?.requestKeyframe(),
    fitVideo(size) {
      drawn = size;
      current?.fitVideo?.(size);
    },
    async close() {
      closed = true;
      clear();
      const link = current;
      current = undefined;
      await link?.close();
    },
  };
}

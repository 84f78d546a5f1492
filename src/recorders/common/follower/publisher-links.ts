/**
 * The recorder's subscriptions to publishers (one WHEP link per user, with the kinds asked for): connect, drop,
 * keyframe requests, and closing them all at the end. Packets of a link that has been dropped or replaced are
 * never delivered. A refused token is fatal for the session; any other failure is left to the next membership
 * change to retry.
 */
import type { MediaKind } from '../../../channel/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import type { SenderReport } from '../../../media/mix/live/index.ts';
import type { VideoSize } from '../../../rtp-payload/index.ts';
import { ChannelRefusal, type ChannelSource, type MediaSubscription } from './channel-source.ts';

const FATAL_REFUSALS: readonly string[] = ['token_invalid', 'token_expired', 'token_missing'];

export interface PublisherLinkEvents {
  onPacket(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void;
  /** An RTCP sender report of a linked publisher's track (modes that align on sender clocks). */
  onSenderReport?(uid: string, kind: MediaKind, report: SenderReport): void;
  /** The channel refused the task's token: the session cannot go on. */
  onRefused(e: ChannelRefusal): void;
  /** Subscribing failed otherwise (the publisher left meanwhile, a transient fault). */
  onFailed(uid: string, e: Error): void;
}

interface Link {
  readonly kinds: readonly MediaKind[];
  sub: MediaSubscription | undefined;
  connecting: Promise<void> | undefined;
}

const sizeKey = (s: VideoSize | undefined) => (s ? `${s.width}x${s.height}` : '');

export class PublisherLinks {
  readonly #links = new Map<string, Link>();
  /** The size each user's video is drawn at (`fitVideo`), kept for links made later. */
  readonly #drawnSizes = new Map<string, VideoSize>();
  #closed = false;

  constructor(
    private readonly source: Pick<ChannelSource, 'subscribe'>,
    private readonly events: PublisherLinkEvents,
  ) {}

  /** Users linked (or being linked) and their kinds: the `links` of planSubscriptions. */
  kinds(): Map<string, readonly MediaKind[]> {
    return new Map([...this.#links].map(([uid, l]) => [uid, l.kinds]));
  }

  connect(uid: string, kinds: readonly MediaKind[]): void {
    if (this.#closed) return;
    const link: Link = { kinds, sub: undefined, connecting: undefined };
    this.#links.set(uid, link);
    link.connecting = (async () => {
      try {
        const sub = await this.source.subscribe(Number(uid), kinds);
        if (this.#links.get(uid) !== link || this.#closed) {
          await sub.close();
          return;
        }
        link.sub = sub;
        const drawn = this.#drawnSizes.get(uid);
        if (drawn) sub.fitVideo?.(drawn);
        sub.onPacket((kind, track, packet) => {
          if (this.#links.get(uid) === link && !this.#closed) this.events.onPacket(uid, kind, track, packet);
        });
        const onReport = this.events.onSenderReport;
        if (onReport) {
          sub.onSenderReport((kind, report) => {
            if (this.#links.get(uid) === link && !this.#closed) onReport(uid, kind, report);
          });
        }
      } catch (e) {
        if (this.#links.get(uid) === link) this.#links.delete(uid);
        if (e instanceof ChannelRefusal && FATAL_REFUSALS.includes(e.code)) this.events.onRefused(e);
        else this.events.onFailed(uid, e as Error);
      }
    })();
  }

  /** Unsubscribes a user (forgotten at once, closed when its connection attempt has settled). */
  async drop(uid: string): Promise<void> {
    const link = this.#links.get(uid);
    if (!link) return;
    this.#links.delete(uid);
    await link.connecting;
    await link.sub?.close();
  }

  requestKeyframe(uid: string): void {
    this.#links.get(uid)?.sub?.requestKeyframe();
  }

  /** The size `uid`'s video is drawn at now (a mix region), or undefined when it is not drawn. */
  fitVideo(uid: string, size: VideoSize | undefined): void {
    if (sizeKey(size) === sizeKey(this.#drawnSizes.get(uid))) return;
    if (!size) {
      this.#drawnSizes.delete(uid);
      return;
    }
    this.#drawnSizes.set(uid, size);
    this.#links.get(uid)?.sub?.fitVideo?.(size);
  }

  /** Closes every link; later connects are ignored. */
  async close(): Promise<void> {
    this.#closed = true;
    const links = [...this.#links.values()];
    this.#links.clear();
    await Promise.all(
      links.map(async (l) => {
        await l.connecting;
        await l.sub?.close();
      }),
    );
  }
}

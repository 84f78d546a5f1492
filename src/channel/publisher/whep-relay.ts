import type { OutboundPolicy } from '../../net/index.ts';
import { whepSubscribe, whipPublish, type WhepSubscriber, type WhipPublisher } from '../client/index.ts';
import type { RtpPublisher } from './rtp-publisher.ts';
import { packetCounts } from './rtp-input.ts';

/**
 * How long after the source's first kind the other may start flowing and still be published. Video may come a
 * while after the sound: a WHEP server (reeltime's own among them) holds a new viewer's video until a keyframe, up to
 * a whole GOP of its publisher (2 s for reeltime's synthetic publisher, often more for a camera); with 3 s for both,
 * a loaded run of the WHEP pull test published the sound alone (session 24). The sound has no such wait.
 */
const SECOND_KIND_WITHIN_MS = { video: 10_000, audio: 3000 } as const;

export interface WhepRelayOptions {
  /** The WHEP endpoint of the source (another WebRTC server's stream), and the bearer token it wants, if any. */
  readonly source: string;
  readonly sourceToken?: string | undefined;
  /** The outbound guard's rule for the source's URL, its redirects and the ICE candidates of its answer. */
  readonly policy: OutboundPolicy;
  /** The WHIP endpoint of the channel, query (uid) included, and its token. */
  readonly endpoint: string;
  readonly token?: string | undefined;
  /** The source's media must start flowing within this. */
  readonly startTimeoutMs: number;
  readonly stunUrl?: string;
  /** Ends the relay, also while it is starting. */
  readonly signal?: AbortSignal;
}

/**
 * Publishes what a WHEP source sends into a channel over WHIP, packet for packet: no decoding and no ffmpeg (the
 * codecs are WebRTC's on both sides). The source's sender reports go on as this publisher's (its RTP timestamps go
 * out unchanged), so recordings keep its A/V sync; the channel's keyframe requests go to the source as PLIs, and
 * the source's losses are repaired towards it (NACK) before they reach the channel. Ends (`exited`) when the
 * source ends the session or its peer fails. A source that sends one kind only publishes that kind.
 */
export async function startWhepRelay(o: WhepRelayOptions): Promise<RtpPublisher> {
  const { packets, allFlowing, count } = packetCounts();
  const counted = { audio: count('audio'), video: count('video') };
  let sub: WhepSubscriber | undefined;
  let whip: WhipPublisher | undefined;
  let stopped = false;
  let end: (why: string) => void = () => undefined;
  const exited = new Promise<string>((resolve) => (end = resolve));
  const closeBoth = () => Promise.all([sub?.close().catch(() => undefined), whip?.close().catch(() => undefined)]).then(() => undefined);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    end('stopped');
    await closeBoth();
  };
  const unlessStopped = () => {
    if (stopped) throw new Error('stopped');
  };
  if (o.signal?.aborted) throw new Error('stopped');
  o.signal?.addEventListener('abort', () => void stop(), { once: true });
  try {
    sub = await whepSubscribe({
      endpoint: o.source,
      token: o.sourceToken,
      policy: o.policy,
      candidatePolicy: o.policy,
      keep: 0,
      ...(o.stunUrl ? { stunUrl: o.stunUrl } : {}),
    });
    unlessStopped();
    const source = sub;
    source.pc.connectionStateChange.subscribe((s) => {
      if (s === 'failed' || s === 'closed') end(`the WHEP source's session ${s === 'closed' ? 'was ended' : 'failed'}`);
    });
    const video = source.codecs.get('video');
    if (video !== undefined && video !== 'vp8' && video !== 'h264') throw new Error(`video: the source sends ${video}; VP8 and H.264 are taken`);
    let firstPacket: () => void = () => undefined;
    const anyFlowing = new Promise<void>((resolve) => (firstPacket = resolve));
    source.onRtp((kind) => {
      counted[kind]();
      firstPacket();
    });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      anyFlowing.then(() => 'flowing' as const),
      exited,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`nothing from the WHEP source within ${o.startTimeoutMs} ms`), o.startTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome !== 'flowing') throw new Error(outcome);
    // A source with one kind (a camera without a microphone) publishes that kind: the other has this long to come
    // after the first.
    const missing = packets.video > 0 ? 'audio' : 'video';
    await Promise.race([allFlowing, new Promise((resolve) => setTimeout(resolve, SECOND_KIND_WITHIN_MS[missing]).unref())]);
    unlessStopped();
    const kinds = (['audio', 'video'] as const).filter((k) => packets[k] > 0);
    const target = await whipPublish({
      endpoint: o.endpoint,
      token: o.token,
      video: kinds.includes('video') ? (video ?? 'vp8') : false,
      audio: kinds.includes('audio'),
      ...(o.stunUrl ? { stunUrl: o.stunUrl } : {}),
    });
    whip = target;
    unlessStopped();
    // Each sender rewrites the header it is given (SSRC, offsets): a copy, as the source's packet is shared.
    source.onRtp((kind, p) => (kind === 'video' ? target.video : target.audio)?.writeRtp(p.clone()));
    source.onSenderReport((kind, r) => target.sendSenderReport(kind, { ntpTimestamp: r.senderInfo.ntpTimestamp, rtpTimestamp: r.senderInfo.rtpTimestamp }));
    target.onKeyframeRequest(() => source.requestKeyframe());
    target.pc.connectionStateChange.subscribe((s) => {
      if (s === 'failed' || s === 'closed') end(`the channel's session ${s === 'closed' ? 'was ended' : 'failed'}`);
    });
    // A keyframe now: the channel's viewers and recorders start at one.
    source.requestKeyframe();
  } catch (e) {
    stopped = true;
    end('stopped');
    await closeBoth();
    throw e;
  }
  const session = whip;
  return { whip: session, ready: session.ready, packets, exited, stop };
}

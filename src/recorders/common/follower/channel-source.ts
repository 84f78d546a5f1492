/**
 * What the recorder sees of a channel: who is there and publishing (the channel module's view of it: in this
 * process, or followed on the node hosting it), and one publisher's media as the task's uid with the task's token,
 * like any other subscriber: through the channel module's in-process tap when the channel is in this process's SFU
 * (no WebRTC hop), over WHEP on the hosting node otherwise.
 * Each received track is described (codec, payload type, fmtp) for the media pipeline.
 */
import type { RtpPacket } from 'werift';
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { ChannelEvent, ChannelModule, ChannelSnapshot, LayerChoice, MediaKind, Profile, TrackCodec } from '../../../channel/index.ts';
import { ChannelError, TAP_AUDIO_LEVEL_ID, whepSubscribe, WhipHttpError, type WhepSubscriber } from '../../../channel/index.ts';
import type { RtpCodecName, RtpTrackDescription } from '../../../media/index.ts';
import { guardedFetch } from '../../../net/index.ts';
import { senderReportOf, type SenderReport } from '../../../media/mix/live/index.ts';
import { ChannelRefusal, PacketListeners, type MediaSubscription } from './media-subscription.ts';
import { supervisedWhep, type LinkState, type WhepLink } from './whep-retry.ts';

export { ChannelRefusal, type MediaSubscription } from './media-subscription.ts';

export interface ChannelSource {
  snapshot(): ChannelSnapshot;
  onEvent(cb: (e: ChannelEvent) => void): () => void;
  /** Checks the token against the channel (401/403 → ChannelRefusal). */
  authorize(): Promise<void>;
  subscribe(publisher: number, kinds: readonly MediaKind[]): Promise<MediaSubscription>;
}

export interface ChannelSourceOptions {
  readonly channel: ChannelModule;
  readonly baseUrl: () => string;
  readonly appId: string;
  readonly cname: string;
  readonly uid: string;
  readonly token: string | undefined;
  readonly profile: Profile;
  /** A simulcast publisher's layer to record (`videoStreamType`); default `high`. */
  readonly layer?: LayerChoice;
  /**
   * How publishers' media reaches the recorder: `auto` (default) taps the SFU in-process when this process runs
   * it and uses WHEP otherwise; `whep` always subscribes over WHEP (a loopback WebRTC hop when local).
   */
  readonly mediaPath?: MediaPath;
  /** The recorders' injected clock: bounds and back-off of WHEP re-subscriptions (whep-retry.ts). */
  readonly clock: Clock;
  /** Warnings about WHEP re-subscriptions (the session's logger). */
  readonly log: Logger;
  /** Each WHEP peer connection made to subscribe, once negotiated (fault injection in tests: closed as a failing peer). */
  readonly whepPeerMade?: ((peer: WhepPeer) => void) | undefined;
}

/** What a test may do with a recorder's WHEP peer: close it, as a peer that fails at once. */
export interface WhepPeer {
  close(): Promise<void>;
}

export type MediaPath = 'auto' | 'whep';

async function refusalOf(res: Response): Promise<ChannelRefusal> {
  let code = 'http_error';
  let reason = res.statusText;
  try {
    const body = (await res.json()) as { error?: unknown; reason?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.reason === 'string') reason = body.reason;
  } catch {
    /* not JSON */
  }
  return new ChannelRefusal(res.status, code, reason);
}

function codecName(mime: string): RtpCodecName | undefined {
  const n = mime.toLowerCase().replace(/^(audio|video)\//, '');
  if (n === 'vp8') return 'VP8';
  if (n === 'h264') return 'H264';
  if (n === 'opus') return 'opus';
  return undefined;
}

function describeCodec(c: TrackCodec, pt: number, audioLevelExtensionId: number | undefined): RtpTrackDescription | undefined {
  const codec = codecName(c.mimeType);
  if (!codec) return undefined;
  return {
    codec,
    payloadType: pt,
    clockRate: c.clockRate,
    ...(c.channels ? { channels: c.channels } : {}),
    ...(c.fmtp ? { fmtp: c.fmtp } : {}),
    ...(codec === 'opus' && audioLevelExtensionId !== undefined ? { audioLevelExtensionId } : {}),
  };
}

/** The publisher's packets from the SFU's forwarding path in this process (ChannelModule.tap). */
function tapSubscribe(o: ChannelSourceOptions, publisher: number, kinds: readonly MediaKind[]): MediaSubscription {
  const described = new Map<MediaKind, RtpTrackDescription | null>();
  const listeners = new PacketListeners();
  const reportListeners: ((kind: MediaKind, report: SenderReport) => void)[] = [];
  let tap;
  try {
    tap = o.channel.tap({
      appId: o.appId,
      cname: o.cname,
      uid: Number(o.uid),
      token: o.token,
      profile: o.profile,
      publisher,
      kinds,
      ...(o.layer ? { layer: o.layer } : {}),
      onPacket(kind, codec, bytes) {
        let d = described.get(kind);
        if (d === undefined) {
          d = describeCodec(codec, bytes[1]! & 0x7f, TAP_AUDIO_LEVEL_ID) ?? null;
          described.set(kind, d);
        }
        if (d) listeners.emit(kind, d, bytes);
      },
      onSenderReport(kind, report) {
        for (const l of reportListeners) l(kind, report);
      },
    });
  } catch (e) {
    if (e instanceof ChannelError) throw new ChannelRefusal(e.status, e.code, e.reason);
    throw e;
  }
  return {
    onPacket: (cb) => listeners.add(cb),
    onSenderReport: (cb) => void reportListeners.push(cb),
    requestKeyframe: () => tap.requestKeyframe(),
    fitVideo: (size) => tap.fitVideo(size),
    close: () => tap.close(),
  };
}

function describe(sub: Pick<WhepSubscriber, 'pc' | 'audioLevelExtensionId'>, kind: MediaKind, pt: number): RtpTrackDescription | undefined {
  for (const t of sub.pc.getTransceivers()) {
    if (t.kind !== kind) continue;
    const c = t.codecs.find((x) => x.payloadType === pt) ?? t.codecs[0];
    if (!c) continue;
    return describeCodec({ mimeType: c.mimeType, clockRate: c.clockRate, channels: c.channels, fmtp: c.parameters ?? '' }, pt, sub.audioLevelExtensionId);
  }
  return undefined;
}

/** One WHEP session to the publisher, with its peer connection's state for the supervisor (whep-retry.ts). */
async function whepLink(o: ChannelSourceOptions, endpoint: string, kinds: readonly MediaKind[]): Promise<WhepLink> {
  let sub: WhepSubscriber;
  try {
    sub = await whepSubscribe({ endpoint, token: o.token, kinds, keep: 0, policy: o.channel.peerPolicy() });
  } catch (e) {
    if (e instanceof WhipHttpError) throw new ChannelRefusal(e.status, e.code, e.reason);
    throw e;
  }
  o.whepPeerMade?.(sub.pc);
  const described = new Map<MediaKind, RtpTrackDescription | null>();
  const listeners = new PacketListeners();
  sub.onRtp((kind: MediaKind, p: RtpPacket) => {
    let d = described.get(kind);
    if (d === undefined) {
      d = describe(sub, kind, p.header.payloadType) ?? null;
      described.set(kind, d);
    }
    if (d) listeners.emit(kind, d, p.serialize());
  });
  const stateOf = (s: string): LinkState | 'connecting' =>
    s === 'connected' ? 'connected' : s === 'disconnected' ? 'disconnected' : s === 'failed' || s === 'closed' ? 'failed' : 'connecting';
  return {
    onPacket: (cb) => listeners.add(cb),
    onSenderReport: (cb) => sub.onSenderReport((kind, packet) => cb(kind, senderReportOf(packet))),
    requestKeyframe: () => sub.requestKeyframe(),
    // The node moves this link to the simulcast layer that covers the drawn size, as it moves an in-process tap.
    fitVideo: (size) => void sub.fitVideo(size),
    onState(cb) {
      cb(stateOf(sub.pc.connectionState));
      sub.pc.connectionStateChange.subscribe((s) => cb(stateOf(s)));
    },
    // When the channel server is gone the WHEP DELETE fails and the peer would stay open: close it ourselves.
    close: () => sub.close().catch(() => sub.pc.close().catch(() => undefined)),
  };
}

export function channelSource(o: ChannelSourceOptions): ChannelSource {
  const view = o.channel.view(o.appId, o.cname);
  const base = () =>
    `${(view.hostUrl() ?? o.baseUrl()).replace(/\/+$/, '')}/rtc/v1/apps/${encodeURIComponent(o.appId)}/channels/${encodeURIComponent(o.cname)}`;
  // A followed view (Redis deployments) may live on another node: only a channel of this process's SFU is tapped.
  const local = o.channel.localMedia && !view.authorize && o.mediaPath !== 'whep';
  return {
    snapshot: () => view.snapshot(),
    onEvent: (cb) => view.onEvent(cb),
    async authorize() {
      if (view.authorize) {
        try {
          return view.authorize(Number(o.uid), o.token);
        } catch (e) {
          if (e instanceof ChannelError) throw new ChannelRefusal(e.status, e.code, e.reason);
          throw e;
        }
      }
      const q = new URLSearchParams({ uid: o.uid });
      const res = await guardedFetch(`${base()}?${q}`, { headers: o.token ? { authorization: `Bearer ${o.token}` } : {} }, o.channel.peerPolicy());
      if (!res.ok) throw await refusalOf(res);
      await res.body?.cancel();
    },
    async subscribe(publisher, kinds) {
      if (local) return tapSubscribe(o, publisher, kinds);
      return supervisedWhep({
        clock: o.clock,
        log: o.log,
        publisher,
        kinds,
        // The endpoint is worked out anew for each attempt: the channel may have moved to another node meanwhile.
        open: () =>
          whepLink(o, `${base()}/whep?${new URLSearchParams({ uid: o.uid, publisher: String(publisher), profile: o.profile, ...(o.layer ? { layer: o.layer } : {}) })}`, kinds),
      });
    },
  };
}

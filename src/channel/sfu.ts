import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import type { AppLookup, ChannelApp } from './apps.ts';
import { authorizeJoin } from './auth.ts';
import type { ChannelConfig } from './config.ts';
import { ChannelError } from './errors.ts';
import { Membership, type LeaveReason, type MediaKind, type Profile } from './membership/index.ts';
import {
  choosePublishCodec,
  chooseSubscribeCodec,
  codecOf,
  parseOffer,
  parseSdpFrag,
  PublishSession,
  LocalTap,
  restrictOffer,
  serverPeerConfig,
  SubscribeSession,
  ChannelTraffic,
  type PeerSessionOptions,
  type TapPacketListener,
  type TapSenderReportListener,
  type TrackCodec,
} from './webrtc/index.ts';

/** An in-process subscription (`Sfu.tap`): the same join rules as WHEP, without a peer connection. */
export interface TapParams {
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token: string | undefined;
  readonly profile: Profile;
  readonly publisher: number;
  readonly kinds: readonly MediaKind[];
  readonly onPacket: TapPacketListener;
  readonly onSenderReport?: TapSenderReportListener;
  /** Called once when the channel ends the tap (publisher left, shutdown), not after `close()`. */
  readonly onEnded?: (reason: LeaveReason) => void;
}

export interface TapHandle {
  requestKeyframe(): void;
  close(): Promise<void>;
}

export interface JoinParams {
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token: string | undefined;
  readonly profile: Profile;
  readonly offer: string;
}

export interface SessionCreated {
  readonly id: string;
  readonly etag: string;
  readonly answer: string;
}

type SessionRecord =
  | { readonly kind: 'publish'; readonly app: ChannelApp; readonly cname: string; readonly uid: number; readonly etag: string; readonly session: PublishSession }
  | {
      readonly kind: 'subscribe';
      readonly app: ChannelApp;
      readonly cname: string;
      readonly uid: number;
      readonly publisher: number;
      readonly etag: string;
      readonly session: SubscribeSession;
    }
  | {
      readonly kind: 'tap';
      readonly app: ChannelApp;
      readonly cname: string;
      readonly uid: number;
      readonly publisher: number;
      readonly tap: LocalTap;
      readonly ended: (reason: LeaveReason) => void;
    };

const pubKey = (appId: string, cname: string, uid: number) => `${appId.toLowerCase()}\u0000${cname}\u0000${uid}`;

/** One published track's RTP so far, as the console's bitrate stream reports it. */
export interface TrackStat {
  readonly cname: string;
  readonly uid: number;
  readonly kind: MediaKind;
  readonly codec: string;
  readonly packets: number;
  readonly bytes: number;
}

/**
 * Fault injection for tests, through the SFU's own options (never by patching its prototype). Production passes none.
 */
export interface SfuTestHooks {
  /**
   * A WHEP subscribe session was created; returns the SDP answer to send instead of `answer` (e.g. one whose ICE
   * password is wrong), or nothing to send it as is. `end` ends the session as this node would (ICE failure...).
   */
  readonly onSubscribed?: (session: { readonly id: string; readonly answer: string; end(reason: LeaveReason): Promise<boolean> }) => string | void;
  /** `end(id, reason)` was called (before anything is ended). */
  readonly onEnd?: (id: string, reason: LeaveReason) => void;
}

/** The SFU: authorizes joins, negotiates werift peers, wires publishers to subscribers, keeps membership. */
export class Sfu {
  readonly membership: Membership;
  /** Packet and feedback totals of every session, for /metrics. */
  readonly traffic = new ChannelTraffic();
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #publishers = new Map<string, string>();

  constructor(
    private readonly cfg: ChannelConfig,
    private readonly clock: Clock,
    private readonly log: Logger,
    readonly apps: AppLookup,
    private readonly testHooks: SfuTestHooks = {},
  ) {
    this.membership = new Membership(() => clock.now());
  }

  app(appId: string): ChannelApp {
    const app = this.apps(appId);
    if (!app) throw new ChannelError('app_not_found', `no app with id "${appId}" on this server`);
    return app;
  }

  async publish(p: JoinParams): Promise<SessionCreated> {
    const app = this.app(p.appId);
    authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: true, nowSec: this.#nowSec() });
    const sections = parseOffer(p.offer);
    const codecs = new Map<MediaKind, TrackCodec>();
    const offer = restrictOffer(p.offer, (s) => {
      if (s.kind !== 'audio' && s.kind !== 'video') return `media kind "${s.kind}" is not supported`;
      if (s.direction === 'recvonly' || s.direction === 'inactive') return `a WHIP offer must send media (the ${s.kind} section is ${s.direction})`;
      if (codecs.has(s.kind)) return `only one ${s.kind} track may be published per session`;
      const c = choosePublishCodec(s);
      if (!c) return s.kind === 'audio' ? 'audio must be Opus' : 'video must be VP8 or H.264 (packetization-mode=1)';
      codecs.set(s.kind, codecOf(c, s.kind));
      return c.pt;
    });
    if (sections.every((s) => s.kind === 'application')) throw new ChannelError('bad_sdp', 'the offer has no audio or video');
    const reservation = this.membership.reservePublish(app.appId, p.cname, p.uid, p.profile);
    const id = this.#newId();
    const session = new PublishSession({
      ...this.#peerOptions(id),
      codecs,
    });
    try {
      const { answer, tracks } = await session.negotiate(offer);
      const etag = this.#newId();
      this.#sessions.set(id, { kind: 'publish', app, cname: p.cname, uid: p.uid, etag, session });
      this.#publishers.set(pubKey(app.appId, p.cname, p.uid), id);
      reservation.commit(tracks);
      this.log.info({ cname: p.cname, uid: p.uid, tracks }, 'channel: publisher joined');
      return { id, etag, answer };
    } catch (e) {
      reservation.cancel();
      await session.close();
      throw e;
    }
  }

  async subscribe(p: JoinParams & { readonly publisher: number }): Promise<SessionCreated> {
    const app = this.app(p.appId);
    authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: false, nowSec: this.#nowSec() });
    const reservation = this.membership.reserveSubscribe(app.appId, p.cname, p.uid, p.publisher, p.profile);
    const pubId = this.#publishers.get(pubKey(app.appId, p.cname, p.publisher));
    const pub = pubId ? this.#sessions.get(pubId) : undefined;
    if (!pub || pub.kind !== 'publish') {
      reservation.cancel();
      throw new ChannelError('publisher_not_found', `uid ${p.publisher} is not publishing in channel "${p.cname}"`);
    }
    const sources = pub.session.tracks;
    const kinds: MediaKind[] = [];
    let offer: string;
    try {
      const sections = parseOffer(p.offer);
      offer = restrictOffer(p.offer, (s) => {
        if (s.kind !== 'audio' && s.kind !== 'video') return `media kind "${s.kind}" is not supported`;
        if (s.direction === 'sendonly' || s.direction === 'inactive') return `a WHEP offer must receive media (the ${s.kind} section is ${s.direction})`;
        if (kinds.includes(s.kind)) return `only one ${s.kind} section is supported`;
        kinds.push(s.kind);
        const published = sources.get(s.kind)?.codec ?? (s.kind === 'audio' ? OPUS : VP8);
        const c = chooseSubscribeCodec(s, published);
        return c ? c.pt : `the publisher sends ${published.mimeType}, which this offer does not accept`;
      });
      if (sections.every((s) => s.kind === 'application')) throw new ChannelError('bad_sdp', 'the offer has no audio or video');
    } catch (e) {
      reservation.cancel();
      throw e;
    }
    const id = this.#newId();
    const session = new SubscribeSession({
      ...this.#peerOptions(id),
      sources,
      publisherSending: (ms) => pub.session.sending(ms),
    });
    try {
      const answer = await session.negotiate(offer, kinds);
      if (pub.session.closed) throw new ChannelError('publisher_not_found', `uid ${p.publisher} stopped publishing`);
      const etag = this.#newId();
      this.#sessions.set(id, { kind: 'subscribe', app, cname: p.cname, uid: p.uid, publisher: p.publisher, etag, session });
      reservation.commit();
      const sent = this.testHooks.onSubscribed?.({ id, answer, end: (reason) => this.end(id, reason) });
      return { id, etag, answer: sent ?? answer };
    } catch (e) {
      reservation.cancel();
      await session.close();
      throw e;
    }
  }

  /**
   * Subscribes in-process to a publisher's tracks (a recorder in the channel's own process): the token, profile
   * and membership rules of WHEP, then the publisher's packets straight from its fan-out (docs/channel.md,
   * "In-process taps").
   */
  tap(p: TapParams): TapHandle {
    const app = this.app(p.appId);
    authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: false, nowSec: this.#nowSec() });
    const reservation = this.membership.reserveSubscribe(app.appId, p.cname, p.uid, p.publisher, p.profile);
    const pubId = this.#publishers.get(pubKey(app.appId, p.cname, p.publisher));
    const pub = pubId ? this.#sessions.get(pubId) : undefined;
    if (!pub || pub.kind !== 'publish' || pub.session.closed) {
      reservation.cancel();
      throw new ChannelError('publisher_not_found', `uid ${p.publisher} is not publishing in channel "${p.cname}"`);
    }
    const tap = new LocalTap({
      sources: pub.session.tracks,
      kinds: p.kinds,
      clock: this.clock,
      // A tapped packet leaves the SFU to a subscriber like a WHEP one (the `out` counters of /metrics).
      onPacket: (kind, codec, packet) => {
        this.traffic.countRtp('out', kind, packet.length);
        p.onPacket(kind, codec, packet);
      },
      ...(p.onSenderReport ? { onSenderReport: p.onSenderReport } : {}),
    });
    const id = this.#newId();
    this.#sessions.set(id, { kind: 'tap', app, cname: p.cname, uid: p.uid, publisher: p.publisher, tap, ended: (r) => p.onEnded?.(r) });
    reservation.commit();
    return {
      requestKeyframe: () => tap.requestKeyframe(),
      close: async () => {
        if (tap.closed) return;
        tap.close();
        await this.end(id, 'deleted');
      },
    };
  }

  /** Trickle ICE (RFC 8840 fragment). The server is ICE-lite, so candidates are accepted and applied as hints. */
  async patch(id: string, ifMatch: string | undefined, body: string): Promise<void> {
    const rec = this.#sessions.get(id);
    if (!rec || rec.kind === 'tap') throw new ChannelError('session_not_found', 'no such session (it ended or never existed)');
    if (!ifMatch) throw new ChannelError('etag_required', 'PATCH needs an If-Match header with the session ETag');
    if (ifMatch === '*') throw new ChannelError('negotiation_failed', 'ICE restarts are not supported; create a new session');
    if (ifMatch.replace(/^W\//, '').replace(/"/g, '') !== rec.etag) {
      throw new ChannelError('etag_mismatch', 'If-Match does not match the session ETag');
    }
    const frag = parseSdpFrag(body);
    for (const c of frag.candidates) {
      await rec.session.pc.addIceCandidate({ candidate: c.candidate, sdpMid: c.mid ?? '0' }).catch(() => undefined);
    }
  }

  /** Ends a session (DELETE, timeout, failure); a publisher's end also ends everyone subscribed to it. */
  async end(id: string, reason: LeaveReason): Promise<boolean> {
    this.testHooks.onEnd?.(id, reason);
    const rec = this.#sessions.get(id);
    if (!rec) return false;
    this.#sessions.delete(id);
    if (rec.kind === 'tap') {
      const byChannel = !rec.tap.closed;
      rec.tap.close();
      this.membership.endSubscribe(rec.app.appId, rec.cname, rec.uid, rec.publisher, reason);
      if (byChannel) rec.ended(reason);
      return true;
    }
    await rec.session.close();
    if (rec.kind === 'subscribe') {
      this.membership.endSubscribe(rec.app.appId, rec.cname, rec.uid, rec.publisher, reason);
      return true;
    }
    this.#publishers.delete(pubKey(rec.app.appId, rec.cname, rec.uid));
    this.membership.endPublish(rec.app.appId, rec.cname, rec.uid, reason);
    this.log.info({ cname: rec.cname, uid: rec.uid, reason }, 'channel: publisher left');
    const followers = [...this.#sessions].filter(
      ([, r]) => (r.kind === 'subscribe' || r.kind === 'tap') && r.app === rec.app && r.cname === rec.cname && r.publisher === rec.uid,
    );
    for (const [sid] of followers) await this.end(sid, 'publisher_left');
    return true;
  }

  /** RTP received so far on each track published in the app's channels on this node. */
  trackStats(app: ChannelApp): TrackStat[] {
    const out: TrackStat[] = [];
    for (const r of this.#sessions.values()) {
      if (r.kind !== 'publish' || r.app.appId.toLowerCase() !== app.appId.toLowerCase()) continue;
      for (const t of r.session.tracks.values()) {
        out.push({ cname: r.cname, uid: r.uid, kind: t.kind, codec: t.codec.mimeType, packets: t.packets, bytes: t.bytes });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const id of [...this.#sessions.keys()]) await this.end(id, 'shutdown');
  }

  #nowSec(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  #newId(): string {
    return randomBytes(16).toString('hex');
  }

  /** What the publish and subscribe sessions share; session `id` ends through `end`. */
  #peerOptions(id: string): PeerSessionOptions {
    return {
      peerConfig: serverPeerConfig(this.cfg),
      iceAddresses: this.cfg.iceAddresses,
      clock: this.clock,
      idleTimeoutMs: this.cfg.idleTimeoutMs,
      traffic: this.traffic,
      onEnded: (reason) => void this.end(id, reason),
    };
  }
}

const OPUS: TrackCodec = { mimeType: 'audio/opus', clockRate: 48000, channels: 2, fmtp: '' };
const VP8: TrackCodec = { mimeType: 'video/vp8', clockRate: 90000, channels: undefined, fmtp: '' };

import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import type { AppLookup, ChannelApp } from './apps.ts';
import { authorizeJoin, type JoinGrant } from './auth.ts';
import { CapCounter, sessionCapReason, tokenKey } from './caps.ts';
import type { RequestClient } from './client-address.ts';
import type { ChannelConfig } from './config.ts';
import { ChannelError } from './errors.ts';
import { Membership, type LeaveReason, type MediaKind, } from './membership/index.ts';
import {
  answersKeyframeRequests,
  choosePublishCodec,
  chooseSubscribeCodec,
  codecOf,
  parseOffer,
  parseSdpFrag,
  PublishSession,
  LocalPublish,
  LocalTap,
  restrictOffer,
  serverPeerConfig,
  SubscribeSession,
  SwitchingLayerView,
  ChannelTraffic,
  type ViewerLayer,
  type PeerSessionOptions,
  type TrackCodec,
} from './webrtc/index.ts';

import { channelKey, isPublisher, pubKey, type SessionHold, type SessionRecord } from './sfu-sessions.ts';
export type { JoinParams, LocalPublishHandle, LocalPublishParams, SessionCreated, SfuTestHooks, TapHandle, TapParams, TrackStat } from './sfu-types.ts';
import type { JoinParams, LocalPublishHandle, LocalPublishParams, SessionCreated, SfuTestHooks, TapHandle, TapParams, TrackStat } from './sfu-types.ts';
import type { VideoSize } from '../rtp-payload/index.ts';

/** The SFU: authorizes joins, negotiates werift peers, wires publishers to subscribers, keeps membership. */
export class Sfu {
  readonly membership: Membership;
  /** Packet and feedback totals of every session, for /metrics. */
  readonly traffic = new ChannelTraffic();
  readonly #sessions = new Map<string, SessionRecord>();
  readonly #publishers = new Map<string, string>();
  readonly #caps: CapCounter;

  constructor(
    private readonly cfg: ChannelConfig,
    private readonly clock: Clock,
    private readonly log: Logger,
    readonly apps: AppLookup,
    private readonly testHooks: SfuTestHooks = {},
  ) {
    this.membership = new Membership(() => clock.now());
    this.#caps = new CapCounter(cfg.sessionCaps);
  }

  app(appId: string): ChannelApp {
    const app = this.apps(appId);
    if (!app) throw new ChannelError('app_not_found', `no app with id "${appId}" on this server`);
    return app;
  }

  async publish(p: JoinParams): Promise<SessionCreated> {
    const app = this.app(p.appId);
    const grant = authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: true, nowSec: this.#nowSec() });
    const sections = parseOffer(p.offer);
    const codecs = new Map<MediaKind, TrackCodec>();
    const unaskable = new Set<MediaKind>();
    const simulcast = new Map<MediaKind, readonly string[]>();
    const offer = restrictOffer(p.offer, (s) => {
      if (s.kind !== 'audio' && s.kind !== 'video') return `media kind "${s.kind}" is not supported`;
      if (s.direction === 'recvonly' || s.direction === 'inactive') return `a WHIP offer must send media (the ${s.kind} section is ${s.direction})`;
      if (codecs.has(s.kind)) return `only one ${s.kind} track may be published per session`;
      const c = choosePublishCodec(s);
      if (!c) return s.kind === 'audio' ? 'audio must be Opus' : 'video must be VP8 or H.264 (packetization-mode=1)';
      codecs.set(s.kind, codecOf(c, s.kind));
      if (!answersKeyframeRequests(c)) unaskable.add(s.kind);
      if (s.kind === 'video' && s.rids.length > 1) simulcast.set(s.kind, s.rids);
      return c.pt;
    }, { red: true });
    if (sections.every((s) => s.kind === 'application')) throw new ChannelError('bad_sdp', 'the offer has no audio or video');
    const release = this.#acquire(app, p);
    let reservation;
    try {
      reservation = this.membership.reservePublish(app.appId, p.cname, p.uid, p.profile);
    } catch (e) {
      release();
      throw e;
    }
    const id = this.#newId();
    const session = new PublishSession({
      ...this.#peerOptions(id),
      codecs,
      unaskable,
      simulcast,
    });
    try {
      const { answer, tracks } = await session.negotiate(offer);
      const etag = this.#newId();
      this.#sessions.set(id, { kind: 'publish', app, cname: p.cname, uid: p.uid, etag, session, hold: this.#hold(id, release, grant, p.client) });
      this.#publishers.set(pubKey(app.appId, p.cname, p.uid), id);
      reservation.commit(tracks);
      this.log.info({ cname: p.cname, uid: p.uid, tracks }, 'channel: publisher joined');
      return { id, etag, answer };
    } catch (e) {
      release();
      reservation.cancel();
      await session.close();
      throw e;
    }
  }

  async subscribe(p: JoinParams & { readonly publisher: number; readonly layer?: ViewerLayer }): Promise<SessionCreated> {
    const app = this.app(p.appId);
    const grant = authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: false, nowSec: this.#nowSec() });
    const reservation = this.membership.reserveSubscribe(app.appId, p.cname, p.uid, p.publisher, p.profile);
    const pubId = this.#publishers.get(pubKey(app.appId, p.cname, p.publisher));
    const pub = pubId ? this.#sessions.get(pubId) : undefined;
    if (!isPublisher(pub)) {
      reservation.cancel();
      throw new ChannelError('publisher_not_found', `uid ${p.publisher} is not publishing in channel "${p.cname}"`);
    }
    let release: () => void;
    try {
      release = this.#acquire(app, p);
    } catch (e) {
      reservation.cancel();
      throw e;
    }
    // Every viewer of a simulcast track gets its own switching view: one that pinned no layer moves by its loss, and
    // one that pinned `high` (a recorder's WHEP link) only by the size it draws the video at (`fit`).
    const layer = p.layer ?? 'auto';
    const sources = pub.session.switchingSources(layer === 'low' ? 'low' : 'high');
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
      release();
      reservation.cancel();
      throw e;
    }
    const id = this.#newId();
    const session = new SubscribeSession({
      ...this.#peerOptions(id),
      sources,
      adaptsToLoss: layer === 'auto',
      publisherSending: (ms) => pub.session.sending(ms),
    });
    try {
      const answer = await session.negotiate(offer, kinds);
      if (pub.session.closed) throw new ChannelError('publisher_not_found', `uid ${p.publisher} stopped publishing`);
      const etag = this.#newId();
      this.#sessions.set(id, {
        kind: 'subscribe',
        app,
        cname: p.cname,
        uid: p.uid,
        publisher: p.publisher,
        etag,
        session,
        hold: this.#hold(id, release, grant, p.client),
      });
      reservation.commit();
      const sent = this.testHooks.onSubscribed?.({ id, answer, end: (reason, how) => this.end(id, reason, how) });
      return { id, etag, answer: sent ?? answer };
    } catch (e) {
      release();
      reservation.cancel();
      await session.close();
      throw e;
    }
  }

  /**
   * Publishes in-process (an ingest in the channel's own process): WHIP's token, uid and profile rules, then the
   * packets straight into the tracks' fan-outs (docs/ingest.md, "In-process publish"). Throws ChannelError.
   */
  publishLocal(p: LocalPublishParams): LocalPublishHandle {
    const app = this.app(p.appId);
    authorizeJoin({ app, token: p.token, cname: p.cname, uid: p.uid, publish: true, nowSec: this.#nowSec() });
    if (p.kinds.length === 0) throw new ChannelError('bad_sdp', 'the publish has no audio or video');
    const reservation = this.membership.reservePublish(app.appId, p.cname, p.uid, p.profile);
    const session = new LocalPublish({ kinds: p.kinds, clock: this.clock, traffic: this.traffic });
    const id = this.#newId();
    this.#sessions.set(id, { kind: 'local-publish', app, cname: p.cname, uid: p.uid, session });
    this.#publishers.set(pubKey(app.appId, p.cname, p.uid), id);
    const tracks = [...session.tracks.values()].map((t) => ({ kind: t.kind, codec: t.codec.mimeType }));
    reservation.commit(tracks);
    this.log.info({ cname: p.cname, uid: p.uid, tracks, inProcess: true }, 'channel: publisher joined');
    return {
      push: (kind, packet) => session.push(kind, packet),
      pushSenderReport: (kind, mapping) => session.pushSenderReport(kind, mapping),
      close: async () => {
        if (session.closed) return;
        await this.end(id, 'deleted');
      },
    };
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
    if (!isPublisher(pub) || pub.session.closed) {
      reservation.cancel();
      throw new ChannelError('publisher_not_found', `uid ${p.publisher} is not publishing in channel "${p.cname}"`);
    }
    const sources = pub.session.switchingSources(p.layer ?? 'high');
    const video = sources.get('video');
    const tap = new LocalTap({
      sources,
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
      fitVideo: (size) => {
        if (video instanceof SwitchingLayerView && video.fit(size)) this.traffic.tapLayerMoves[video.choice]++;
      },
      close: async () => {
        if (tap.closed) return;
        tap.close();
        await this.end(id, 'deleted');
      },
    };
  }

  /**
   * reeltime's extension (`POST /rtc/v1/sessions/{id}/fit`): the size a WHEP viewer draws its publisher's video at,
   * as an in-process tap tells it (`fitVideo`), so a mix recorder on another node takes the smallest simulcast layer
   * that covers its region too. Nothing moves for a pinned layer or a publisher without simulcast.
   */
  fit(id: string, size: VideoSize): void {
    const rec = this.#sessions.get(id);
    if (rec?.kind !== 'subscribe') throw new ChannelError('session_not_found', 'no such WHEP session (it ended, never existed, or publishes)');
    const moved = rec.session.fitVideo(size);
    if (moved) this.traffic.viewerFitMoves[moved]++;
  }

  /**
   * A PATCH of a WHIP/WHEP session (RFC 9725 section 4.3): with the session's ETag, trickled candidates (the node is
   * ICE-lite, so they are only hints); with `If-Match: *`, an ICE restart, answered with the node's new fragment and
   * a new ETag.
   */
  async patch(id: string, ifMatch: string | undefined, body: string): Promise<{ readonly etag: string; readonly frag: string } | undefined> {
    const rec = this.#sessions.get(id);
    if (!rec || rec.kind === 'tap' || rec.kind === 'local-publish') throw new ChannelError('session_not_found', 'no such session (it ended or never existed)');
    if (!ifMatch) throw new ChannelError('etag_required', 'PATCH needs an If-Match header with the session ETag');
    const frag = parseSdpFrag(body);
    if (ifMatch.trim() === '*') {
      const answer = await rec.session.restartIce(frag);
      rec.etag = this.#newId();
      this.log.info({ cname: rec.cname, uid: rec.uid, kind: rec.kind }, 'channel: ICE restarted');
      return { etag: rec.etag, frag: answer };
    }
    if (ifMatch.replace(/^W\//, '').replace(/"/g, '') !== rec.etag) {
      throw new ChannelError('etag_mismatch', 'If-Match does not match the session ETag');
    }
    for (const c of frag.candidates) {
      await rec.session.pc.addIceCandidate({ candidate: c.candidate, sdpMid: c.mid ?? '0' }).catch(() => undefined);
    }
    return undefined;
  }

  /** Ends a session (DELETE, timeout, failure); a publisher's end also ends everyone subscribed to it. */
  async end(id: string, reason: LeaveReason, how: { readonly silently?: boolean } = {}): Promise<boolean> {
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
    if (rec.kind !== 'local-publish') {
      rec.hold.release();
      if (rec.hold.expiry) this.clock.clearTimeout(rec.hold.expiry);
    }
    await rec.session.close(how);
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
      if (!isPublisher(r) || r.app.appId.toLowerCase() !== app.appId.toLowerCase()) continue;
      for (const t of r.session.tracks.values()) {
        out.push({ cname: r.cname, uid: r.uid, kind: t.kind, codec: t.codec.mimeType, packets: t.packets, bytes: t.bytes });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    for (const id of [...this.#sessions.keys()]) await this.end(id, 'shutdown');
  }

  /** Counts a new WHIP/WHEP session under the caps (before any negotiation); throws 429 `too_many_sessions`. */
  #acquire(app: ChannelApp, p: JoinParams): () => void {
    const r = this.#caps.acquire({ token: tokenKey(p.token), channel: channelKey(app.appId, p.cname), address: p.client.address });
    if (r.ok) return r.release;
    throw new ChannelError('too_many_sessions', sessionCapReason(r.cap, r.limit));
  }

  /**
   * A committed session's hold: the caps' release, and its end when the token's join privilege expires (reason
   * `token_expired`, as an Agora client that did not renew is dropped). A trusted client's (a recorder's) session
   * is not ended: its token was checked at join, as for an in-process tap (docs/channel.md, "Token expiry").
   */
  #hold(id: string, release: () => void, grant: JoinGrant, client: RequestClient): SessionHold {
    const expiry =
      grant.expiresAt === undefined || client.trusted
        ? undefined
        : this.clock.setTimeout(() => void this.end(id, 'token_expired'), grant.expiresAt * 1000 - this.clock.now());
    return { release, expiry };
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
      icePortOffset: this.cfg.icePortOffset,
      clock: this.clock,
      idleTimeoutMs: this.cfg.idleTimeoutMs,
      traffic: this.traffic,
      onEnded: (reason) => void this.end(id, reason),
    };
  }
}

const OPUS: TrackCodec = { mimeType: 'audio/opus', clockRate: 48000, channels: 2, fmtp: '' };
const VP8: TrackCodec = { mimeType: 'video/vp8', clockRate: 90000, channels: undefined, fmtp: '' };

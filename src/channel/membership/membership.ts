import { ChannelError } from '../errors.ts';
import type {
  ChannelEvent,
  ChannelEventKind,
  ChannelEventListener,
  ChannelSnapshot,
  LeaveReason,
  ParticipantRole,
  TrackInfo,
  Profile,
} from './types.ts';

interface Participant {
  readonly uid: number;
  joinedAt: number;
  /** False until its first session is committed (no events before that). */
  joined: boolean;
  publishing: 'none' | 'pending' | 'live';
  tracks: readonly TrackInfo[];
  /** publisher uid -> pending/live */
  subscriptions: Map<number, 'pending' | 'live'>;
}

interface Channel {
  readonly appId: string;
  readonly cname: string;
  readonly profile: Profile;
  readonly participants: Map<number, Participant>;
}

export interface Reservation {
  commit(tracks?: readonly TrackInfo[]): void;
  cancel(): void;
}

const key = (appId: string, cname: string) => `${appId.toLowerCase()}\u0000${cname}`;

/**
 * Who is in which channel, independent of WebRTC: admission rules (profile, uid uniqueness, publisher present)
 * and the ordered join/leave/publish/unpublish events. Admission is two-step (reserve, then commit once the
 * peer connection is negotiated) so concurrent requests for one uid cannot both pass.
 */
export class Membership {
  readonly #channels = new Map<string, Channel>();
  readonly #listeners = new Set<ChannelEventListener>();
  #seq = 0;

  constructor(private readonly now: () => number) {}

  subscribe(listener: ChannelEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  snapshot(appId: string, cname: string): ChannelSnapshot {
    const ch = this.#channels.get(key(appId, cname));
    const participants = ch
      ? [...ch.participants.values()]
          .filter((p) => p.joined)
          .map((p) => ({
            uid: p.uid,
            role: this.#role(ch, p),
            joinedAt: p.joinedAt,
            tracks: p.publishing === 'live' ? p.tracks : [],
            subscribedTo: [...p.subscriptions].filter(([, s]) => s === 'live').map(([u]) => u),
          }))
          .sort((a, b) => a.joinedAt - b.joinedAt || a.uid - b.uid)
      : [];
    return { appId, cname, profile: participants.length ? ch?.profile : undefined, participants };
  }

  channels(): readonly { appId: string; cname: string }[] {
    return [...this.#channels.values()].map((c) => ({ appId: c.appId, cname: c.cname }));
  }

  publishedTracks(appId: string, cname: string, uid: number): readonly TrackInfo[] | undefined {
    const p = this.#channels.get(key(appId, cname))?.participants.get(uid);
    return p?.publishing === 'live' ? p.tracks : undefined;
  }

  reservePublish(appId: string, cname: string, uid: number, profile: Profile): Reservation {
    const ch = this.#open(appId, cname, profile);
    const p = this.#participant(ch, uid);
    if (p.publishing !== 'none') {
      this.#dropIfEmpty(ch, p);
      throw new ChannelError('uid_taken', `uid ${uid} already publishes in channel "${cname}"`);
    }
    p.publishing = 'pending';
    let done = false;
    return {
      commit: (tracks = []) => {
        if (done) return;
        done = true;
        p.publishing = 'live';
        p.tracks = tracks;
        this.#markJoined(ch, p);
        this.#emit(ch, p, 'publish', tracks);
      },
      cancel: () => {
        if (done) return;
        done = true;
        p.publishing = 'none';
        this.#dropIfEmpty(ch, p);
      },
    };
  }

  reserveSubscribe(appId: string, cname: string, uid: number, publisher: number, profile: Profile): Reservation {
    if (uid === publisher) throw new ChannelError('bad_uid', 'a participant cannot subscribe to itself (uid equals publisher)');
    const existing = this.#channels.get(key(appId, cname));
    const pub = existing?.participants.get(publisher);
    if (!existing || pub?.publishing !== 'live') {
      throw new ChannelError('publisher_not_found', `uid ${publisher} is not publishing in channel "${cname}"`);
    }
    const ch = this.#open(appId, cname, profile);
    const p = this.#participant(ch, uid);
    if (p.subscriptions.has(publisher)) {
      throw new ChannelError('uid_taken', `uid ${uid} already subscribes to uid ${publisher} in channel "${cname}"`);
    }
    p.subscriptions.set(publisher, 'pending');
    let done = false;
    return {
      commit: () => {
        if (done) return;
        done = true;
        p.subscriptions.set(publisher, 'live');
        this.#markJoined(ch, p);
      },
      cancel: () => {
        if (done) return;
        done = true;
        p.subscriptions.delete(publisher);
        this.#dropIfEmpty(ch, p);
      },
    };
  }

  /** Ends uid's publishing (unpublish, then leave when nothing else keeps it in the channel). */
  endPublish(appId: string, cname: string, uid: number, reason: LeaveReason): void {
    const ch = this.#channels.get(key(appId, cname));
    const p = ch?.participants.get(uid);
    if (!ch || !p || p.publishing !== 'live') return;
    const tracks = p.tracks;
    // Events carry the role the participant had while publishing.
    const role = this.#role(ch, p);
    p.publishing = 'none';
    p.tracks = [];
    this.#emit(ch, p, 'unpublish', tracks, reason, role);
    this.#leaveIfIdle(ch, p, reason, role);
  }

  endSubscribe(appId: string, cname: string, uid: number, publisher: number, reason: LeaveReason): void {
    const ch = this.#channels.get(key(appId, cname));
    const p = ch?.participants.get(uid);
    if (!ch || !p || p.subscriptions.get(publisher) !== 'live') return;
    p.subscriptions.delete(publisher);
    this.#leaveIfIdle(ch, p, reason);
  }

  #role(ch: Channel, p: Participant): ParticipantRole {
    return ch.profile === 'communication' || p.publishing !== 'none' ? 'host' : 'audience';
  }

  #open(appId: string, cname: string, profile: Profile): Channel {
    const k = key(appId, cname);
    let ch = this.#channels.get(k);
    if (ch && ch.profile !== profile) {
      throw new ChannelError(
        'profile_mismatch',
        `channel "${cname}" uses the "${ch.profile}" profile (set by its first participant); this request asked for "${profile}"`,
      );
    }
    if (!ch) {
      ch = { appId, cname, profile, participants: new Map() };
      this.#channels.set(k, ch);
    }
    return ch;
  }

  #participant(ch: Channel, uid: number): Participant {
    let p = ch.participants.get(uid);
    if (!p) {
      p = { uid, joinedAt: this.now(), joined: false, publishing: 'none', tracks: [], subscriptions: new Map() };
      ch.participants.set(uid, p);
    }
    return p;
  }

  #markJoined(ch: Channel, p: Participant): void {
    if (p.joined) return;
    p.joined = true;
    p.joinedAt = this.now();
    this.#emit(ch, p, 'join', []);
  }

  #leaveIfIdle(ch: Channel, p: Participant, reason: LeaveReason, role?: ParticipantRole): void {
    if (p.publishing !== 'none' || p.subscriptions.size > 0) return;
    if (p.joined) this.#emit(ch, p, 'leave', [], reason, role);
    this.#dropIfEmpty(ch, p);
  }

  #dropIfEmpty(ch: Channel, p: Participant): void {
    if (p.publishing === 'none' && p.subscriptions.size === 0) ch.participants.delete(p.uid);
    if (ch.participants.size === 0) this.#channels.delete(key(ch.appId, ch.cname));
  }

  #emit(
    ch: Channel,
    p: Participant,
    kind: ChannelEventKind,
    tracks: readonly TrackInfo[],
    reason?: LeaveReason,
    role: ParticipantRole = this.#role(ch, p),
  ): void {
    const event: ChannelEvent = Object.freeze({
      kind,
      seq: ++this.#seq,
      appId: ch.appId,
      cname: ch.cname,
      uid: p.uid,
      role,
      time: this.now(),
      tracks,
      ...(reason ? { reason } : {}),
    });
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // A faulty listener must not break membership for everyone else.
      }
    }
  }
}

// The SFU's record of each session it holds (sfu.ts), and the keys it finds them by.
import type { TimerHandle } from '../clock/index.ts';
import type { ChannelApp } from './apps.ts';
import type { LeaveReason } from './membership/index.ts';
import type { LocalPublish, LocalTap, PublishSession, SubscribeSession } from './webrtc/index.ts';

/** What a WHIP or WHEP session holds beside its peer: its place under the caps, its token-expiry timer. */
export interface SessionHold {
  readonly release: () => void;
  readonly expiry: TimerHandle | undefined;
}

export type SessionRecord =
  | {
      readonly kind: 'publish';
      readonly app: ChannelApp;
      readonly cname: string;
      readonly uid: number;
      /** Changes with an ICE restart (RFC 9725: the restart's answer carries a new ETag). */
      etag: string;
      readonly session: PublishSession;
      readonly hold: SessionHold;
    }
  | {
      /** A publisher in this process (`publishLocal`): no peer, no caps, no token expiry (a trusted client's). */
      readonly kind: 'local-publish';
      readonly app: ChannelApp;
      readonly cname: string;
      readonly uid: number;
      readonly session: LocalPublish;
    }
  | {
      readonly kind: 'subscribe';
      readonly app: ChannelApp;
      readonly cname: string;
      readonly uid: number;
      readonly publisher: number;
      etag: string;
      readonly session: SubscribeSession;
      readonly hold: SessionHold;
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

export const pubKey = (appId: string, cname: string, uid: number) => `${appId.toLowerCase()}\u0000${cname}\u0000${uid}`;
export const channelKey = (appId: string, cname: string) => `${appId.toLowerCase()}\u0000${cname}`;

/** A publisher's record: a WHIP session or an in-process publish. */
export function isPublisher(r: SessionRecord | undefined): r is Extract<SessionRecord, { kind: 'publish' | 'local-publish' }> {
  return r?.kind === 'publish' || r?.kind === 'local-publish';
}

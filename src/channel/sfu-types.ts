// The SFU's public shapes (sfu.ts holds the class): what joins and taps pass in, what they get back, test hooks.
import type { RequestClient } from './client-address.ts';
import type { LeaveReason, MediaKind, Profile } from './membership/index.ts';
import type { VideoSize } from '../rtp-payload/index.ts';
import type { ClockMapping, LayerChoice, TapPacketListener, TapSenderReportListener } from './webrtc/index.ts';

/** An in-process subscription (`Sfu.tap`): the same join rules as WHEP, without a peer connection. */
export interface TapParams {
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token: string | undefined;
  readonly profile: Profile;
  readonly publisher: number;
  readonly kinds: readonly MediaKind[];
  /** A simulcast publisher's layer to take (default `high`). */
  readonly layer?: LayerChoice;
  readonly onPacket: TapPacketListener;
  readonly onSenderReport?: TapSenderReportListener;
  /** Called once when the channel ends the tap (publisher left, shutdown), not after `close()`. */
  readonly onEnded?: (reason: LeaveReason) => void;
}

export interface TapHandle {
  requestKeyframe(): void;
  /**
   * The size the subscriber draws the video at (a mix region): a simulcast publisher's smallest layer that covers it,
   * at most the layer asked for (`SwitchingLayerView.fit`). Nothing for other publishers.
   */
  fitVideo(size: VideoSize): void;
  close(): Promise<void>;
}

/** An in-process publish (`Sfu.publishLocal`): WHIP's token and membership rules, without a peer connection. */
export interface LocalPublishParams {
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token: string | undefined;
  readonly profile: Profile;
  /** The kinds it publishes (H.264 video, Opus audio: LOCAL_PUBLISH_CODECS). */
  readonly kinds: readonly MediaKind[];
}

/** Where an in-process publisher's packets go; `close` leaves the channel (reason `deleted`). */
export interface LocalPublishHandle {
  /** One RTP packet of `kind`. */
  push(kind: MediaKind, packet: Buffer): void;
  /** The source's clock mapping of `kind`, as its RTCP sender report. */
  pushSenderReport(kind: MediaKind, mapping: ClockMapping): void;
  close(): Promise<void>;
}

export interface JoinParams {
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly token: string | undefined;
  readonly profile: Profile;
  readonly offer: string;
  /** Who asked: counted per address unless trusted; a trusted client's session is not ended at token expiry. */
  readonly client: RequestClient;
}

export interface SessionCreated {
  readonly id: string;
  readonly etag: string;
  readonly answer: string;
}

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
   * password is wrong), or nothing to send it as is. `end` ends the session as this node would (ICE failure...);
   * with `silently`, without telling the peer (no DTLS close_notify), as when this node's process or network is gone.
   */
  readonly onSubscribed?: (session: {
    readonly id: string;
    readonly answer: string;
    end(reason: LeaveReason, how?: { readonly silently?: boolean }): Promise<boolean>;
  }) => string | void;
  /** `end(id, reason)` was called (before anything is ended). */
  readonly onEnd?: (id: string, reason: LeaveReason) => void;
}

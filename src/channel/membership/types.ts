/** The channel profile, set by its first participant. */
export type Profile = 'communication' | 'live';
export const PROFILES: readonly Profile[] = ['communication', 'live'];

export type MediaKind = 'audio' | 'video';

/** A published track as membership lists it. */
export interface TrackInfo {
  readonly kind: MediaKind;
  /** Lower-case mime type: "audio/opus", "video/vp8", "video/h264". */
  readonly codec: string;
}

/** In `live`, publishers are hosts and WHEP-only viewers audience; in `communication` everyone is a host. */
export type ParticipantRole = 'host' | 'audience';

export interface ParticipantSnapshot {
  readonly uid: number;
  readonly role: ParticipantRole;
  /** Unix milliseconds. */
  readonly joinedAt: number;
  readonly tracks: readonly TrackInfo[];
  /** Publishers this participant receives over WHEP. */
  readonly subscribedTo: readonly number[];
}

export interface ChannelSnapshot {
  readonly appId: string;
  readonly cname: string;
  /** Undefined while nobody is in the channel. */
  readonly profile: Profile | undefined;
  readonly participants: readonly ParticipantSnapshot[];
}

export type ChannelEventKind = 'join' | 'leave' | 'publish' | 'unpublish';

/** Why a participant left or stopped publishing. */
export type LeaveReason = 'deleted' | 'timeout' | 'connection_failed' | 'publisher_left' | 'shutdown' | 'token_expired';

export interface ChannelEvent {
  readonly kind: ChannelEventKind;
  /** Process-wide increasing number; SSE sends it as the event id. */
  readonly seq: number;
  readonly appId: string;
  readonly cname: string;
  readonly uid: number;
  readonly role: ParticipantRole;
  /** Unix milliseconds. */
  readonly time: number;
  /** join/leave: the participant's tracks at that moment; publish/unpublish: the tracks concerned. */
  readonly tracks: readonly TrackInfo[];
  readonly reason?: LeaveReason;
}

export type ChannelEventListener = (event: ChannelEvent) => void;

export { Membership, type Reservation } from './membership.ts';
export {
  PROFILES,
  type ChannelEvent,
  type ChannelEventKind,
  type ChannelEventListener,
  type ChannelSnapshot,
  type LeaveReason,
  type MediaKind,
  type ParticipantRole,
  type ParticipantSnapshot,
  type Profile,
  type TrackInfo,
} from './types.ts';

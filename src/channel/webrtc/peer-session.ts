import type { RTCPeerConnection } from 'werift';
import type { Clock } from '../../clock/index.ts';
import type { LeaveReason } from '../membership/index.ts';

/** What every server-side peer session (WHIP publisher, WHEP subscriber) is built from. */
export interface PeerSessionOptions {
  readonly peerConfig: ConstructorParameters<typeof RTCPeerConnection>[0];
  readonly iceAddresses: readonly string[];
  readonly clock: Clock;
  readonly idleTimeoutMs: number;
  /** Called once when the session ends on its own (timeout, connection failure). */
  readonly onEnded: (reason: LeaveReason) => void;
}

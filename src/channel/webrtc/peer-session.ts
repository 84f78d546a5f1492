import { RTCPeerConnection } from 'werift';
import type { Clock } from '../../clock/index.ts';
import type { LeaveReason } from '../membership/index.ts';
import { Liveness } from './liveness.ts';
import { sendCloseNotify } from './dtls-guard.ts';
import { answerIceRestart } from './ice-restart.ts';
import { answerOffer } from './negotiate.ts';
import { firstMid, iceRestartFrag, keepCandidates, offsetCandidatePorts, type SdpFrag } from './sdp.ts';
import type { ChannelTraffic } from './traffic.ts';

/** What every server-side peer session (WHIP publisher, WHEP subscriber) is built from. */
export interface PeerSessionOptions {
  readonly peerConfig: ConstructorParameters<typeof RTCPeerConnection>[0];
  readonly iceAddresses: readonly string[];
  /** Added to the bound port in announced candidates (channel.icePortOffset). */
  readonly icePortOffset: number;
  readonly clock: Clock;
  readonly idleTimeoutMs: number;
  /** The SFU's packet and feedback totals (metrics). */
  readonly traffic: ChannelTraffic;
  /** Called once when the session ends on its own (timeout, connection failure). */
  readonly onEnded: (reason: LeaveReason) => void;
}

/**
 * What publish and subscribe sessions share: the werift peer, the idle watch (docs/channel.md, "Dead peers"),
 * ending on ICE/DTLS failure, and closing once.
 */
export abstract class PeerSession {
  readonly pc: RTCPeerConnection;
  readonly #liveness: Liveness;
  #closed = false;

  constructor(protected readonly peer: PeerSessionOptions) {
    this.pc = new RTCPeerConnection(peer.peerConfig);
    this.#liveness = new Liveness(peer.clock, peer.idleTimeoutMs, () => this.idle());
    this.pc.connectionStateChange.subscribe((s) => {
      if (s === 'failed' || s === 'closed') this.end('connection_failed');
      if (s === 'connected') {
        // Connecting is the peer's first sign of life: the idle window starts again from here.
        this.#liveness.touch();
        this.connected();
      }
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the peer; it is told (DTLS close_notify) unless `silently` (a test standing in for a lost node). */
  async close(how: { readonly silently?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#liveness.stop();
    this.closing();
    // The peer learns at once that the session is over, not ~30 s later when ICE consent fails.
    if (!how.silently) await sendCloseNotify(this.pc);
    await this.pc.close().catch(() => undefined);
  }

  /** Applies the (already narrowed) offer; returns the full answer with candidates on the configured addresses. */
  protected async answer(offer: string): Promise<string> {
    const answer = await answerOffer(this.pc, offer, this.peer.iceAddresses, this.peer.icePortOffset);
    // The peer can do nothing before it has the answer: a slow negotiation does not count against it.
    this.#liveness.touch();
    return answer;
  }

  /**
   * An ICE restart the peer asked for (a WHIP/WHEP PATCH with `If-Match: *`): the node's new credentials and
   * candidates, as the answer's fragment. The session, its tracks and DTLS go on; only the path changes.
   */
  async restartIce(frag: SdpFrag): Promise<string> {
    const local = await answerIceRestart(this.pc, frag);
    this.#liveness.touch();
    const mid = firstMid(this.pc.localDescription?.sdp ?? '') ?? '0';
    return offsetCandidatePorts(keepCandidates(iceRestartFrag(local, mid), this.peer.iceAddresses), this.peer.icePortOffset);
  }

  /** Traffic from the peer (RTP, RTCP) postpones the idle timeout. */
  protected touch(): void {
    this.#liveness.touch();
  }

  /** The idle timeout passed; return false to excuse the silence and keep watching. */
  protected idle(): boolean | void {
    this.end('timeout');
  }

  /** ICE and DTLS are up. */
  protected connected(): void {}

  /** Release what the subclass holds (timers, sinks); the peer closes after. */
  protected closing(): void {}

  protected end(reason: LeaveReason): void {
    if (this.#closed) return;
    void this.close();
    this.peer.onEnded(reason);
  }
}

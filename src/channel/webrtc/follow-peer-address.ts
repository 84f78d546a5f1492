import { type Connection, parseMessage, type RTCPeerConnection, type StunProtocol } from 'werift';

const following = new WeakSet<Connection>();

/**
 * An ICE-lite node follows its peer to a new address (a NAT that rebound, a path that moved) when the peer's checks
 * with USE-CANDIDATE come from there, as mediasoup does: werift keeps the first nominated pair for good, so the
 * node went on sending to the old address while the peer's media still arrived from the new one (its NACKs,
 * keyframe requests and congestion feedback lost). werift answers checks without verifying their
 * MESSAGE-INTEGRITY, so this verifies it (the node's current ICE password) before it moves anything: only the peer
 * can move its path, not whoever learnt the username. Chromium marks every check on its selected pair with
 * USE-CANDIDATE, werift's clients their consent checks. Call once the peer has gathered (its sockets exist).
 */
export function followPeerAddress(pc: RTCPeerConnection): void {
  for (const t of pc.iceTransports) {
    // The transport's connection is typed by an interface without the pairs; it is werift's Connection.
    const conn = t.connection as unknown as Connection;
    if (!conn.iceLite || following.has(conn)) continue;
    following.add(conn);
    // Its sockets (one per host candidate; an ICE restart keeps them), a private field of werift's Connection.
    const protocols = (conn as unknown as { readonly protocols: readonly StunProtocol[] }).protocols;
    for (const protocol of protocols) {
      // Subscribed after werift's own handler, which has made (and marked) the pair by the time this runs.
      protocol.onRequestReceived.subscribe((message, addr, data) => {
        const current = conn.nominated;
        if (current === undefined || !message.attributesKeys.includes('USE-CANDIDATE')) return;
        const at = (p: typeof current) => p.protocol === protocol && p.remoteCandidate.host === addr[0] && p.remoteCandidate.port === addr[1];
        if (at(current)) return;
        const username = String(message.getAttributeValue('USERNAME') ?? '');
        if (username.split(':')[0] !== conn.localUsername) return;
        if (parseMessage(data, Buffer.from(conn.localPassword, 'utf8')) === undefined) return;
        const pair = conn.checkList.find(at);
        if (pair?.nominated) conn.nominated = pair;
      });
    }
  }
}

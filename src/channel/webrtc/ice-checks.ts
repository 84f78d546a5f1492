import { classes, type Connection, parseMessage, type RTCPeerConnection, type StunProtocol } from 'werift';

const guarded = new WeakSet<Connection>();
const verified = new WeakSet<StunProtocol>();

/** Where werift's socket hands each datagram (a private method of StunProtocol). */
interface DatagramEntry {
  datagramReceived(data: Buffer, addr: readonly [string, number]): void;
}

/** This agent's ICE password for a check's USERNAME (`<our ufrag>:<peer ufrag>`), this generation or an earlier one. */
function passwordFor(conn: Connection, username: string): string | undefined {
  const ufrag = username.split(':')[0] ?? '';
  if (ufrag === conn.localUsername) return conn.localPassword;
  return conn.userHistory[ufrag];
}

/** Whether a datagram is a STUN request whose MESSAGE-INTEGRITY does not verify (or that has none). */
function forgedRequest(conn: Connection, data: Buffer): boolean {
  // STUN starts with two zero bits; DTLS (20-63) and RTP/RTCP (128-191) are not looked at.
  if (data.length < 20 || data[0]! > 1) return false;
  const message = parseMessage(data);
  if (message === undefined || message.messageClass !== classes.REQUEST) return false;
  const password = passwordFor(conn, String(message.getAttributeValue('USERNAME') ?? ''));
  return password === undefined || parseMessage(data, Buffer.from(password, 'utf8')) === undefined;
}

/**
 * Drops every STUN request whose MESSAGE-INTEGRITY does not verify with this agent's ICE password, unanswered (RFC
 * 8445 section 7.3: a 401 is optional), before werift sees it, on every socket of every transport of `pc`: lite or
 * full, server or client. werift answers and acts on checks without verifying them, so anyone who learnt the
 * usernames (they travel in clear in every check) could nominate a pair on the node (ICE lite) or, on a client
 * (a publisher, a recorder's or an ingress's WHEP peer), flip its role with a larger ICE-CONTROLLING tie-breaker
 * and then nominate a pair of their own. Call once the peer has gathered (its sockets exist) and before a check can
 * come; again after an ICE restart gathered (sockets already guarded are left as they are).
 */
export function verifyIceChecks(pc: RTCPeerConnection): void {
  for (const t of pc.iceTransports) {
    // The transport's connection is typed by an interface without the pairs; it is werift's Connection.
    const conn = t.connection as unknown as Connection;
    for (const protocol of protocolsOf(conn)) {
      // werift's socket hands each datagram to `this.datagramReceived`: checks that fail stop here. A TURN
      // allocation's protocol has none (what reaches it comes through the TURN server, from addresses it permitted).
      const entry = protocol as unknown as Partial<DatagramEntry>;
      if (verified.has(protocol) || typeof entry.datagramReceived !== 'function') continue;
      verified.add(protocol);
      const received = entry.datagramReceived.bind(protocol);
      entry.datagramReceived = (data, addr) => {
        if (forgedRequest(conn, data)) return;
        received(data, addr);
      };
    }
  }
}

/** Its sockets (one per host candidate; an ICE restart keeps them), a private field of werift's Connection. */
const protocolsOf = (conn: Connection): readonly StunProtocol[] => (conn as unknown as { readonly protocols: readonly StunProtocol[] }).protocols;

/**
 * What the node's ICE-lite agent does with a peer's checks, beyond werift:
 * - **Verifies them** (verifyIceChecks).
 * - **Follows the peer to a new address** (a NAT that rebound, a path that moved) on a check with USE-CANDIDATE from
 *   there, as mediasoup does: werift keeps the first nominated pair for good, so the node went on sending to the
 *   old address while the peer's media still arrived from the new one (its NACKs, keyframe requests and congestion
 *   feedback lost). Chromium marks every check on its selected pair with USE-CANDIDATE, werift's clients their
 *   consent checks.
 * Call once the peer has gathered (its sockets exist) and before the answer goes out (no check can come earlier).
 */
export function guardIceLiteChecks(pc: RTCPeerConnection): void {
  verifyIceChecks(pc);
  for (const t of pc.iceTransports) {
    const conn = t.connection as unknown as Connection;
    if (!conn.iceLite || guarded.has(conn)) continue;
    guarded.add(conn);
    for (const protocol of protocolsOf(conn)) {
      // Subscribed after werift's own handler, which has made (and marked) the pair by the time this runs.
      protocol.onRequestReceived.subscribe((message, addr) => {
        const current = conn.nominated;
        if (current === undefined || !message.attributesKeys.includes('USE-CANDIDATE')) return;
        const at = (p: typeof current) => p.protocol === protocol && p.remoteCandidate.host === addr[0] && p.remoteCandidate.port === addr[1];
        if (at(current)) return;
        const pair = conn.checkList.find(at);
        if (pair?.nominated) conn.nominated = pair;
      });
    }
  }
}

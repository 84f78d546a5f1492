import { Candidate, RTCIceParameters, type RTCIceTransport, type RTCPeerConnection } from 'werift';
import { ChannelError } from '../errors.ts';
import { verifyIceChecks } from './ice-checks.ts';
import type { IceGeneration, SdpFrag } from './sdp.ts';

/**
 * ICE restarts on werift peers, done on the ICE transport itself rather than by a new offer and answer: WHIP and WHEP
 * restart with an sdpfrag PATCH (RFC 9725 section 4.3.2), not a new description, and werift's renegotiation path
 * does not start the checks again while DTLS is up (`connect()` returns early once DTLS is connected). The DTLS
 * session, SRTP keys and RTP streams go on unchanged; only the candidate pair is chosen again.
 */

/** The peer's one ICE transport (reeltime's peers bundle everything on one). */
function bundledTransport(pc: RTCPeerConnection): RTCIceTransport {
  const t = pc.iceTransports[0];
  if (t === undefined || t.state === 'closed') throw new ChannelError('negotiation_failed', 'the peer has no open ICE transport');
  return t;
}

function localGeneration(t: RTCIceTransport): IceGeneration {
  const c = t.connection;
  return {
    lite: c.iceLite === true,
    ufrag: c.localUsername,
    pwd: c.localPassword,
    candidates: c.localCandidates.map((x) => `candidate:${x.toSdp()}`),
  };
}

function addRemoteCandidates(t: RTCIceTransport, frag: SdpFrag): void {
  for (const { candidate } of frag.candidates) {
    try {
      t.connection.addRemoteCandidate(Candidate.fromSdp(candidate.replace(/^candidate:/, '')));
    } catch {
      // A candidate werift cannot read is skipped, as in an offer; the checks find the peer's address anyway.
    }
  }
}

/** The new generation the other side asked for must have new credentials, or it is not a restart. */
function checkNewCredentials(t: RTCIceTransport, remote: SdpFrag): { ufrag: string; pwd: string } {
  if (!remote.ufrag || !remote.pwd) throw new ChannelError('bad_sdp', 'an ICE restart needs a=ice-ufrag and a=ice-pwd in the fragment');
  if (remote.ufrag.length < 4 || remote.pwd.length < 22) {
    throw new ChannelError('bad_sdp', 'a=ice-ufrag must have at least 4 characters and a=ice-pwd at least 22 (RFC 8839)');
  }
  if (remote.ufrag === t.connection.remoteUsername && remote.pwd === t.connection.remotePassword) {
    throw new ChannelError('bad_sdp', 'an ICE restart needs a new a=ice-ufrag and a=ice-pwd; these are the current ones');
  }
  return { ufrag: remote.ufrag, pwd: remote.pwd };
}

/**
 * The answering side (the node): takes the peer's new credentials and candidates, starts its own new generation and
 * waits for the peer's checks (an ICE-lite node only answers them). Returns the node's new generation for the answer.
 */
export async function answerIceRestart(pc: RTCPeerConnection, remote: SdpFrag): Promise<IceGeneration> {
  const t = bundledTransport(pc);
  const creds = checkNewCredentials(t, remote);
  // New remote credentials make werift restart the transport: new local ones, no pair, consent timers stopped.
  t.setRemoteParams(new RTCIceParameters({ usernameFragment: creds.ufrag, password: creds.pwd, iceLite: false }));
  await t.gather();
  addRemoteCandidates(t, remote);
  // Checks that came before this are kept by werift as early checks and handled here. A peer that never completes
  // them is ended by the session's idle watch, as a peer that never connected.
  void t.start().catch(() => undefined);
  return localGeneration(t);
}

/** The offering side (a client): a new local generation to send in the PATCH. */
export async function offerIceRestart(pc: RTCPeerConnection): Promise<IceGeneration> {
  const t = bundledTransport(pc);
  t.restart();
  await t.gather();
  // Sockets a restart gathered anew answer only checks with the new password, as the first ones do.
  verifyIceChecks(pc);
  return localGeneration(t);
}

/** The offering side, with the server's answer: checks run and a new pair is nominated (resolves when connected). */
export async function completeIceRestart(pc: RTCPeerConnection, remote: SdpFrag): Promise<void> {
  const t = bundledTransport(pc);
  if (!remote.ufrag || !remote.pwd) throw new Error('the ICE restart answer has no a=ice-ufrag or a=ice-pwd');
  t.setRemoteParams(new RTCIceParameters({ usernameFragment: remote.ufrag, password: remote.pwd, iceLite: remote.lite }));
  addRemoteCandidates(t, remote);
  await t.start();
}

import { RTCPeerConnection, useAudioLevelIndication, useFIR, useH264, useNACK, useOPUS, usePLI, useSdesMid, useSdesRTPStreamId, useTransportWideCC, useVP8 } from 'werift';
import { allowedCandidates } from './candidates.ts';
import {
  completeIceRestart,
  firstMid,
  gatheringComplete,
  guardDtlsHandshake,
  iceRestartFrag,
  loopbackClientConfig,
  offerIceRestart,
  onRemoteDtlsClose,
  parseSdpFrag,
  rtxCodec,
  verifyIceChecks,
} from '../webrtc/index.ts';
import { sharedLoopbackStun } from './loopback-stun.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import { deleteSession, fitSession, patchIceRestart, postOffer } from './whip-http.ts';

export type VideoCodecName = 'vp8' | 'h264';

/**
 * A werift client peer that only ever talks over loopback. Video offers RTX (RFC 4588) unless `rtx` is false:
 * a publisher then answers NACKs on the RTX stream, a viewer gets the node's retransmissions on it. Opus offers
 * `nack`, so a publisher's lost audio is NACKed and resent as well; video offers `ccm fir` beside PLI.
 */
export async function loopbackPeer(
  opts: {
    stunUrl?: string;
    videoCodecs?: readonly VideoCodecName[];
    rtx?: boolean;
    keyframeRequests?: boolean;
    audioNack?: boolean;
    simulcast?: boolean;
    /** A viewer that reports each packet's arrival (transport-cc): the node then reads its link's queue from them. */
    transportCc?: boolean;
  } = {},
): Promise<RTCPeerConnection> {
  const stunUrl = opts.stunUrl ?? (await sharedLoopbackStun()).url;
  // A sender that cannot make a keyframe on request (`keyframeRequests: false`) offers neither PLI nor FIR.
  const fb = () => (opts.keyframeRequests === false ? [useNACK()] : [useNACK(), usePLI(), useFIR()]);
  const video = (opts.videoCodecs ?? ['vp8', 'h264']).flatMap((c) => [
    c === 'vp8' ? useVP8({ rtcpFeedback: fb() }) : useH264({ rtcpFeedback: fb() }),
    ...(opts.rtx === false ? [] : [rtxCodec()]),
  ]);
  // Opus offers NACK too (unless `audioNack` is false): the node then NACKs lost audio and werift's sender answers
  // from its packet history.
  const audio = useOPUS({ rtcpFeedback: opts.audioNack === false ? [] : [useNACK()] });
  // A simulcast sender names each packet's encoding (rtp-stream-id, RFC 8852).
  const headerExtensions = opts.simulcast
    ? { headerExtensions: { audio: [useSdesMid()], video: [useSdesMid(), useSdesRTPStreamId()] } }
    : opts.transportCc
      ? { headerExtensions: { audio: [useSdesMid(), useAudioLevelIndication(), useTransportWideCC()], video: [useSdesMid(), useTransportWideCC()] } }
      : {};
  return new RTCPeerConnection(loopbackClientConfig(stunUrl, { codecs: { audio: [audio], video }, ...headerExtensions }));
}

/** Creates the offer and waits for gathering, so the POSTed offer carries its candidates (no trickle needed). */
async function completeOffer(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createOffer());
  guardDtlsHandshake(pc);
  // The server ended the session (its close_notify): closed at once, not ~30 s later when ICE consent fails.
  onRemoteDtlsClose(pc, () => void pc.close().catch(() => undefined));
  await gatheringComplete(pc);
  // Before the offer goes out: a check that does not verify with this peer's ICE password is dropped (ice-checks.ts).
  verifyIceChecks(pc);
  return pc.localDescription!.sdp;
}

/** A WHIP or WHEP session the server accepted. */
export interface ClientSession {
  readonly location: string;
  /**
   * Restarts ICE through a PATCH (RFC 9725 section 4.3.2), as after a change of network: new credentials both ways,
   * a new candidate pair; the session, its tracks and DTLS go on. Resolves when the new pair is up.
   */
  restartIce(): Promise<void>;
  /** WHEP: the size the viewer draws the video at (`fitSession`). */
  fitVideo(size: { readonly width: number; readonly height: number }): Promise<void>;
  /** DELETEs the session and closes the peer (once). */
  close(): Promise<void>;
}

/**
 * Offers `pc` to a WHIP/WHEP endpoint and applies the answer; the peer is closed if that fails. With
 * `candidatePolicy`, the answer's ICE candidates are kept only where it allows their address (allowedCandidates).
 */
export async function openSession(
  pc: RTCPeerConnection,
  endpoint: string,
  token: string | undefined,
  policy?: OutboundPolicy,
  candidatePolicy?: OutboundPolicy,
): Promise<ClientSession> {
  let location: string;
  try {
    const offer = await completeOffer(pc);
    const res = await postOffer(endpoint, offer, token, policy);
    let answer = res.answer;
    if (candidatePolicy) {
      const allowed = await allowedCandidates(answer, candidatePolicy, new URL(endpoint));
      if (allowed.dropped > 0 && !allowed.sdp.includes('a=candidate:')) {
        await deleteSession(res.location, policy).catch(() => undefined);
        throw new Error(`the answer's ICE candidates (${allowed.dropped}) are all refused by the outbound guard`);
      }
      answer = allowed.sdp;
    }
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
    location = res.location;
  } catch (e) {
    await pc.close().catch(() => undefined);
    throw e;
  }
  let closed = false;
  return {
    location,
    async restartIce() {
      const local = await offerIceRestart(pc);
      const mid = firstMid(pc.localDescription?.sdp ?? '') ?? '0';
      const answer = await patchIceRestart(location, iceRestartFrag(local, mid), policy);
      await completeIceRestart(pc, parseSdpFrag(answer.frag));
    },
    fitVideo: (size) => fitSession(location, size, policy),
    async close() {
      if (closed) return;
      closed = true;
      await deleteSession(location, policy);
      await pc.close().catch(() => undefined);
    },
  };
}

/**
 * Resolves when the peer is connected; rejects on failure or after `timeoutMs`. A caller that never awaits it (a
 * link closed before it connected) must not get an unhandled rejection, which would end the process: the promise
 * is marked handled here and still rejects for whoever awaits it.
 */
export function connected(pc: RTCPeerConnection, timeoutMs = 20000): Promise<void> {
  if (pc.connectionState === 'connected') return Promise.resolve();
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      unSubscribe();
      reject(new Error(`peer did not connect within ${timeoutMs} ms (state ${pc.connectionState})`));
    }, timeoutMs);
    const { unSubscribe } = pc.connectionStateChange.subscribe((s) => {
      if (s === 'connected' || s === 'failed' || s === 'closed') {
        clearTimeout(timer);
        unSubscribe();
        if (s === 'connected') resolve();
        else reject(new Error(`peer connection ${s}`));
      }
    });
  });
  ready.catch(() => undefined);
  return ready;
}

import { RtcpSrPacket, type RTCPeerConnection, type RtpPacket } from 'werift';
import { systemClock } from '../../clock/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { ChannelTraffic, extmapId, ReceiveFeedback } from '../webrtc/index.ts';
import { AUDIO_LEVEL_URI } from '../../rtp-payload/index.ts';
import { connected, loopbackPeer, openSession, type VideoCodecName } from './peer.ts';

export interface WhepSubscribeOptions {
  /** Full WHEP endpoint URL, query included (uid, publisher). */
  readonly endpoint: string;
  readonly token?: string | undefined;
  readonly kinds?: readonly MediaKind[];
  readonly videoCodecs?: readonly VideoCodecName[];
  readonly stunUrl?: string;
  /** Keep this many received packets per kind in `packets` (default 2000; 0 keeps none). */
  readonly keep?: number;
  /** The outbound URL guard's rule for the endpoint and its redirects (a recorder passes its peer rule). */
  readonly policy?: OutboundPolicy;
  /** A source a user named: the answer's ICE candidates are kept only where this rule allows their address. */
  readonly candidatePolicy?: OutboundPolicy;
}

export interface WhepSubscriber {
  readonly pc: RTCPeerConnection;
  readonly location: string;
  /** The negotiated codec per kind, e.g. video → "vp8". */
  readonly codecs: ReadonlyMap<MediaKind, string>;
  /** The id the node's answer gave the audio level extension (RFC 6464), when it offered it. */
  readonly audioLevelExtensionId: number | undefined;
  /** Received packets, oldest first (up to `keep`). */
  readonly packets: { readonly audio: RtpPacket[]; readonly video: RtpPacket[] };
  readonly counts: { audio: number; video: number };
  /**
   * Its loss repair towards the node (`nack.out`, `unrepaired`, `duplicates`, `pli.out`, `rtx.in`): the same
   * counters as the node's, seen from this receiver.
   */
  readonly repair: ChannelTraffic;
  readonly ready: Promise<void>;
  onRtp(cb: (kind: MediaKind, packet: RtpPacket) => void): void;
  /** The SFU's RTCP sender reports per kind: the publisher's NTP time ↔ this subscriber's RTP timestamps. */
  onSenderReport(cb: (kind: MediaKind, report: RtcpSrPacket) => void): void;
  /** Asks the sender for a video keyframe (PLI), once video has come. */
  requestKeyframe(): void;
  /** Resolves when `pred` holds (checked on each packet), rejects after timeoutMs. */
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Restarts ICE through a WHEP PATCH (a new network path); the session goes on. */
  restartIce(): Promise<void>;
  /** Tells the node the size the video is drawn at: a simulcast publisher's smallest covering layer (reeltime's extension). */
  fitVideo(size: { readonly width: number; readonly height: number }): Promise<void>;
  close(): Promise<void>;
}

/** Receives one publisher's tracks over WHEP with a werift peer (tests, recorder, benchmarks). */
export async function whepSubscribe(opts: WhepSubscribeOptions): Promise<WhepSubscriber> {
  // transport-cc: the node numbers what it sends and this client reports the arrivals (ReceiveFeedback), as a browser does.
  const pc = await loopbackPeer({
    transportCc: true,
    ...(opts.stunUrl ? { stunUrl: opts.stunUrl } : {}),
    ...(opts.videoCodecs ? { videoCodecs: opts.videoCodecs } : {}),
  });
  const keep = opts.keep ?? 2000;
  const packets = { audio: [] as RtpPacket[], video: [] as RtpPacket[] };
  const counts = { audio: 0, video: 0 };
  const listeners: ((kind: MediaKind, p: RtpPacket) => void)[] = [];
  const waiters = new Set<() => void>();
  const reportListeners: ((kind: MediaKind, r: RtcpSrPacket) => void)[] = [];
  // NACKs as the node sends them to its publishers (werift's own receiver gives a gap up after 50 ms, less than one
  // round trip through a lossy link), and a PLI for a video packet given up.
  const repair = new ChannelTraffic();
  const ssrcs = new Map<MediaKind, number>();
  const feedback = new ReceiveFeedback(systemClock, repair, (kind) => {
    const ssrc = ssrcs.get(kind);
    if (ssrc !== undefined) feedback.sendKeyframeRequest(kind, ssrc, 'pli');
  });
  for (const kind of opts.kinds ?? ['audio', 'video']) {
    const t = pc.addTransceiver(kind, { direction: 'recvonly' });
    t.receiver.onRtcp.subscribe((p) => {
      if (p instanceof RtcpSrPacket) for (const l of reportListeners) l(kind, p);
    });
  }
  pc.onTrack.subscribe((track) => {
    const kind = track.kind as MediaKind;
    track.onReceiveRtp.subscribe((p) => {
      ssrcs.set(kind, p.header.ssrc);
      // A second copy of a packet (a repair sent twice) is not passed on.
      if (!feedback.observe(kind, p)) return;
      counts[kind]++;
      if (packets[kind].length < keep) packets[kind].push(p);
      for (const l of listeners) l(kind, p);
      for (const w of [...waiters]) w();
    });
  });
  const session = await openSession(pc, opts.endpoint, opts.token, opts.policy, opts.candidatePolicy);
  // Negotiated now, and no media yet (ICE and DTLS come after the answer).
  for (const t of pc.getTransceivers()) feedback.attach(t);
  const codecs = new Map<MediaKind, string>();
  for (const t of pc.getTransceivers()) {
    const c = t.codecs[0];
    if (c) codecs.set(t.kind as MediaKind, c.name.toLowerCase());
  }
  return {
    pc,
    location: session.location,
    codecs,
    audioLevelExtensionId: extmapId(pc.remoteDescription?.sdp ?? '', 'audio', AUDIO_LEVEL_URI),
    packets,
    counts,
    repair,
    ready: connected(pc),
    onRtp: (cb) => void listeners.push(cb),
    onSenderReport: (cb) => void reportListeners.push(cb),
    requestKeyframe() {
      const ssrc = ssrcs.get('video');
      if (ssrc !== undefined) feedback.sendKeyframeRequest('video', ssrc, 'pli');
    },
    waitFor(pred, timeoutMs = 20000, what = 'condition') {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (audio ${counts.audio}, video ${counts.video})`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    restartIce: session.restartIce,
    fitVideo: session.fitVideo,
    close: async () => {
      feedback.close();
      await session.close();
    },
  };
}

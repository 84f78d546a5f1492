import { MediaStream, MediaStreamTrack, type RTCPeerConnection } from 'werift';
import type { MediaKind } from '../membership/index.ts';
import { onFir, SenderReportWriter, simulcastEncodings, type ClockMapping } from '../webrtc/index.ts';
import { connected, loopbackPeer, openSession, type VideoCodecName } from './peer.ts';

export interface WhipPublishOptions {
  /** Full WHIP endpoint URL, query included. */
  readonly endpoint: string;
  readonly token?: string | undefined;
  readonly audio?: boolean;
  readonly video?: VideoCodecName | false;
  readonly stunUrl?: string;
  /**
   * False for a sender that relays a stream it cannot ask for keyframes (an ingest): it offers no PLI or FIR, and
   * the channel answers its viewers from a GOP cache instead.
   */
  readonly keyframeRequests?: boolean;
  /** False: Opus offers no NACK, so lost audio is not resent (a sender that repairs it with FEC only). */
  readonly audioNack?: boolean;
  /**
   * Video as two simulcast encodings (RFC 8853, rids `h` and `l`): the full picture goes into `video`, one at half
   * its size into `lowVideo` (docs/channel.md, "Simulcast").
   */
  readonly simulcast?: boolean;
}

/** Where RTP packets of one stream are written. */
export interface RtpWriter {
  writeRtp(rtp: Buffer): void;
}

export interface WhipPublisher {
  readonly pc: RTCPeerConnection;
  readonly location: string;
  /** Local tracks: write RTP packets (from ffmpeg or elsewhere) into these. */
  readonly audio: MediaStreamTrack | undefined;
  readonly video: MediaStreamTrack | undefined;
  /** With `simulcast`: the half-size encoding (its own SSRC; no sender reports, no retransmissions). */
  readonly lowVideo: RtpWriter | undefined;
  /** Resolves once ICE and DTLS are up. */
  readonly ready: Promise<void>;
  /**
   * Sends an RTCP sender report for one kind: this NTP time is the capture time of that RTP timestamp (the
   * timestamps written into the track, which go out unchanged). werift's own reports are off: they are dated by
   * when a packet was sent, with a broken NTP fraction (docs/channel.md, "Sender reports").
   */
  sendSenderReport(kind: MediaKind, mapping: ClockMapping): void;
  /** Called when the server asks for a keyframe (PLI/FIR from the SFU). */
  onKeyframeRequest(cb: () => void): void;
  /** Restarts ICE through a WHIP PATCH (a new network path); the session and its uid go on. */
  restartIce(): Promise<void>;
  /** DELETEs the session and closes the peer. */
  close(): Promise<void>;
}

const SIMULCAST_RIDS = [
  { rid: 'h', direction: 'send' as const },
  { rid: 'l', direction: 'send' as const },
];

/** Publishes local werift tracks over WHIP. */
export async function whipPublish(opts: WhipPublishOptions): Promise<WhipPublisher> {
  const videoCodec = opts.video === undefined ? 'vp8' : opts.video;
  const pc = await loopbackPeer({
    ...(opts.stunUrl ? { stunUrl: opts.stunUrl } : {}),
    ...(videoCodec ? { videoCodecs: [videoCodec] } : {}),
    ...(opts.keyframeRequests === false ? { keyframeRequests: false } : {}),
    ...(opts.audioNack === false ? { audioNack: false } : {}),
    ...(opts.simulcast ? { simulcast: true } : {}),
  });
  const stream = new MediaStream();
  const audio = opts.audio === false ? undefined : new MediaStreamTrack({ kind: 'audio' });
  const video = videoCodec ? new MediaStreamTrack({ kind: 'video' }) : undefined;
  const senders = [audio, video]
    .filter((t): t is MediaStreamTrack => t !== undefined)
    .map((t) => pc.addTransceiver(t, { direction: 'sendonly', streams: [stream], ...(t.kind === 'video' && opts.simulcast ? { simulcast: SIMULCAST_RIDS } : {}) }).sender);
  const reports = new Map<MediaKind, SenderReportWriter>();
  for (const s of senders) {
    const writer = new SenderReportWriter(s);
    reports.set(s.kind as MediaKind, writer);
    s.track?.onReceiveRtp.subscribe((p) => writer.countSent(p.payload.length));
  }
  const session = await openSession(pc, opts.endpoint, opts.token);
  const videoSender = senders.find((s) => s.kind === 'video');
  let lowVideo: RtpWriter | undefined;
  if (opts.simulcast && videoSender) {
    // werift sends one stream per sender: the full picture is the sender's own, named by its rid; the half-size one
    // goes out on the same transport with an SSRC of its own and the same header extensions.
    lowVideo = { writeRtp: simulcastEncodings(pc, videoSender, 'h', 'l') };
  }
  return {
    pc,
    location: session.location,
    audio,
    video,
    lowVideo,
    ready: connected(pc),
    sendSenderReport: (kind, mapping) => reports.get(kind)?.send(mapping),
    onKeyframeRequest(cb) {
      for (const s of senders) {
        if (s.kind !== 'video') continue;
        s.onPictureLossIndication.subscribe(cb);
        onFir(s, cb);
      }
    },
    restartIce: session.restartIce,
    close: session.close,
  };
}

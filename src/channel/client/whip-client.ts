import { MediaStream, MediaStreamTrack, type RTCPeerConnection } from 'werift';
import { completeOffer, connected, loopbackPeer, type VideoCodecName } from './peer.ts';
import { deleteSession, postOffer } from './whip-http.ts';

export interface WhipPublishOptions {
  /** Full WHIP endpoint URL, query included. */
  readonly endpoint: string;
  readonly token?: string | undefined;
  readonly audio?: boolean;
  readonly video?: VideoCodecName | false;
  readonly stunUrl?: string;
}

export interface WhipPublisher {
  readonly pc: RTCPeerConnection;
  readonly location: string;
  /** Local tracks: write RTP packets (from ffmpeg or elsewhere) into these. */
  readonly audio: MediaStreamTrack | undefined;
  readonly video: MediaStreamTrack | undefined;
  /** Resolves once ICE and DTLS are up. */
  readonly ready: Promise<void>;
  /** Called when the server asks for a keyframe (PLI/FIR from the SFU). */
  onKeyframeRequest(cb: () => void): void;
  /** DELETEs the session and closes the peer. */
  close(): Promise<void>;
}

/** Publishes local werift tracks over WHIP. */
export async function whipPublish(opts: WhipPublishOptions): Promise<WhipPublisher> {
  const videoCodec = opts.video === undefined ? 'vp8' : opts.video;
  const pc = await loopbackPeer({
    ...(opts.stunUrl ? { stunUrl: opts.stunUrl } : {}),
    ...(videoCodec ? { videoCodecs: [videoCodec] } : {}),
  });
  const stream = new MediaStream();
  const audio = opts.audio === false ? undefined : new MediaStreamTrack({ kind: 'audio' });
  const video = videoCodec ? new MediaStreamTrack({ kind: 'video' }) : undefined;
  const senders = [audio, video]
    .filter((t): t is MediaStreamTrack => t !== undefined)
    .map((t) => pc.addTransceiver(t, { direction: 'sendonly', streams: [stream] }).sender);
  try {
    const offer = await completeOffer(pc);
    const res = await postOffer(opts.endpoint, offer, opts.token);
    await pc.setRemoteDescription({ type: 'answer', sdp: res.answer });
    let closed = false;
    return {
      pc,
      location: res.location,
      audio,
      video,
      ready: connected(pc),
      onKeyframeRequest(cb) {
        for (const s of senders) if (s.kind === 'video') s.onPictureLossIndication.subscribe(cb);
      },
      async close() {
        if (closed) return;
        closed = true;
        await deleteSession(res.location);
        await pc.close().catch(() => undefined);
      },
    };
  } catch (e) {
    await pc.close().catch(() => undefined);
    throw e;
  }
}

/**
 * Test publisher for the live mix: ffmpeg encodes a solid colour (VP8 or H.264) or a sine (Opus) in real time and
 * sends RTP and its RTCP sender reports to one loopback socket; packets and reports are handed to the callbacks.
 */
import { createSocket } from 'node:dgram';
import { RtcpPacketConverter, RtcpSrPacket } from 'werift';
import { FfmpegProcess } from '../../../ffmpeg.ts';
import type { RtpTrackDescription } from '../../../sdp.ts';
import { isRtcp } from '../rtp-header.ts';
import { type SenderReport, senderReportOf } from '../sender-clock.ts';

export interface RtpSourceOptions {
  readonly kind: 'vp8' | 'h264' | 'opus';
  readonly color?: string;
  readonly toneHz?: number;
  readonly width?: number;
  readonly height?: number;
  readonly fps?: number;
  /** Send this file's video (VP8 in WebM) as is, looped, instead of encoding a colour. */
  readonly file?: string;
}

export interface RtpSource {
  readonly track: RtpTrackDescription;
  stop(): Promise<void>;
}

export async function startRtpSource(
  o: RtpSourceOptions,
  onPacket: (packet: Buffer) => void,
  onSenderReport: (report: SenderReport) => void = () => undefined,
): Promise<RtpSource> {
  const socket = createSocket('udp4');
  socket.on('message', (m) => {
    if (!isRtcp(m)) return onPacket(m);
    for (const p of RtcpPacketConverter.deSerialize(m)) if (p instanceof RtcpSrPacket) onSenderReport(senderReportOf(p));
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  const port = socket.address().port;
  const fps = o.fps ?? 15;
  const size = `${o.width ?? 320}x${o.height ?? 180}`;
  let args: string[];
  let track: RtpTrackDescription;
  if (o.file) {
    args = ['-stream_loop', '-1', '-re', '-i', o.file, '-an', '-c:v', 'copy', '-payload_type', '96'];
    track = { codec: 'VP8', payloadType: 96, clockRate: 90000 };
  } else if (o.kind === 'opus') {
    args = ['-re', '-f', 'lavfi', '-i', `sine=f=${o.toneHz ?? 440}:r=48000`, '-c:a', 'libopus', '-b:a', '32k', '-ac', '2', '-payload_type', '111'];
    track = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };
  } else {
    const input = ['-re', '-f', 'lavfi', '-i', `color=c=${o.color ?? 'red'}:s=${size}:r=${fps}`];
    args =
      o.kind === 'vp8'
        ? [...input, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-g', String(fps * 2), '-payload_type', '96']
        : [...input, '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', String(fps * 2), '-b:v', '200k', '-payload_type', '102'];
    track =
      o.kind === 'vp8'
        ? { codec: 'VP8', payloadType: 96, clockRate: 90000 }
        : { codec: 'H264', payloadType: 102, clockRate: 90000, fmtp: 'packetization-mode=1;profile-level-id=42e01f' };
  }
  const ffmpeg = new FfmpegProcess(['-loglevel', 'error', ...args, '-f', 'rtp', `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`]);
  return {
    track,
    async stop() {
      await ffmpeg.stop(2000, 200);
      socket.close();
    },
  };
}

/**
 * Test source of real RTP: ffmpeg encodes a solid colour (VP8 or H.264) or a sine tone (Opus) in real time
 * and sends RTP to a loopback socket; every packet is handed to `onPacket`. Used to exercise the media graph
 * without a WebRTC channel.
 */
import { createSocket } from 'node:dgram';
import { FfmpegProcess } from '../ffmpeg.ts';
import type { RtpTrackDescription } from '../sdp.ts';

export interface GeneratorOptions {
  readonly kind: 'vp8' | 'h264' | 'opus';
  readonly color?: string;
  readonly toneHz?: number;
  readonly width?: number;
  readonly height?: number;
  readonly fps?: number;
  /** Keyframe interval in frames. */
  readonly gop?: number;
}

export interface RtpGenerator {
  readonly track: RtpTrackDescription;
  stop(): Promise<void>;
}

export async function startRtpGenerator(opts: GeneratorOptions, onPacket: (p: Buffer) => void): Promise<RtpGenerator> {
  const sock = createSocket('udp4');
  sock.on('message', (m) => onPacket(m));
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  const port = sock.address().port;
  const fps = opts.fps ?? 15;
  const size = `${opts.width ?? 640}x${opts.height ?? 360}`;
  const gop = String(opts.gop ?? fps * 2);
  let input: string[];
  let enc: string[];
  let track: RtpTrackDescription;
  if (opts.kind === 'opus') {
    input = ['-f', 'lavfi', '-i', `sine=f=${opts.toneHz ?? 440}:r=48000`];
    enc = ['-c:a', 'libopus', '-b:a', '48k', '-ac', '2', '-payload_type', '111'];
    track = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };
  } else if (opts.kind === 'vp8') {
    input = ['-f', 'lavfi', '-i', `color=c=${opts.color ?? 'red'}:s=${size}:r=${fps}`];
    enc = ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '300k', '-g', gop, '-payload_type', '96'];
    track = { codec: 'VP8', payloadType: 96, clockRate: 90000 };
  } else {
    input = ['-f', 'lavfi', '-i', `color=c=${opts.color ?? 'red'}:s=${size}:r=${fps}`];
    enc = ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', gop, '-b:v', '300k', '-payload_type', '102'];
    track = { codec: 'H264', payloadType: 102, clockRate: 90000, fmtp: 'packetization-mode=1;profile-level-id=42e01f' };
  }
  const ff = new FfmpegProcess(['-loglevel', 'error', '-re', ...input, ...enc, '-f', 'rtp', `rtp://127.0.0.1:${port}?pkt_size=1200`]);
  return {
    track,
    async stop() {
      await ff.stop(2000);
      sock.close();
    },
  };
}

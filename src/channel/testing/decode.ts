import { dePacketizeRtpPackets, type RtpPacket } from 'werift';
import { spawnChild } from '../../process/index.ts';

/** The packets of the first complete frame (same timestamp, in sequence order, through the marker bit). */
export function firstFramePackets(packets: readonly RtpPacket[]): RtpPacket[] {
  const first = packets[0];
  if (!first) return [];
  const frame = packets
    .filter((p) => p.header.timestamp === first.header.timestamp)
    .sort((a, b) => ((a.header.sequenceNumber - first.header.sequenceNumber) & 0xffff) - ((b.header.sequenceNumber - first.header.sequenceNumber) & 0xffff));
  return frame.some((p) => p.header.marker) ? frame : [];
}

function ivf(frame: Buffer): Buffer {
  const head = Buffer.alloc(32);
  head.write('DKIF', 0);
  head.writeUInt16LE(0, 4);
  head.writeUInt16LE(32, 6);
  head.write('VP80', 8);
  head.writeUInt16LE(0, 12); // width/height are read from the bitstream
  head.writeUInt16LE(0, 14);
  head.writeUInt32LE(90000, 16);
  head.writeUInt32LE(1, 20);
  head.writeUInt32LE(1, 24);
  const fh = Buffer.alloc(12);
  fh.writeUInt32LE(frame.length, 0);
  return Buffer.concat([head, fh, frame]);
}

/** A decodable file (IVF for VP8, Annex B for H.264) holding the frame carried by `packets`. */
export function frameFile(codec: 'vp8' | 'h264', packets: RtpPacket[]): { data: Buffer; format: string; isKeyframe: boolean } {
  const f = dePacketizeRtpPackets(codec === 'vp8' ? 'VP8' : 'MPEG4/ISO/AVC', packets);
  return codec === 'vp8' ? { data: ivf(f.data), format: 'ivf', isKeyframe: f.isKeyframe } : { data: f.data, format: 'h264', isKeyframe: f.isKeyframe };
}

/** Decodes the first frame with ffmpeg, scaled to 16x16, and returns the RGB of pixel (12, 12) (away from the counter). */
export async function decodePixel(data: Buffer, format: string): Promise<[number, number, number]> {
  const ff = spawnChild('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', format, '-i', 'pipe:0', '-frames:v', '1', '-vf', 'scale=16:16', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  ff.stdout.on('data', (d: Buffer) => out.push(d));
  ff.stderr.on('data', (d: Buffer) => (err += d.toString()));
  ff.stdin.on('error', () => undefined);
  ff.stdin.end(data);
  const code = await new Promise<number | null>((resolve) => ff.once('close', resolve));
  const rgb = Buffer.concat(out);
  if (code !== 0 || rgb.length < 16 * 16 * 3) throw new Error(`ffmpeg could not decode the frame (exit ${code}): ${err.trim()}`);
  const i = (12 * 16 + 12) * 3;
  return [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
}

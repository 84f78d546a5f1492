import type { ChildProcess } from 'node:child_process';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';

/**
 * ffmpeg arguments taking a publisher's FLV stream on stdin and sending RTP to two loopback ports: the H.264 as it
 * came (no transcode; Annex B with SPS/PPS before each keyframe, so a subscriber joining mid-stream can decode from
 * the next one) and the AAC transcoded to Opus, 48 kHz stereo, as WebRTC needs. Both outputs are stamped from the
 * FLV timestamps, one timeline for both kinds (docs/ingest.md, "Timing").
 */
export function ingestFfmpegArgs(videoPort: number, audioPort: number, input: IngestInput = { kind: 'flv' }): string[] {
  const rtp = (port: number) => `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`;
  const source =
    input.kind === 'flv'
      ? ['-f', 'flv', '-i', 'pipe:0']
      : ['-f', 'mpegts', '-i', `srt://${input.host.includes(':') ? `[${input.host}]` : input.host}:${input.port}?mode=listener&passphrase=${encodeURIComponent(input.passphrase)}&pbkeylen=16`];
  return [
    '-hide_banner', '-loglevel', 'error',
    '-fflags', '+nobuffer', ...source,
    // H.264 in MPEG-TS is Annex B already; from FLV it is length-prefixed, and the filter also puts SPS/PPS in band.
    '-map', '0:v:0', '-c:v', 'copy', ...(input.kind === 'flv' ? ['-bsf:v', 'h264_mp4toannexb'] : []), '-payload_type', '96', '-f', 'rtp', rtp(videoPort),
    '-map', '0:a:0', '-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', '-ac', '2', '-application', 'lowdelay',
    '-payload_type', '111', '-f', 'rtp', rtp(audioPort),
  ];
}

/**
 * Where the ingest ffmpeg reads: an FLV stream on stdin (the RTMP listener writes it), or an SRT listener of its own
 * (MPEG-TS; one caller, which must know the passphrase: SRT's AES key, a wrong one is refused in the handshake).
 */
export type IngestInput =
  | { readonly kind: 'flv' }
  | { readonly kind: 'srt'; readonly host: string; readonly port: number; readonly passphrase: string };

/** Starts the ingest ffmpeg (ingestFfmpegArgs); it dies with this process. */
export function spawnIngestFfmpeg(videoPort: number, audioPort: number, input: IngestInput = { kind: 'flv' }): ChildProcess {
  return spawnChild(FFMPEG_BIN, ingestFfmpegArgs(videoPort, audioPort, input), { stdio: [input.kind === 'flv' ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
}

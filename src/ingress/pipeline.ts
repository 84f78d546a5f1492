import type { ChildProcess } from 'node:child_process';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';

/**
 * ffmpeg arguments taking a publisher's FLV stream on stdin and sending RTP to two loopback ports: the H.264 as it
 * came (no transcode; Annex B with SPS/PPS before each keyframe, so a subscriber joining mid-stream can decode from
 * the next one) and the AAC transcoded to Opus, 48 kHz stereo, as WebRTC needs. Both outputs are stamped from the
 * FLV timestamps, one timeline for both kinds (docs/ingest.md, "Timing").
 */
export function ingestFfmpegArgs(videoPort: number, audioPort: number): string[] {
  const rtp = (port: number) => `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`;
  return [
    '-hide_banner', '-loglevel', 'error',
    '-fflags', '+nobuffer', '-f', 'flv', '-i', 'pipe:0',
    '-map', '0:v:0', '-c:v', 'copy', '-bsf:v', 'h264_mp4toannexb', '-payload_type', '96', '-f', 'rtp', rtp(videoPort),
    '-map', '0:a:0', '-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', '-ac', '2', '-application', 'lowdelay',
    '-payload_type', '111', '-f', 'rtp', rtp(audioPort),
  ];
}

/** Starts the ingest ffmpeg: FLV in on stdin, RTP out (ingestFfmpegArgs); it dies with this process. */
export function spawnIngestFfmpeg(videoPort: number, audioPort: number): ChildProcess {
  return spawnChild(FFMPEG_BIN, ingestFfmpegArgs(videoPort, audioPort), { stdio: ['pipe', 'ignore', 'pipe'] });
}

/** Test helpers of the ingress module. */
import { processTable } from '../process/index.ts';

export interface EncoderSource {
  readonly seconds?: number;
  /** The picture's colour (a lavfi colour name) and the tone's frequency: what the recording is checked for. */
  readonly color?: string;
  readonly toneHz?: number;
  /** `flv` for RTMP, `mpegts` for SRT. */
  readonly format?: 'flv' | 'mpegts';
  /** Frames between keyframes (default 30: 2 s at 15 fps). */
  readonly keyframeEvery?: number;
  /** What the encoder sends (default both): an encoder without a microphone sends video only. */
  readonly kinds?: readonly ('audio' | 'video')[];
}

/** What OBS sends with its usual settings (x264 without B-frames, a keyframe every 2 s, AAC 48 kHz stereo). */
export const obsLike = (url: string, source: EncoderSource = {}) => {
  const kinds = source.kinds ?? ['audio', 'video'];
  const video = kinds.includes('video');
  const audio = kinds.includes('audio');
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    ...(video ? ['-re', '-f', 'lavfi', '-i', `color=c=${source.color ?? 'blue'}:s=640x360:r=15,format=yuv420p`] : []),
    ...(audio ? ['-re', '-f', 'lavfi', '-i', `sine=frequency=${source.toneHz ?? 880}:sample_rate=48000`] : []),
    ...(source.seconds ? ['-t', String(source.seconds)] : []),
    ...(video ? ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-bf', '0', '-g', String(source.keyframeEvery ?? 30), '-b:v', '800k'] : []),
    ...(audio ? ['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'] : []),
    '-f', source.format ?? 'flv', url,
  ];
};

/**
 * The command lines of running ingest ffmpegs (those sending RTP to loopback ports, `rtcpport=`) that hold `secret`:
 * none should, since a source's URL reaches ffmpeg on its stdin (pipeline.ts, `sourceScript`). Linux only (/proc).
 */
export function ingestCommandLinesHolding(secret: string): string[] {
  return processTable()
    .map((p) => p.argv.join(' '))
    .filter((line) => line.includes('rtcpport=') && (line.includes(secret) || line.includes(encodeURIComponent(secret))));
}

/**
 * How the channel says uid's publish joined (its `channel: publisher joined` log line, JSON): `in-process` straight
 * into the SFU, `whip` over a WHIP session, undefined before it joined.
 */
export function joinedHow(logLines: readonly string[], uid: number): 'in-process' | 'whip' | undefined {
  for (const line of logLines) {
    const l = JSON.parse(line) as { msg?: string; uid?: number; inProcess?: boolean };
    if (l.msg === 'channel: publisher joined' && l.uid === uid) return l.inProcess ? 'in-process' : 'whip';
  }
  return undefined;
}

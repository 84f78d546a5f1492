/**
 * The CDN pusher's ffmpeg command (docs/recording-web.md, "CDN push"), as a pure function: it joins a live
 * MPEG-TS stream on a pipe, copies it without re-encoding into FLV and publishes that to the RTMP(S) target.
 */

/** The fd the pusher reads the MPEG-TS stream from. */
export const PUSH_INPUT_FD = 3;
/** The fd of its `-progress` key=value blocks. */
export const PUSH_PROGRESS_FD = 4;
/** Bytes of one MPEG-TS packet: the stream is handed on in whole packets only. */
export const TS_PACKET_BYTES = 188;

export function isRtmpUrl(url: string): boolean {
  return /^rtmps?:\/\/[^\s]+$/i.test(url);
}

export function pusherArgs(rtmpUrl: string): string[] {
  if (!isRtmpUrl(rtmpUrl)) throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
  return [
    '-loglevel', 'warning',
    // The pusher joins a running stream: the probe only needs one keyframe with its SPS/PPS (keyframes are at
    // most 2 s apart) and one AAC frame. ffmpeg's default (5 s of analysis) delays the first byte by seconds.
    '-analyzeduration', '2500000', '-probesize', '4000000',
    '-f', 'mpegts', '-i', `pipe:${PUSH_INPUT_FD}`,
    '-map', '0:v?', '-map', '0:a?',
    // Stream copy: no decoding, no encoding; packets before the first keyframe are skipped (no -copyinkf).
    '-c', 'copy',
    '-progress', `pipe:${PUSH_PROGRESS_FD}`, '-stats_period', '1',
    // A live FLV has no duration or size to rewrite at the end.
    '-f', 'flv', '-flvflags', 'no_duration_filesize',
    rtmpUrl,
  ];
}

/** `total_size` of a `-progress` block: bytes written to the CDN so far (0 until the connection is up). */
export function progressTotalSize(line: string): number | undefined {
  const m = /^total_size=(\d+)\s*$/.exec(line);
  return m ? Number(m[1]) : undefined;
}

/**
 * The CDN pusher's ffmpeg command (docs/recording-web.md, "CDN push"), as a pure function: it joins a live
 * MPEG-TS stream on a pipe and copies it without re-encoding into an FLV stream on another pipe, which reeltime's own
 * RTMP client publishes (ffmpeg never sees the target: a stream key on its command line would be readable by every
 * local user).
 */

/** The fd the pusher reads the MPEG-TS stream from. */
export const PUSH_INPUT_FD = 3;
/** The fd it writes the FLV stream to. */
export const PUSH_OUTPUT_FD = 4;
/** Bytes of one MPEG-TS packet: the stream is handed on in whole packets only. */
export const TS_PACKET_BYTES = 188;

export function isRtmpUrl(url: string): boolean {
  return /^rtmps?:\/\/[^\s]+$/i.test(url);
}

export function pusherArgs(): string[] {
  return [
    '-loglevel', 'warning',
    // The pusher joins a running stream: the probe needs one keyframe with its SPS/PPS (keyframes are at most 2 s
    // apart) and one AAC frame. Its bound is for a kind that comes late: at 2.5 s, a capture whose sound began
    // seconds after its picture (a loaded 2-core host) failed the FLV header ("Error initializing output stream")
    // after connecting, and the push was reported lost; 5 s (ffmpeg's default) covers that, at up to 2.5 s more
    // before the first byte reaches the CDN (10 s made a video-only push's start 7 s later).
    '-analyzeduration', '5000000', '-probesize', '8000000',
    '-f', 'mpegts', '-i', `pipe:${PUSH_INPUT_FD}`,
    '-map', '0:v?', '-map', '0:a?',
    // Stream copy: no decoding, no encoding; packets before the first keyframe are skipped (no -copyinkf).
    '-c', 'copy',
    // A live FLV has no duration or size to rewrite at the end; each tag goes out as it is muxed.
    '-f', 'flv', '-flvflags', 'no_duration_filesize', '-flush_packets', '1',
    `pipe:${PUSH_OUTPUT_FD}`,
  ];
}

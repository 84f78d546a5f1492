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

/**
 * `tcUrl`: the RTMP `tcUrl` to announce when `rtmpUrl` names the server by a pinned address instead of its host
 * name (the CDN routes by the name in it).
 */
export function pusherArgs(rtmpUrl: string, tcUrl?: string): string[] {
  if (!isRtmpUrl(rtmpUrl)) throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
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
    '-progress', `pipe:${PUSH_PROGRESS_FD}`, '-stats_period', '1',
    // A live FLV has no duration or size to rewrite at the end.
    '-f', 'flv', '-flvflags', 'no_duration_filesize',
    ...(tcUrl !== undefined ? ['-rtmp_tcurl', tcUrl] : []),
    rtmpUrl,
  ];
}

/** `total_size` of a `-progress` block: bytes written to the CDN so far (0 until the connection is up). */
export function progressTotalSize(line: string): number | undefined {
  const m = /^total_size=(\d+)\s*$/.exec(line);
  return m ? Number(m[1]) : undefined;
}

/** What ffmpeg is handed for one push: the URL to connect to and, when its host was pinned, the original tcUrl. */
export interface PushTarget {
  readonly url: string;
  readonly tcUrl?: string;
}

/**
 * The push target with its host replaced by the address the outbound guard approved (`address`), so ffmpeg
 * connects where the guard looked, whatever a later DNS answer says; the `tcUrl` keeps the host name (up to the
 * stream key) for the CDN. rtmps keeps its name: TLS needs it for SNI, and ffmpeg has no way to pin the address
 * under a name; its host was still checked just before (a short window remains; docs/recording-web.md).
 */
export function pinnedPushTarget(rtmpUrl: string, address: string): PushTarget {
  const u = new URL(rtmpUrl);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (u.protocol !== 'rtmp:' || host === address) return { url: rtmpUrl };
  const userinfo = u.username || u.password ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  const port = u.port ? `:${u.port}` : '';
  const url = `${u.protocol}//${userinfo}${address.includes(':') ? `[${address}]` : address}${port}${u.pathname}${u.search}`;
  const path = u.pathname.slice(0, Math.max(u.pathname.lastIndexOf('/'), 0));
  return { url, tcUrl: `${u.protocol}//${u.host}${path}` };
}

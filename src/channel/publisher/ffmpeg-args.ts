export const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

export interface SyntheticMedia {
  readonly color: string;
  readonly toneHz: number;
  readonly codec: 'vp8' | 'h264';
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /**
   * The tone sounds only in the first or second half of every `periodSec` (from the publisher's start), silence in
   * the other: two publishers with opposite halves take turns speaking (active-speaker tests). Absent: always on.
   */
  readonly toneTurns?: { readonly periodSec: number; readonly half: 'first' | 'second' } | undefined;
  /** Draw the frame number as a binary code along the bottom edge (FRAME_CODE): latency benchmarks read it back. */
  readonly frameCode?: boolean | undefined;
  /**
   * Opus with in-band FEC (libopus in VoIP mode, SILK or hybrid, FEC for 10 % loss); the tone is a melody then
   * (toneSource). Absent: CELT in libopus's low-delay mode.
   */
  readonly opusFec?: boolean | undefined;
}

/**
 * The frame code: a black band along the bottom `bandFraction` of the picture split into `bits` equal blocks, block
 * k (from the left) white when bit k of the frame number (mod 2^bits) is set. Read it at each block's centre.
 */
export const FRAME_CODE = { bits: 10, bandFraction: 1 / 6 } as const;

/**
 * The frame number a decoded picture carries in its band (8-bit luma plane, `width` × `height`, at `offset` in
 * `luma`), mod 2^bits; undefined when a block is neither dark nor light (no code there, or a picture in between).
 */
export function readFrameCode(luma: Uint8Array, width: number, height: number, offset = 0): number | undefined {
  const y = Math.floor(height * (1 - FRAME_CODE.bandFraction / 2));
  let code = 0;
  for (let k = 0; k < FRAME_CODE.bits; k++) {
    const x = Math.floor((width * (k + 0.5)) / FRAME_CODE.bits);
    const value = luma[offset + y * width + x]!;
    if (value > 60 && value < 180) return undefined;
    if (value >= 180) code |= 1 << k;
  }
  return code;
}

/** The lavfi filters that draw the frame code (a leading comma; empty without `frameCode`). */
export function frameCodeFilters(m: Pick<SyntheticMedia, 'width' | 'height' | 'frameCode'>): string {
  if (!m.frameCode) return '';
  const band = Math.max(2, Math.round(m.height * FRAME_CODE.bandFraction));
  const y = m.height - band;
  const block = m.width / FRAME_CODE.bits;
  const boxes = [`drawbox=x=0:y=${y}:w=${m.width}:h=${band}:color=black:t=fill`];
  for (let k = 0; k < FRAME_CODE.bits; k++) {
    const x = Math.round(k * block);
    const w = Math.round((k + 1) * block) - x;
    boxes.push(`drawbox=x=${x}:y=${y}:w=${w}:h=${band}:color=white:t=fill:enable='mod(floor(n/${2 ** k}),2)'`);
  }
  return `,${boxes.join(',')}`;
}

/** ffmpeg colour syntax we accept: a name ("red") or hex ("#ff0000", "0xff0000"). */
export const COLOR = /^([a-zA-Z]{3,20}|(#|0x)[0-9a-fA-F]{6})$/;

/** A volume filter that keeps the tone in one half of each period (single quotes keep the commas in the expression). */
function toneGate(m: SyntheticMedia): string {
  if (!m.toneTurns) return '';
  const { periodSec: p, half } = m.toneTurns;
  const on = half === 'first' ? `lt(mod(t,${p}),${p / 2})` : `gte(mod(t,${p}),${p / 2})`;
  return `,volume='if(${on},1,0)':eval=frame`;
}

/**
 * The sound: a steady sine at `toneHz`; with `opusFec` a melody instead (its pitch steps through toneHz × 1, 1.125,
 * 1.25, 1.375 every 100 ms): libopus's voice detector calls a steady tone inactive after a moment and then codes no
 * FEC for it, as it does for a speaker's silence.
 */
function toneSource(m: SyntheticMedia): string {
  if (m.opusFec) return `aevalsrc='0.25*sin(2*PI*t*${m.toneHz}*(1+0.125*mod(floor(t*10)\\,4)))':s=48000`;
  return `sine=frequency=${m.toneHz}:sample_rate=48000${m.toneTurns ? ':samples_per_frame=960' : ''}`;
}

/**
 * How ffmpeg renders: `realtime` paces its inputs (`-re`) for a live publisher; otherwise it encodes as fast as it
 * can, `seconds` of media, for a replay publisher's cache (publisher/replay-cache.ts). The encoders and their
 * settings are the same either way, so both kinds of publisher send the same media.
 */
export type Rendering =
  | { readonly realtime: true }
  /** `readRate`: at most this many times real time (ffmpeg's `-readrate`). */
  | { readonly realtime: false; readonly seconds: number; readonly readRate?: number };

/**
 * ffmpeg arguments for a solid colour with a frame counter and a sine tone, sent as RTP to two loopback ports
 * (RTCP goes to the same port and is dropped by the reader). Keyframes every 2 s, no B-frames. With `lowVideoPort`,
 * the same picture at half its size too, with the same encoder at a quarter of the bit rate (a simulcast sender's
 * second encoding).
 */
export function syntheticFfmpegArgs(m: SyntheticMedia, videoPort: number, audioPort: number, rendering: Rendering = { realtime: true }, lowVideoPort?: number): string[] {
  const gop = String(Math.max(1, Math.round(m.fps * 2)));
  const color = m.color.startsWith('#') ? `0x${m.color.slice(1)}` : m.color;
  const text = `drawtext=fontfile=${FONT}:text='%{n}':fontsize=${Math.round(m.height / 8)}:fontcolor=white:x=16:y=16`;
  // VP8 at libvpx's fastest real-time speed, blocks that hardly change left uncoded (static-thresh): the picture is a
  // solid colour with a counter, and this encode is most of the suite's replay captures (32 s of 640×360: 1.7 s of CPU
  // at cpu-used 8, 0.7 s with these settings).
  const encoder = (bitrate: string) =>
    m.codec === 'vp8'
      ? ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '16', '-static-thresh', '1000', '-b:v', bitrate, '-auto-alt-ref', '0', '-error-resilient', '1']
      : ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-bf', '0', '-b:v', bitrate];
  const video = encoder('800k');
  const rtp = (port: number) => `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`;
  // An input option: each lavfi source ends after `seconds` (the sources themselves are endless).
  const pace = rendering.realtime
    ? ['-re']
    : [...(rendering.readRate ? ['-readrate', String(rendering.readRate)] : []), '-t', String(rendering.seconds)];
  return [
    '-hide_banner',
    '-loglevel', 'error',
    '-nostdin',
    ...pace, '-f', 'lavfi', '-i', `color=c=${color}:s=${m.width}x${m.height}:r=${m.fps},${text}${frameCodeFilters(m)}`,
    ...pace, '-f', 'lavfi', '-i', `${toneSource(m)}${toneGate(m)}`,
    '-map', '0:v', ...video, '-g', gop, '-keyint_min', gop, '-pix_fmt', 'yuv420p',
    '-payload_type', '96', '-f', 'rtp', rtp(videoPort),
    ...(lowVideoPort === undefined
      ? []
      : ['-map', '0:v', '-vf', 'scale=trunc(iw/4)*2:trunc(ih/4)*2', ...encoder('200k'), '-g', gop, '-keyint_min', gop, '-pix_fmt', 'yuv420p', '-payload_type', '96', '-f', 'rtp', rtp(lowVideoPort)]),
    '-map', '1:a', '-c:a', 'libopus', '-b:a', '48k', '-ar', '48000', '-ac', '2',
    ...(m.opusFec ? ['-application', 'voip', '-fec:a', '1', '-packet_loss:a', '10'] : ['-application', 'lowdelay']),
    '-payload_type', '111', '-f', 'rtp', rtp(audioPort),
  ];
}

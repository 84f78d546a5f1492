/**
 * The one ffmpeg command of a capture run, as a pure function of the plan (docs/recording-web.md, "Encoder").
 * The display (x11grab) keeps its wall-clock timestamps (`-copyts`); the sound arrives as raw samples on a pipe
 * from the capture's monitor reader and is stamped `audioStartMs + n / rate` (`-itsoffset`), so its timestamps
 * are continuous from the first packet. Both are shifted by the run's origin so the numbers stay small; a
 * segment's start in UTC is then origin + its start time. Slices
 * are MPEG-TS files cut by the segment muxer, each closed slice reported as a CSV line on fd 3; with a CDN push,
 * a second branch of a `tee` hands the same encoded stream to the pusher process on fd 4 and may fail without
 * stopping the slices.
 */
import type { ResolvedCaptureOptions } from './options.ts';

export interface EncoderPlan {
  readonly options: ResolvedCaptureOptions;
  /** X display to grab, e.g. `:3`. */
  readonly display: string;
  /** UTC ms at which the first sample written to AUDIO_IN_FD was captured (MonitorReader's clock). */
  readonly audioStartMs: number;
  /** UTC ms that this run's media time 0 stands for. */
  readonly originMs: number;
  /** Run number (0 first, +1 after each pause or push restart); names the segment files. */
  readonly run: number;
  /** The run also writes its stream as MPEG-TS on PUSH_STREAM_FD for the CDN pusher. */
  readonly push?: boolean;
}

/** The fd on which ffmpeg writes one CSV line per closed segment. */
export const SEGMENT_LIST_FD = 3;
/** The fd on which a run with a push writes the encoded stream (MPEG-TS) for the pusher process. */
export const PUSH_STREAM_FD = 4;
/** The fd on which ffmpeg reads the sound: raw s16le samples at the profile's rate and channel count. */
export const AUDIO_IN_FD = 5;

/**
 * Seconds between forced keyframes: at most 2 s (what CDNs ask for) and a whole fraction of the slice length,
 * so that every slice after the first holds the same number of keyframe intervals and is exactly one slice long.
 */
export function keyframeIntervalSec(sliceSeconds: number): number {
  return sliceSeconds / Math.ceil(sliceSeconds / 2);
}

export function segmentFilePattern(run: number): string {
  return `seg_${String(run).padStart(3, '0')}_%05d.ts`;
}

/** One level of ffmpeg's backslash escaping, for any of the separators tee and its option lists use. */
export function teeEscape(value: string): string {
  return value.replace(/[\\':|[\]=]/g, (c) => `\\${c}`);
}

/**
 * One tee slave: `[options]target`. ffmpeg unescapes the options twice (the bracket, then the option list) and
 * takes the target as it is; slaves are split at `|` without escapes, so a target may not hold one.
 */
export function teeSlave(options: Record<string, string>, target: string): string {
  if (target.includes('|')) throw new RangeError('a tee target cannot contain "|"');
  const list = Object.entries(options).map(([k, v]) => `${k}=${teeEscape(v)}`).join(':');
  return `[${teeEscape(list)}]${target}`;
}

/** Seconds with millisecond precision, as ffmpeg's duration options take them. */
function secondsText(ms: number): string {
  return (ms / 1000).toFixed(3);
}

export function encoderArgs(plan: EncoderPlan): string[] {
  const o = plan.options;
  const k = keyframeIntervalSec(o.sliceSeconds);
  const bitrate = `${o.videoBitrateKbps}k`;
  const segmentOptions = {
    segment_time: String(o.sliceSeconds),
    reset_timestamps: '0',
    segment_format: 'mpegts',
    // mpegts_copyts: the files carry the encoder's timestamps as they are (no +1.4 s mux delay), so a file's
    // first timestamp is its start in capture time. flush_packets: a crash loses what is in flight, not 32 KiB.
    segment_format_options: 'mpegts_copyts=1:flush_packets=1',
    segment_list: `pipe:${SEGMENT_LIST_FD}`,
    segment_list_type: 'csv',
  };
  const args = [
    '-loglevel', 'warning',
    '-copyts',
    '-thread_queue_size', '1024',
    // A grab at t shows what reached the screen since the grab before, on average half a frame period earlier:
    // the frame is stamped at the middle of the time it stands for (docs/recording-web.md, "A/V").
    '-itsoffset', `-${(0.5 / o.videoFps).toFixed(6)}`,
    '-f', 'x11grab', '-draw_mouse', '0', '-framerate', String(o.videoFps), '-video_size', `${o.width}x${o.height}`,
    '-i', plan.display,
    // The sound: raw samples, stamped from their count (the demuxer's own timestamps start at 0) plus the UTC
    // time of the first one, to the microsecond.
    '-thread_queue_size', '1024',
    '-f', 's16le', '-ar', String(o.audio.sampleRate), '-ac', String(o.audio.channels),
    '-itsoffset', (plan.audioStartMs / 1000).toFixed(6),
    '-i', `pipe:${AUDIO_IN_FD}`,
    '-output_ts_offset', `-${secondsText(plan.originMs)}`,
    '-map', '0:v', '-map', '1:a',
    // The output frame rate pinned: left to ffmpeg it is guessed from the grabber's first frames, and once (two
    // encoders starting at the same moment) it came out as 29.92 fps, every frame stamped 0.3 % late.
    '-r', String(o.videoFps),
    ...(o.encodedWidth !== o.width || o.encodedHeight !== o.height ? ['-vf', `crop=${o.encodedWidth}:${o.encodedHeight}:0:0`] : []),
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
    '-b:v', bitrate, '-maxrate', bitrate, '-bufsize', `${o.videoBitrateKbps * 2}k`,
    // Keyframes every k seconds from the first frame, and nowhere else (no scene-cut keyframes).
    '-force_key_frames', `expr:gte(t,n_forced*${k})`, '-g', String(Math.ceil(2 * k * o.videoFps)), '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', `${o.audio.bitrateKbps}k`, '-ar', String(o.audio.sampleRate), '-ac', String(o.audio.channels),
  ];
  const pattern = segmentFilePattern(plan.run);
  if (!plan.push) {
    args.push('-f', 'segment');
    for (const [key, v] of Object.entries(segmentOptions)) args.push(`-${key}`, v);
    args.push(pattern);
    return args;
  }
  const slices = teeSlave({ f: 'segment', ...segmentOptions }, pattern);
  // The push branch is MPEG-TS on a pipe the recorder reads and relays to the pusher process (any pusher can
  // join a TS stream at a packet boundary). onfail=ignore: should the pipe ever fail, the slices go on.
  // use_fifo with dropping: the branch is written from its own thread through a bounded queue (≈ 5 s of
  // packets), so a recorder slow to read the pipe can never hold up the encoder. flush_packets: each packet
  // leaves at once (no 32 KiB buffering: the pusher's delay stays small).
  const push = teeSlave(
    { f: 'mpegts', onfail: 'ignore', use_fifo: '1', fifo_options: 'queue_size=300:drop_pkts_on_overflow=1', flush_packets: '1' },
    `pipe:${PUSH_STREAM_FD}`,
  );
  args.push('-f', 'tee', `${slices}|${push}`);
  return args;
}

import type { ChildProcess } from 'node:child_process';
import type { MediaKind } from '../channel/index.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';
import type { RtspTransport } from './types.ts';

/**
 * What an ingest ffmpeg sends of its source: the kinds it has, and its video as it came (`copy`) or re-encoded to
 * H.264 (`transcode`: an H.265 camera). Every source is first asked for both kinds, copied (`FIRST_PLAN`);
 * `nextPlan` reads ffmpeg's error for what to try instead.
 */
export interface MediaPlan {
  readonly kinds: readonly MediaKind[];
  readonly video: 'copy' | 'transcode';
}

/**
 * Where the ingest ffmpeg's H.264 RTP ends a picture: FLV and MPEG-TS give it whole access units, so its marker bit
 * ends each (trusted: no frame of delay); an RTSP camera's stream comes in as the camera packetized it, a slice at a
 * time, each of which ffmpeg may send with the marker (cameras that slice their pictures): a picture ends when the next
 * timestamp begins. A re-encoded stream is whole pictures too.
 */
export function ingestPictureEnd(input: IngestInput, plan: MediaPlan): 'marker' | 'timestamp' {
  return input.kind === 'rtsp' && plan.video === 'copy' ? 'timestamp' : 'marker';
}

/** Both kinds: what every source is asked for first. */
export const BOTH_KINDS: readonly MediaKind[] = Object.freeze(['audio', 'video']);
export const FIRST_PLAN: MediaPlan = Object.freeze({ kinds: BOTH_KINDS, video: 'copy' });

/** Video codecs re-encoded to H.264 rather than refused (ffmpeg's names). */
const TRANSCODED = new Set(['hevc']);

/**
 * ffmpeg arguments taking a source's stream (`input`: by default an RTMP publisher's FLV on stdin) and sending RTP to
 * two loopback ports: the H.264 as it came (no transcode; Annex B with SPS/PPS before each keyframe, so a subscriber
 * joining mid-stream can decode from the next one) or, for an H.265 source, re-encoded (`transcodeArgs`), and the
 * audio (AAC, G.711, ...) transcoded to Opus, 48 kHz stereo, as WebRTC needs. Both outputs are stamped from the
 * source's timestamps, one timeline for both kinds (docs/ingest.md, "Timing").
 */
export function ingestFfmpegArgs(videoPort: number, audioPort: number, input: IngestInput = { kind: 'flv' }, plan: MediaPlan = FIRST_PLAN): string[] {
  const rtp = (port: number) => `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`;
  const video = plan.video === 'copy' ? ['-c:v', 'copy', ...videoFilter(input)] : TRANSCODE_ARGS;
  // Not `-fflags nobuffer`: it throws away the packets read while probing, the source's first keyframe among them,
  // so the copy would start at the next one (a minute later for some cameras; the publish gave up after 20 s).
  return [
    '-hide_banner', '-loglevel', 'error',
    ...sourceArgs(input),
    ...(plan.kinds.includes('video') ? ['-map', '0:v:0', ...video, '-payload_type', '96', '-f', 'rtp', rtp(videoPort)] : []),
    ...(plan.kinds.includes('audio')
      ? ['-map', '0:a:0', '-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', '-ac', '2', '-application', 'lowdelay', '-payload_type', '111', '-f', 'rtp', rtp(audioPort)]
      : []),
  ];
}

/**
 * An H.265 source's video as WebRTC takes it: H.264 constrained baseline (what every browser decodes), no B-frames,
 * low latency, a keyframe every 2 s of source time, SPS/PPS in band with each (RTP output asks the encoder for
 * out-of-band headers). The bitrate cap keeps a 1080p camera within what a viewer's link takes.
 */
const TRANSCODE_ARGS: readonly string[] = Object.freeze([
  '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-bf', '0',
  '-force_key_frames', 'expr:gte(t,n_forced*2)', '-b:v', '2000k', '-maxrate', '2500k', '-bufsize', '2500k',
  '-bsf:v', 'dump_extra=freq=keyframe',
]);

/**
 * What to try after an ingest ffmpeg ended with `message`: the kind the source has when it lacks one (a camera
 * without a microphone), the video re-encoded when it is H.265; undefined when neither helps.
 */
export function nextPlan(message: string, plan: MediaPlan): MediaPlan | undefined {
  const kinds = kindsPresent(message, plan.kinds);
  if (kinds) return { ...plan, kinds };
  const codec = NOT_H264.exec(message)?.[1];
  if (plan.video === 'copy' && codec && TRANSCODED.has(codec)) return { ...plan, video: 'transcode' };
  return undefined;
}

/** ffmpeg's word for a source without a stream of one kind (a camera without a microphone). */
const NO_STREAM = /Stream map '0:([av]):0' matches no streams/;

/**
 * The kinds a source has, when ffmpeg ended because it has only one of the two asked for (its message names the
 * missing one); undefined for any other end.
 */
export function kindsPresent(message: string, asked: readonly MediaKind[]): readonly MediaKind[] | undefined {
  const missing = NO_STREAM.exec(message)?.[1];
  if (!missing) return undefined;
  const left = asked.filter((k) => k !== (missing === 'a' ? 'audio' : 'video'));
  return left.length > 0 && left.length < asked.length ? left : undefined;
}

/**
 * Where the ingest ffmpeg reads: an FLV stream on stdin (the RTMP listener writes it); an SRT listener of its own
 * (MPEG-TS; one caller, which must know the passphrase: SRT's AES key, a wrong one is refused in the handshake); an
 * SRT listener elsewhere that it calls; an RTSP source (a camera). URLs of sources reeltime connects to name the
 * address the outbound guard checked, not a host name (service.ts), so a second lookup cannot change the target.
 */
export type IngestInput =
  | { readonly kind: 'flv' }
  | { readonly kind: 'srt'; readonly host: string; readonly port: number; readonly passphrase: string }
  | { readonly kind: 'srt-caller'; readonly url: string }
  | { readonly kind: 'rtsp'; readonly url: string; readonly transport: RtspTransport };

/** How long an RTSP source may stay silent (socket reads and writes) before ffmpeg gives up on it: 10 s, in µs. */
const RTSP_IO_TIMEOUT_US = '10000000';

/**
 * A source's URL and input options for ffmpeg, handed over on its stdin as a one-file concat script (`sourceScript`)
 * and never on its command line: the URL holds secrets (an SRT passphrase, a camera's password), and any local
 * user can read a process's arguments (`ps`, /proc/<pid>/cmdline). The whitelist keeps the source to the protocols
 * of its kind.
 */
interface ScriptedSource {
  readonly url: string;
  readonly options: Readonly<Record<string, string>>;
  readonly protocols: string;
}

function scriptedSource(input: Exclude<IngestInput, { kind: 'flv' }>): ScriptedSource {
  switch (input.kind) {
    case 'srt':
      return {
        url: `srt://${bracketed(input.host)}:${input.port}?mode=listener&passphrase=${encodeURIComponent(input.passphrase)}&pbkeylen=16`,
        options: {},
        protocols: 'pipe,srt,udp',
      };
    case 'srt-caller': {
      const url = new URL(input.url);
      url.searchParams.set('mode', 'caller');
      return { url: url.href, options: {}, protocols: 'pipe,srt,udp' };
    }
    case 'rtsp':
      return {
        url: input.url,
        options: { rtsp_transport: input.transport, timeout: RTSP_IO_TIMEOUT_US },
        protocols: 'pipe,rtsp,rtsps,rtp,tcp,udp,tls',
      };
  }
}

/**
 * The concat script (ffconcat) that names a source for the ingest ffmpeg on its stdin; undefined for FLV, which
 * comes on stdin itself. In the script a single quote is closed, escaped and reopened.
 */
export function sourceScript(input: IngestInput): string | undefined {
  if (input.kind === 'flv') return undefined;
  const { url, options } = scriptedSource(input);
  const quoted = `'${url.replaceAll("'", "'\\''")}'`;
  return ['ffconcat version 1.0', `file ${quoted}`, ...Object.entries(options).map(([k, v]) => `option ${k} ${v}`), ''].join('\n');
}

function sourceArgs(input: IngestInput): string[] {
  if (input.kind === 'flv') return ['-f', 'flv', '-i', 'pipe:0'];
  // The concat demuxer opens the one source with its options and hands its packets on as they come (no conversion:
  // `auto_convert` off), so the source's timestamps stay as they were, shifted alike for both kinds.
  return ['-protocol_whitelist', scriptedSource(input).protocols, '-f', 'concat', '-safe', '0', '-auto_convert', '0', '-i', 'pipe:0'];
}

/**
 * H.264 in MPEG-TS is Annex B already; from FLV it is length-prefixed, and the filter also puts SPS/PPS in band. A
 * camera may send its SPS/PPS only in the SDP (sprop-parameter-sets): dump_extra repeats them before each keyframe.
 * Each chain starts with a filter that takes H.264 only (h264_metadata changes nothing without options), so another
 * codec ends ffmpeg at once with a message `explainIngestError` turns into the reason.
 */
function videoFilter(input: IngestInput): string[] {
  if (input.kind === 'flv') return ['-bsf:v', 'h264_mp4toannexb'];
  if (input.kind === 'rtsp') return ['-bsf:v', 'h264_metadata,dump_extra=freq=keyframe'];
  return ['-bsf:v', 'h264_metadata'];
}

/** ffmpeg's word for a source whose video is not H.264 (a bitstream filter refusing the codec). */
const NOT_H264 = /Codec '([\w-]+)' \(\d+\) is not supported by the bitstream filter 'h264_(?:metadata|mp4toannexb)'/;

/**
 * The reason an ingress shows when its media pipeline failed: a named one where ffmpeg's message is known (a video
 * codec other than H.264), else ffmpeg's own words.
 */
export function explainIngestError(message: string): string {
  const codec = NOT_H264.exec(message)?.[1];
  if (codec) return `video: the source sends ${codec}, not H.264 (reeltime passes H.264 through and re-encodes only H.265)`;
  return message;
}

/** A host as a URL names it: an IPv6 address in brackets. */
export const bracketed = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/**
 * Starts the ingest ffmpeg (ingestFfmpegArgs); it dies with this process. A source other than FLV gets its script
 * (`sourceScript`) on stdin, which then closes; an FLV source's stdin is the caller's to write.
 */
export function spawnIngestFfmpeg(videoPort: number, audioPort: number, input: IngestInput = { kind: 'flv' }, plan: MediaPlan = FIRST_PLAN): ChildProcess {
  const child = spawnChild(FFMPEG_BIN, ingestFfmpegArgs(videoPort, audioPort, input, plan), { stdio: ['pipe', 'ignore', 'pipe'] });
  const script = sourceScript(input);
  if (script !== undefined) {
    child.stdin!.on('error', () => undefined); // ffmpeg gone before it read the script: its exit says why
    child.stdin!.end(script);
  }
  return child;
}

/**
 * Test publisher for the live mix: ffmpeg encodes a solid colour (VP8 or H.264) or a sine (Opus) in real time and
 * sends RTP and its RTCP sender reports to one loopback socket; packets and reports are handed to the callbacks.
 */
import { createSocket } from 'node:dgram';
import { RtcpPacketConverter, RtcpSrPacket } from 'werift';
import { FfmpegProcess } from '../../../ffmpeg.ts';
import type { RtpTrackDescription } from '../../../sdp.ts';
import type { GeneratorOptions } from '../../../testing/rtp-generator.ts';
import type { MixPipeline } from '../mix-pipeline.ts';
import { isRtcp, readRtpHeader } from '../../../../rtp-payload/index.ts';
import { rtpTimestampDelta, type SenderReport, senderReportOf, unixMsToNtp } from '../sender-clock.ts';

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

/** As the individual recorder's test generator (defaults here: 320×180, and sender reports are passed on). */
export interface RtpSourceOptions extends Omit<GeneratorOptions, 'gop'> {
  /** Send this file's VP8 video (or Opus audio, with kind opus) as is, looped, instead of encoding a colour or tone. */
  readonly file?: string;
}

export interface RtpSource {
  readonly track: RtpTrackDescription;
  stop(): Promise<void>;
}

export async function startRtpSource(
  o: RtpSourceOptions,
  onPacket: (packet: Buffer) => void,
  onSenderReport: (report: SenderReport) => void = () => undefined,
): Promise<RtpSource> {
  const socket = createSocket('udp4');
  socket.on('message', (m) => {
    if (!isRtcp(m)) return onPacket(m);
    for (const p of RtcpPacketConverter.deSerialize(m)) if (p instanceof RtcpSrPacket) onSenderReport(senderReportOf(p));
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  const port = socket.address().port;
  const fps = o.fps ?? 15;
  const size = `${o.width ?? 320}x${o.height ?? 180}`;
  let args: string[];
  let track: RtpTrackDescription;
  if (o.file && o.kind === 'opus') {
    args = ['-stream_loop', '-1', '-re', '-i', o.file, '-vn', '-c:a', 'copy', '-payload_type', '111'];
    track = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };
  } else if (o.file) {
    args = ['-stream_loop', '-1', '-re', '-i', o.file, '-an', '-c:v', 'copy', '-payload_type', '96'];
    track = { codec: 'VP8', payloadType: 96, clockRate: 90000 };
  } else if (o.kind === 'opus') {
    args = ['-re', '-f', 'lavfi', '-i', `sine=f=${o.toneHz ?? 440}:r=48000`, '-c:a', 'libopus', '-b:a', '32k', '-ac', '2', '-payload_type', '111'];
    track = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 };
  } else {
    const input = ['-re', '-f', 'lavfi', '-i', `color=c=${o.color ?? 'red'}:s=${size}:r=${fps}`];
    args =
      o.kind === 'vp8'
        ? [...input, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-g', String(fps * 2), '-payload_type', '96']
        : [...input, '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p', '-g', String(fps * 2), '-b:v', '200k', '-payload_type', '102'];
    track =
      o.kind === 'vp8'
        ? { codec: 'VP8', payloadType: 96, clockRate: 90000 }
        : { codec: 'H264', payloadType: 102, clockRate: 90000, fmtp: 'packetization-mode=1;profile-level-id=42e01f' };
  }
  const ffmpeg = new FfmpegProcess(['-loglevel', 'error', ...args, '-f', 'rtp', `rtp://127.0.0.1:${port}?rtcpport=${port}&pkt_size=1200`]);
  return {
    track,
    stop: once(async () => {
      await ffmpeg.stop(2000, 200);
      socket.close();
    }),
  };
}

export interface FlashBeepSource {
  readonly video: RtpTrackDescription;
  readonly audio: RtpTrackDescription;
  stop(): Promise<void>;
}

/**
 * One publisher whose picture turns white and whose 1 kHz tone sounds for the first `pulseSec` of every second,
 * both from one ffmpeg (one lavfi timeline), sent as VP8 and Opus RTP: for A/V sync checks. ffmpeg's own sender
 * reports date each stream from when its first packet left, and its video leaves about half a second behind its
 * audio, so they do not describe one capture clock as a browser's do. This source sends its own instead: both
 * streams' first packets stand for timeline 0, stamped with the first arrival of either.
 */
export async function startFlashBeepSource(
  onPacket: (kind: 'audio' | 'video', packet: Buffer) => void,
  onSenderReport: (kind: 'audio' | 'video', report: SenderReport) => void,
  pulseSec = 0.2,
): Promise<FlashBeepSource> {
  let originMs: number | undefined;
  const first = new Map<'audio' | 'video', number>();
  const lastReportMs = new Map<'audio' | 'video', number>();
  const rate = { audio: 48_000, video: 90_000 };
  const sockets = await Promise.all(
    (['video', 'audio'] as const).map(async (kind) => {
      const socket = createSocket('udp4');
      socket.on('message', (m) => {
        if (isRtcp(m)) return;
        const header = readRtpHeader(m);
        if (!header) return;
        const now = Date.now();
        originMs ??= now;
        if (!first.has(kind)) first.set(kind, header.timestamp);
        if (now - (lastReportMs.get(kind) ?? -Infinity) >= 1000) {
          lastReportMs.set(kind, now);
          const senderMs = originMs + (rtpTimestampDelta(header.timestamp, first.get(kind)!) * 1000) / rate[kind];
          onSenderReport(kind, { ssrc: header.ssrc, ntpTimestamp: unixMsToNtp(senderMs), rtpTimestamp: header.timestamp });
        }
        onPacket(kind, m);
      });
      await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
      return socket;
    }),
  );
  const [videoPort, audioPort] = sockets.map((s) => s.address().port);
  const on = `lt(mod(t\\,1)\\,${pulseSec})`;
  const ffmpeg = new FfmpegProcess([
    '-loglevel', 'error',
    '-re', '-f', 'lavfi', '-i', 'color=c=black:s=320x180:r=15',
    '-re', '-f', 'lavfi', '-i', 'sine=f=1000:r=48000',
    '-filter_complex', `[0:v]drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='${on}'[v];[1:a]volume=volume=0:enable='not(${on})'[a]`,
    '-map', '[v]', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-g', '30', '-payload_type', '96',
    '-f', 'rtp', `rtp://127.0.0.1:${videoPort}?rtcpport=${videoPort}&pkt_size=1200`,
    '-map', '[a]', '-c:a', 'libopus', '-b:a', '32k', '-ac', '2', '-payload_type', '111',
    '-f', 'rtp', `rtp://127.0.0.1:${audioPort}?rtcpport=${audioPort}&pkt_size=1200`,
  ]);
  return {
    video: { codec: 'VP8', payloadType: 96, clockRate: 90000 },
    audio: { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2 },
    stop: once(async () => {
      await ffmpeg.stop(2000, 200);
      for (const s of sockets) s.close();
    }),
  };
}

/** Publishes one track of `uid` into the pipeline; `open()` false holds the packets back (a stalled sender). */
export async function publishTo(
  pipeline: Pick<MixPipeline, 'pushRtp' | 'pushSenderReport'>,
  uid: string,
  options: RtpSourceOptions,
  open: () => boolean = () => true,
): Promise<RtpSource> {
  const kind = options.kind === 'opus' ? 'audio' : 'video';
  let source: RtpSource | undefined;
  source = await startRtpSource(
    options,
    (p) => {
      if (source && open()) pipeline.pushRtp(uid, kind, source.track, p);
    },
    (report) => pipeline.pushSenderReport(uid, kind, report),
  );
  return source;
}

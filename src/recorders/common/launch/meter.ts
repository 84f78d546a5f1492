/**
 * What recorders report to /metrics (docs/metrics.md): slices and streams handed to the spool, by mode, and the
 * child processes they run (ffmpeg, Chromium, Xvfb, PulseAudio) with their CPU time.
 */
import { basename } from 'node:path';
import { LossMeter, type LossFigure } from '../../../media/index.ts';
import type { MetricsRegistry } from '../../../metrics/index.ts';
import { childrenOf } from '../../../process/index.ts';
import type { UploadSession } from '../../../storage/index.ts';

export interface RecorderMeter {
  /** A media slice (not a playlist, MP4 or snapshot) is in the spool. */
  slice(mode: string): void;
  /** The first slice of a stream (a user's track, or the composite in mix and web mode) is in the spool. */
  stream(mode: string): void;
  /** Loss repair totals of every slicer's jitter buffer (individual mode), read at scrape time. */
  readonly loss: LossMeter;
}

/** The loss repair figures in /metrics (docs/metrics.md), each a counter by media kind. */
const LOSS_METRICS: readonly { readonly figure: LossFigure; readonly name: string; readonly help: string }[] = [
  { figure: 'missing', name: 'reeltime_recorder_rtp_missing_total', help: 'RTP packets missing when a later one arrived (loss before repair)' },
  { figure: 'repaired', name: 'reeltime_recorder_rtp_repaired_total', help: 'Missing RTP packets that arrived within the jitter buffer hold (retransmitted or reordered)' },
  { figure: 'lost', name: 'reeltime_recorder_rtp_lost_total', help: 'RTP packets given up on after the jitter buffer hold (loss after repair)' },
  { figure: 'late', name: 'reeltime_recorder_rtp_late_total', help: 'RTP packets that arrived after they were given up on (dropped)' },
  { figure: 'framesDropped', name: 'reeltime_recorder_video_frames_dropped_total', help: 'Video frames not recorded because they followed an unrepaired loss (waiting for a keyframe)' },
  { figure: 'concealed', name: 'reeltime_recorder_audio_concealed_total', help: 'Lost Opus packets replaced by packet loss concealment' },
  { figure: 'fecRecovered', name: 'reeltime_recorder_audio_fec_recovered_total', help: "Lost Opus packets remade from the next packet's in-band FEC" },
  { figure: 'keyframeRequests', name: 'reeltime_recorder_keyframe_requests_total', help: 'Keyframe requests sent after an unrepaired video loss' },
];

/** A slice key is its stream's name, `_`, its start stamp and the container (src/media/naming.ts). */
const SLICE = /^(.*)_[^_/]+\.(ts|webm|m4s)$/;

/** The upload session with every accepted slice, and every stream's first, counted; otherwise unchanged. */
export function meterUploads(upload: UploadSession, mode: string, meter: RecorderMeter | undefined): UploadSession {
  if (!meter) return upload;
  const streams = new Set<string>();
  return {
    ...upload,
    objectKey: (fileName) => upload.objectKey(fileName),
    async enqueue(localPath, key, options) {
      const res = await upload.enqueue(localPath, key, options);
      const slice = res.ok ? SLICE.exec(key) : null;
      if (slice) {
        meter.slice(mode);
        if (!streams.has(slice[1]!)) {
          streams.add(slice[1]!);
          meter.stream(mode);
        }
      }
      return res;
    },
  };
}

/** The command a child runs: setpriv execs it, so argv[0] is the command itself (ffmpeg, chromium, Xvfb…). */
function commandOf(argv: readonly string[]): string {
  return basename(argv[0] ?? 'unknown') || 'unknown';
}

/** Registers the recorder metrics in a process with the recorder role; returns the meter recorders count through. */
export function registerRecorderMetrics(metrics: MetricsRegistry, pid = process.pid): RecorderMeter {
  const slices = metrics.counter({ name: 'reeltime_recorder_slices_total', help: 'Media slices handed to the upload spool', labelNames: ['mode'] });
  const streams = metrics.counter({
    name: 'reeltime_recorder_streams_total',
    help: 'Streams recorded (a track in individual mode, the composite in mix and web mode)',
    labelNames: ['mode'],
  });
  metrics.gaugeFrom({ name: 'reeltime_recorder_child_processes', help: 'Child processes running, by command', labelNames: ['command'] }, () => {
    const byCommand = new Map<string, number>();
    for (const c of childrenOf(pid)) byCommand.set(commandOf(c.argv), (byCommand.get(commandOf(c.argv)) ?? 0) + 1);
    return [...byCommand].map(([command, n]) => [{ command }, n] as const);
  });
  // CPU seconds of children, summed over every child seen running at a scrape: what a child used after the last
  // scrape before it exited is not counted (a fraction of one scrape interval).
  const lastCpu = new Map<string, number>();
  const cpuByCommand = new Map<string, number>();
  metrics.counterFrom(
    { name: 'reeltime_recorder_child_cpu_seconds_total', help: 'CPU time (user + system) of child processes, by command', labelNames: ['command'] },
    () => {
      const running = new Set<string>();
      for (const c of childrenOf(pid)) {
        const key = `${c.pid}:${c.startTime}`;
        running.add(key);
        const command = commandOf(c.argv);
        cpuByCommand.set(command, (cpuByCommand.get(command) ?? 0) + Math.max(0, c.cpuSeconds - (lastCpu.get(key) ?? 0)));
        lastCpu.set(key, c.cpuSeconds);
      }
      for (const key of lastCpu.keys()) if (!running.has(key)) lastCpu.delete(key);
      return [...cpuByCommand].map(([command, s]) => [{ command }, s] as const);
    },
  );
  const loss = new LossMeter();
  for (const m of LOSS_METRICS) {
    metrics.counterFrom({ name: m.name, help: m.help, labelNames: ['kind'] }, () => {
      const t = loss.total(m.figure);
      return [
        [{ kind: 'audio' }, t.audio],
        [{ kind: 'video' }, t.video],
      ] as const;
    });
  }
  return {
    loss,
    slice: (mode) => slices.inc({ mode }),
    stream: (mode) => streams.inc({ mode }),
  };
}

/**
 * One user's audio or video across the whole session: the stream currently being sliced (a TrackPipeline; a new
 * one after every break, so the playlist gets a discontinuity) and the track's HLS writer in the session's
 * recording output (playlist, slices, uploads).
 */
import { join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import type { Logger } from '../../log/index.ts';
import {
  playlistName,
  sliceName,
  type FeedStats,
  type RtpCodecName,
  type SessionNaming,
  type TrackPipeline,
} from '../../media/index.ts';
import type { HlsTrackWriter } from '../common/output/index.ts';
import type { OutputTrack, RecordingOutput } from '../common/output/index.ts';

export class TrackRecording {
  pipeline: TrackPipeline | undefined;
  streams = 0;
  /** RTP packets that reached this track's slicers (the stop summary tells "nothing received" from "nothing cut"). */
  packets = 0;
  /** Injected-clock time of the first packet (undefined: none yet). */
  firstPacketMs: number | undefined;
  codec: RtpCodecName | undefined;
  /** Loss repair figures of each stream (live objects: the current stream's keep counting). */
  readonly loss: Readonly<FeedStats>[] = [];
  readonly out: OutputTrack;

  constructor(
    readonly uid: string,
    readonly kind: MediaKind,
    root: string,
    naming: SessionNaming,
    output: RecordingOutput,
  ) {
    this.out = output.track(
      {
        dir: join(root, `${uid}-${kind}`),
        kind,
        playlistName: playlistName(naming, uid, kind),
        sliceName: (startMs, container) => sliceName(naming, uid, kind, startMs, container),
      },
      { trackType: kind, uid, mixedAllUser: false },
      { streamUid: uid, trackType: kind },
    );
  }

  get hls(): HlsTrackWriter {
    return this.out.writer;
  }

  /** A new stream of this track begins (first ever, or after a break). */
  beginStream(codec: RtpCodecName): void {
    this.streams++;
    this.codec = codec;
    this.hls.beginStream();
  }

  /** Local directory of the current stream's slicer. */
  streamDir(): string {
    return join(this.hls.dir, `s${this.streams}`);
  }
}

/**
 * One line per session at its end: per track, packets received, streams and slices. A track that received media
 * but closed no slice is a warning (its slicer never cut one: the session may stop with "no recorded data").
 */
export function logTrackSummary(
  log: Logger,
  tracks: readonly TrackRecording[],
  at: { readonly startedMs: number | undefined; readonly nowMs: number },
  channel: { readonly linked: readonly string[]; readonly publishing: readonly number[] },
): void {
  const since = (ms: number | undefined) => (ms === undefined || at.startedMs === undefined ? undefined : ms - at.startedMs);
  const summary = tracks.map((t) => ({
    uid: t.uid,
    kind: t.kind,
    packets: t.packets,
    firstPacketAfterMs: since(t.firstPacketMs),
    streams: t.streams,
    slices: t.hls.slices.length,
    ...lossSummary(t.loss),
  }));
  const fields = { tracks: summary, liveMs: since(at.nowMs), ...channel };
  if (summary.some((t) => t.packets > 0 && t.slices === 0)) log.warn(fields, 'media received but no slice closed');
  else if (summary.length === 0) log[channel.linked.length > 0 || channel.publishing.length > 0 ? 'warn' : 'info'](fields, 'no media received');
  else log.info(fields, 'live part ended');
}

/** A track's loss figures over its streams for the stop summary (none when nothing was missing). */
function lossSummary(streams: readonly Readonly<FeedStats>[]): { loss?: Record<string, number> } {
  const sum = (f: keyof FeedStats) => streams.reduce((n, s) => n + s[f], 0);
  if (sum('missing') === 0 && sum('late') === 0) return {};
  return {
    loss: {
      missingBeforeRepair: sum('missing'),
      repaired: sum('repaired'),
      lostAfterRepair: sum('lost'),
      lateDropped: sum('late'),
      videoFramesDropped: sum('framesDropped'),
      audioConcealed: sum('concealed'),
      audioFecRecovered: sum('fecRecovered'),
      keyframeRequests: sum('keyframeRequests'),
    },
  };
}

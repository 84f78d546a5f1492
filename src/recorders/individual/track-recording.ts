/**
 * One user's audio or video across the whole session: the stream currently being sliced (a TrackPipeline; a new
 * one after every break, so the playlist gets a discontinuity) and the track's HLS writer (playlist, slices,
 * uploads).
 */
import { join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import {
  playlistName,
  sliceName,
  type RtpCodecName,
  type SessionNaming,
  type TrackPipeline,
} from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { HlsTrackWriter } from '../common/hls-track.ts';

export class TrackRecording {
  pipeline: TrackPipeline | undefined;
  streams = 0;
  /** RTP packets that reached this track's slicers (the stop summary tells "nothing received" from "nothing cut"). */
  packets = 0;
  /** Injected-clock time of the first packet (undefined: none yet). */
  firstPacketMs: number | undefined;
  codec: RtpCodecName | undefined;
  readonly hls: HlsTrackWriter;

  constructor(
    readonly uid: string,
    readonly kind: MediaKind,
    root: string,
    naming: SessionNaming,
    upload: UploadSession,
  ) {
    this.hls = new HlsTrackWriter({
      dir: join(root, `${uid}-${kind}`),
      kind,
      upload,
      playlistName: playlistName(naming, uid, kind),
      sliceName: (startMs, container) => sliceName(naming, uid, kind, startMs, container),
    });
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

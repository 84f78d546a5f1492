/**
 * One user's audio or video across the whole session: its playlist (one per user and kind, growing), the
 * stream currently being sliced (a TrackPipeline; a new one after every break, so the playlist gets a
 * discontinuity), and the local copies of closed slices for MP4 and postponed transcoding.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import { appendSlice, createPlaylist, type MediaPlaylist } from '../../media/m3u8.ts';
import type { SliceFile } from '../../media/remux.ts';
import type { RtpCodecName } from '../../media/sdp.ts';
import type { TrackPipeline } from '../../media/track-pipeline.ts';

export class TrackRecording {
  playlist: MediaPlaylist;
  pipeline: TrackPipeline | undefined;
  streams = 0;
  /** The next closed slice starts a new stream (first ever, or after a break). */
  newStream = true;
  readonly slices: SliceFile[] = [];
  codec: RtpCodecName | undefined;
  firstStartMs: number | undefined;
  /** End of the last slice (ms): `discontinueUtcMs` of the next slice-start event. */
  lastEndMs: number | undefined;
  fileInfosSent = false;
  readonly dir: string;

  constructor(
    readonly uid: string,
    readonly kind: MediaKind,
    root: string,
  ) {
    this.playlist = createPlaylist(kind);
    this.dir = join(root, `${uid}-${kind}`);
    mkdirSync(this.dir, { recursive: true });
  }

  streamDir(): string {
    return join(this.dir, `s${this.streams}`);
  }

  addSlice(uri: string, localPath: string, startMs: number, durationSec: number): void {
    this.playlist = appendSlice(this.playlist, { uri, durationSec, startMs, newStream: this.newStream });
    this.newStream = false;
    this.slices.push({ path: localPath, startMs });
    this.firstStartMs ??= startMs;
    this.lastEndMs = startMs + Math.round(durationSec * 1000);
    // Restart recovery reads this journal to find slices closed but never handed to the uploader.
    appendFileSync(join(this.dir, 'journal.jsonl'), JSON.stringify({ localPath, uri, startMs, durationSec }) + '\n');
  }
}

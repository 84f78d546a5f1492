/**
 * One HLS track of a recording (a user's audio or video in individual mode; the composite in mix and web): its
 * growing playlist, the slices it names, discontinuities where a stream broke, and the hand-off of each slice and
 * then the playlist to the storage upload session (a slice always before the playlist that names it). File I/O is
 * asynchronous. The track directory keeps `journal.jsonl` (slices handed to the uploader) and `playlist.m3u8` (the
 * last playlist written), which restart recovery reads (docs/recording-individual.md, "Restarts").
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appendSlice,
  createPlaylist,
  endPlaylist,
  renderPlaylist,
  type MediaPlaylist,
  type RenderOptions,
  type SliceContainer,
  type SliceFile,
  type TrackKind,
} from '../../../media/index.ts';
import type { UploadSession } from '../../../storage/index.ts';

export const PLAYLIST_CONTENT_TYPE = 'application/vnd.apple.mpegurl';
export const JOURNAL_FILE = 'journal.jsonl';
export const PLAYLIST_FILE = 'playlist.m3u8';

export interface HlsTrackOptions {
  /** Local directory of this track (slices live in stream subdirectories of it). */
  readonly dir: string;
  readonly kind: TrackKind;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
  /** Object name of the playlist (before the storage prefix). */
  readonly playlistName: string;
  readonly sliceName: (startMs: number, container: SliceContainer) => string;
  readonly render?: RenderOptions;
}

export interface ClosedSliceFile {
  readonly localPath: string;
  readonly startMs: number;
  readonly durationSec: number;
  readonly container: SliceContainer;
}

export type SliceOutcome =
  | { readonly ok: false; readonly message: string }
  | {
      readonly ok: true;
      /** Object key of the slice. */
      readonly key: string;
      /** First slice of a (re)started stream. */
      readonly startsStream: boolean;
      /** The slice's start, or after a break the end of the previous stream's last slice. */
      readonly discontinueUtcMs: number;
      /** The playlist naming the slice was handed to the uploader for the first time. */
      readonly firstPlaylist: boolean;
      readonly playlistUploaded: boolean;
    };

export class HlsTrackWriter {
  #playlist: MediaPlaylist;
  #newStream = true;
  #playlistSent = false;
  #ready: Promise<unknown> | undefined;
  /** Local copies of the slices, in order (MP4 and post-processing read them). */
  readonly slices: SliceFile[] = [];
  firstStartMs: number | undefined;
  /** End of the last slice (ms). */
  lastEndMs: number | undefined;

  constructor(private readonly o: HlsTrackOptions) {
    this.#playlist = createPlaylist(o.kind);
  }

  get dir(): string {
    return this.o.dir;
  }

  get playlist(): MediaPlaylist {
    return this.#playlist;
  }

  get playlistKey(): string {
    return this.o.upload.objectKey(this.o.playlistName);
  }

  get recorded(): boolean {
    return this.slices.length > 0;
  }

  /** The next slice starts a new stream: it gets a discontinuity when anything came before it. */
  beginStream(): void {
    this.#newStream = true;
  }

  #mkdir(): Promise<unknown> {
    this.#ready ??= mkdir(this.o.dir, { recursive: true });
    return this.#ready;
  }

  /** Keeps a slice locally without publishing it (no HLS output, e.g. snapshot-only sessions). */
  keep(s: ClosedSliceFile): void {
    this.slices.push({ path: s.localPath, startMs: s.startMs });
    this.firstStartMs ??= s.startMs;
    this.lastEndMs = s.startMs + Math.round(s.durationSec * 1000);
  }

  /** Uploads a closed slice, appends it to the playlist and uploads the playlist. */
  async addSlice(s: ClosedSliceFile): Promise<SliceOutcome> {
    const name = this.o.sliceName(s.startMs, s.container);
    const res = await this.o.upload.enqueue(s.localPath, this.o.upload.objectKey(name));
    if (!res.ok) return { ok: false, message: res.message };
    const startsStream = this.#newStream;
    const discontinueUtcMs = startsStream && this.lastEndMs !== undefined ? this.lastEndMs : s.startMs;
    this.#playlist = appendSlice(this.#playlist, { uri: name, durationSec: s.durationSec, startMs: s.startMs, newStream: startsStream });
    this.#newStream = false;
    this.slices.push({ path: s.localPath, startMs: s.startMs });
    this.firstStartMs ??= s.startMs;
    this.lastEndMs = s.startMs + Math.round(s.durationSec * 1000);
    await this.#mkdir();
    // Restart recovery reads this journal to find slices closed but never handed to the uploader.
    await appendFile(join(this.o.dir, JOURNAL_FILE), JSON.stringify({ localPath: s.localPath, uri: name, startMs: s.startMs, durationSec: s.durationSec }) + '\n');
    const wasSent = this.#playlistSent;
    const playlistUploaded = await this.uploadPlaylist();
    return { ok: true, key: res.key, startsStream, discontinueUtcMs, firstPlaylist: playlistUploaded && !wasSent, playlistUploaded };
  }

  /** Writes the playlist and hands it to the uploader (same key each time: the newest copy wins). */
  async uploadPlaylist(): Promise<boolean> {
    await this.#mkdir();
    const local = join(this.o.dir, PLAYLIST_FILE);
    await writeFile(local, renderPlaylist(this.#playlist, this.o.render));
    const res = await this.o.upload.enqueue(local, this.playlistKey, { contentType: PLAYLIST_CONTENT_TYPE });
    if (res.ok) this.#playlistSent = true;
    return res.ok;
  }

  /** `#EXT-X-ENDLIST` and a last upload; nothing for a track that recorded nothing. */
  async end(): Promise<void> {
    if (!this.recorded || this.#playlist.ended) return;
    this.#playlist = endPlaylist(this.#playlist);
    await this.uploadPlaylist();
  }
}

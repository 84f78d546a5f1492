/**
 * The layout's background images: each URL fetched once through the outbound guard (src/net), decoded from JPEG or
 * BMP (the spec's formats) or PNG (reeltime's extension) to I420 by ffmpeg, no larger than the canvas. A URL that cannot be fetched or decoded yields null (the
 * caller warns and draws the colour): an image never stops a recording.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FFMPEG_BIN, FFPROBE_BIN } from '../../media/index.ts';
import { i420FromBytes, type CanvasSize, type I420Frame, type MixLayoutSettings, type PlacedImage } from '../../media/mix/index.ts';
import type { MixImages } from '../../media/mix/live/index.ts';
import { guardedFetch, type OutboundPolicy } from '../../net/index.ts';
import { runChild } from '../../process/index.ts';
import { layoutImageUrls } from './options.ts';

/** Largest image accepted (bytes): the spec's 6 MB for background images (read as MiB, the larger reading). */
export const MAX_IMAGE_BYTES = 6 * 1024 * 1024;

/** ffprobe codec names of the accepted formats: JPEG and BMP as the spec says, PNG as reeltime's extension. */
const IMAGE_CODECS: ReadonlySet<string> = new Set(['mjpeg', 'bmp', 'png']);
const FETCH_TIMEOUT_MS = 10_000;

export interface ImageLoaderOptions {
  readonly policy: OutboundPolicy;
  readonly workDir: string;
  readonly canvas: CanvasSize;
  /** A URL gave no picture; `reason` is safe to log (no query string). */
  readonly onFailure: (url: string, reason: string) => void;
}

/** Even size no larger than `bound`, aspect kept. */
export function boundedSize(w: number, h: number, bound: CanvasSize): { width: number; height: number } {
  const scale = Math.min(1, bound.width / w, bound.height / h);
  const even = (n: number) => Math.max(2, Math.round((n * scale) / 2) * 2);
  return { width: even(w), height: even(h) };
}

export class ImageLoader {
  readonly #cache = new Map<string, Promise<I420Frame | null>>();
  readonly #loaded = new Map<string, I420Frame>();
  #seq = 0;

  constructor(private readonly o: ImageLoaderOptions) {}

  /** The pictures of a layout once every URL it names has been tried; URLs seen before are not fetched again. */
  async imagesOf(s: MixLayoutSettings): Promise<MixImages> {
    await Promise.all(layoutImageUrls(s).map((u) => this.load(u)));
    return this.loadedImagesOf(s);
  }

  /** The pictures of a layout that are already decoded (the others absent until they are). */
  loadedImagesOf(s: MixLayoutSettings): MixImages {
    const get = (url: string | null) => (url ? (this.#loaded.get(url) ?? null) : null);
    const users = new Map<string, PlacedImage>();
    for (const b of s.userBackgrounds) {
      const frame = get(b.imageUrl);
      if (frame) users.set(b.uid, { frame, renderMode: b.renderMode });
    }
    return { canvas: get(s.backgroundImageUrl), defaultUser: get(s.defaultUserBackgroundImageUrl), users };
  }

  load(url: string): Promise<I420Frame | null> {
    let p = this.#cache.get(url);
    if (!p) {
      p = this.#fetchAndDecode(url).then(
        (frame) => {
          this.#loaded.set(url, frame);
          return frame;
        },
        (e: Error) => {
          this.o.onFailure(url, e.message);
          return null;
        },
      );
      this.#cache.set(url, p);
    }
    return p;
  }

  async #fetchAndDecode(url: string): Promise<I420Frame> {
    const res = await guardedFetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), maxRedirects: 3 }, this.o.policy);
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status}`);
    }
    const bytes = await readAtMost(res, MAX_IMAGE_BYTES);
    await mkdir(this.o.workDir, { recursive: true });
    const file = join(this.o.workDir, `image-${this.#seq++}`);
    await writeFile(file, bytes);
    try {
      return await decodeImage(file, this.o.canvas);
    } finally {
      await rm(file, { force: true });
    }
  }
}

/** The body, refused as soon as it passes `limit` bytes (the rest is not read). */
async function readAtMost(res: Response, limit: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await res.body?.cancel();
    throw new Error(`image of ${declared} bytes is over the ${limit}-byte limit`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader?.cancel().catch(() => {});
      throw new Error(`image is over the ${limit}-byte limit`);
    }
    chunks.push(Buffer.from(next.value));
  }
  if (size === 0) throw new Error('image of 0 bytes');
  return Buffer.concat(chunks, size);
}

/** A JPEG, BMP or PNG file as I420, scaled down to fit `bound` (ffprobe for the size, ffmpeg to decode). */
export async function decodeImage(file: string, bound: CanvasSize): Promise<I420Frame> {
  const probe = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', file], {
    timeoutMs: 10_000,
  });
  const stream = (JSON.parse(probe.stdout.toString('utf8') || '{}') as { streams?: { codec_name?: string; width?: number; height?: number }[] }).streams?.[0];
  if (probe.code !== 0 || !stream?.width || !stream.height) throw new Error('not a picture');
  if (!IMAGE_CODECS.has(stream.codec_name ?? '')) throw new Error(`not JPEG, BMP or PNG (${stream.codec_name})`);
  const { width, height } = boundedSize(stream.width, stream.height, bound);
  const out = await runChild(
    FFMPEG_BIN,
    ['-v', 'error', '-nostdin', '-i', file, '-frames:v', '1', '-vf', `scale=${width}:${height}`, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'],
    { timeoutMs: 20_000 },
  );
  if (out.code !== 0) throw new Error('could not decode the picture');
  return i420FromBytes(out.stdout, width, height);
}

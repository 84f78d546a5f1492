/**
 * A replay publisher's media: the RTP of the synthetic publisher's own ffmpeg encode (same arguments, see
 * ffmpeg-args.ts), run once faster than real time and captured from loopback UDP, cut to a whole loop per kind and
 * kept on disk under a hash of the ffmpeg arguments and the loop. The pacer (replay.ts) sends it in real time, loop
 * after loop, so a busy machine no longer makes the publisher fall behind: only the capture encodes, once per
 * machine and set of parameters (docs/channel.md, "Publishers and test helpers").
 *
 * Why RTP and not a media file with a `-re -c copy` ffmpeg per publisher: the packets need no second ffmpeg process
 * and no UDP hop per publisher, and a loop can continue the numbers exactly (whole frames and whole Opus packets per
 * loop), which a copying ffmpeg's `-stream_loop` does not (it offsets by the longer stream's duration).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChild } from '../../process/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { FRAME_CODE, syntheticFfmpegArgs, type SyntheticMedia } from './ffmpeg-args.ts';

/** One kind's packets of one loop. */
export interface ReplayTrack {
  /** RTP packets in send order, as ffmpeg sent them (RTCP left out). */
  readonly packets: readonly Buffer[];
  /** Each packet's RTP timestamp less the first packet's. */
  readonly offsets: readonly number[];
  /** A loop's length in RTP ticks: the next loop's timestamps are this much later. */
  readonly loopTicks: number;
  readonly clockRate: number;
  /** Video frames in a loop (VP8 picture IDs go on by this much per loop); 0 for audio. */
  readonly frames: number;
}

export type ReplayMedia = Readonly<Record<MediaKind, ReplayTrack>>;

/** libopus's default frame (ffmpeg sends one per RTP packet). */
const OPUS_FRAME_MS = 20;
const CLOCK_RATE: Record<MediaKind, number> = { audio: 48_000, video: 90_000 };
/** Bumped when the file layout or the capture changes, so old cache files are not read. */
const FORMAT = 'reeltime-replay-1';
/** ffmpeg encodes this much past the loop, so that the loop's last frame and packet are whole. */
const TAIL_SECONDS = 1;
const MAX_SECONDS = 600;
/** A capture that lost a datagram (a busy reader) is made again, at most this often in all. */
const CAPTURE_TRIES = 3;
/**
 * The capture runs ffmpeg at most this many times real time (`-readrate`), so that what a busy reader has not read
 * yet stays inside the socket buffer however fast the machine encodes: a 640x360 VP8 loop is about 0.9 MB for 31 s,
 * so 16× is about 0.5 MB/s against a 4 MB buffer (8 s of a reader that does not read). A capture takes 1/16 of its
 * media time: at 8× the first publishers of a test file waited 4-9 s for their media.
 */
const CAPTURE_READ_RATE = 16;
const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

/** Where cache files live: shared by every process on the machine (parallel test files read the same files). */
export const REPLAY_CACHE_DIR = join(tmpdir(), 'reeltime-synthetic-media');

/**
 * Cache files unused for this long are removed when a new one is written (a file's mtime is refreshed at each
 * read), and so are temporary files of captures that died before their rename: the folder lives in the machine's
 * temp dir and would otherwise only grow, one file per set of parameters ever used.
 */
export const REPLAY_CACHE_MAX_IDLE_MS = 7 * 24 * 3600_000;
const STALE_TMP_MS = 3600_000;

/** Removes cache files idle for longer than `maxIdleMs` and stale temporary files; returns the names removed. */
export async function pruneReplayCache(dir: string, nowMs: number, maxIdleMs = REPLAY_CACHE_MAX_IDLE_MS): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const limit = name.endsWith('.tmp') ? STALE_TMP_MS : name.endsWith('.rtp') ? maxIdleMs : undefined;
    if (limit === undefined) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && nowMs - info.mtimeMs > limit) {
      await rm(path, { force: true });
      removed.push(name);
    }
  }
  return removed;
}

export interface LoopPlan {
  readonly videoFrames: number;
  readonly audioPackets: number;
  /** Media ffmpeg renders for the capture. */
  readonly encodeSeconds: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * A loop of at least `seconds`. Video: whole frames, and with `frameCode` a whole number of frame-code periods (1024
 * frames), so the code a frame shows stays its index modulo 1024 across loops. Audio: whole Opus packets covering
 * the video's loop, and with `toneTurns` whole periods, so the turns keep their place on the media timeline.
 */
export function loopPlan(m: SyntheticMedia, seconds: number): LoopPlan {
  if (!(Number.isFinite(seconds) && seconds >= 1 && seconds <= MAX_SECONDS)) {
    throw new RangeError(`replaySeconds must be between 1 and ${MAX_SECONDS}, got ${seconds}`);
  }
  if (!Number.isInteger(m.fps) || m.fps < 1 || CLOCK_RATE.video % m.fps !== 0) {
    throw new RangeError(`fps must divide 90000 for a replay publisher (whole RTP ticks per frame), got ${m.fps}`);
  }
  const codePeriod = 2 ** FRAME_CODE.bits;
  let videoFrames = Math.ceil(seconds * m.fps);
  if (m.frameCode) videoFrames = Math.ceil(videoFrames / codePeriod) * codePeriod;
  const videoMs = (videoFrames * 1000) / m.fps;
  let stepMs = OPUS_FRAME_MS;
  if (m.toneTurns) {
    const periodMs = m.toneTurns.periodSec * 1000;
    if (!Number.isInteger(periodMs) || periodMs <= 0) {
      throw new RangeError(`toneTurns.periodSec must be a whole number of milliseconds for a replay publisher, got ${m.toneTurns.periodSec}`);
    }
    stepMs = (periodMs * OPUS_FRAME_MS) / gcd(periodMs, OPUS_FRAME_MS);
  }
  const audioMs = Math.ceil(videoMs / stepMs) * stepMs;
  return {
    videoFrames,
    audioPackets: audioMs / OPUS_FRAME_MS,
    encodeSeconds: Math.ceil(Math.max(videoMs, audioMs) / 1000) + TAIL_SECONDS,
  };
}

const captureRendering = (plan: LoopPlan) => ({ realtime: false, seconds: plan.encodeSeconds, readRate: CAPTURE_READ_RATE }) as const;

/** The cache file's name: the capture's own ffmpeg arguments (ports aside) and the loop, hashed. */
export function replayCacheKey(m: SyntheticMedia, plan: LoopPlan): string {
  const args = syntheticFfmpegArgs(m, 0, 0, captureRendering(plan));
  return createHash('sha256').update(JSON.stringify({ format: FORMAT, args, plan })).digest('hex').slice(0, 32);
}

class CaptureGap extends Error {}

const stepTicks = (kind: MediaKind, fps: number): number => (kind === 'video' ? CLOCK_RATE.video / fps : (CLOCK_RATE.audio * OPUS_FRAME_MS) / 1000);
const loopUnits = (kind: MediaKind, plan: LoopPlan): number => (kind === 'video' ? plan.videoFrames : plan.audioPackets);

/**
 * `packets` as one loop: consecutive sequence numbers (else CaptureGap: a datagram was lost) and exactly the loop's
 * frames or Opus packets at their regular times, so a loop joins the next without a jump (else Error).
 */
function asLoop(kind: MediaKind, packets: readonly Buffer[], plan: LoopPlan, fps: number): ReplayTrack {
  if (packets.length === 0) throw new Error(`no ${kind} RTP for the replay loop`);
  for (let i = 1; i < packets.length; i++) {
    if (packets[i]!.readUInt16BE(2) !== ((packets[i - 1]!.readUInt16BE(2) + 1) & 0xffff)) throw new CaptureGap(`${kind} packet ${i} missing`);
  }
  const step = stepTicks(kind, fps);
  const units = loopUnits(kind, plan);
  const ts0 = packets[0]!.readUInt32BE(4);
  const offsets = packets.map((p) => (p.readUInt32BE(4) - ts0) >>> 0);
  let distinct = 0;
  for (let i = 0; i < offsets.length; i++) {
    if (i > 0 && offsets[i] === offsets[i - 1]) continue; // another packet of the same video frame
    if (offsets[i] !== distinct * step) throw new Error(`the ${kind} replay loop has a ${kind === 'video' ? 'frame' : 'packet'} at tick ${offsets[i]}, expected ${distinct * step}`);
    distinct++;
  }
  if (distinct !== units) throw new Error(`the ${kind} replay loop has ${distinct} ${kind === 'video' ? 'frames' : 'packets'}, expected ${units}`);
  return { packets, offsets, loopTicks: units * step, clockRate: CLOCK_RATE[kind], frames: kind === 'video' ? units : 0 };
}

/** One kind's captured datagrams (RTCP among them) → its first loop. */
export function cutLoop(kind: MediaKind, datagrams: readonly Buffer[], plan: LoopPlan, fps: number): ReplayTrack {
  const rtp = datagrams.filter((d) => d.length >= 12 && !(d[1]! >= 200 && d[1]! <= 204));
  if (rtp.length === 0) throw new Error(`the ${kind} capture got no RTP`);
  const loopTicks = loopUnits(kind, plan) * stepTicks(kind, fps);
  const ts0 = rtp[0]!.readUInt32BE(4);
  // The first packet at or past the loop's end: the encode ran on past it, so the loop's last frame is whole.
  const end = rtp.findIndex((p) => ((p.readUInt32BE(4) - ts0) >>> 0) >= loopTicks);
  if (end < 0) throw new Error(`the ${kind} capture ended before its replay loop (${loopTicks / CLOCK_RATE[kind]} s)`);
  return asLoop(kind, rtp.slice(0, end), plan, fps);
}

async function bound(): Promise<Socket> {
  const sock = createSocket({ type: 'udp4', recvBufferSize: RECV_BUFFER_BYTES });
  await new Promise<void>((resolve) => sock.bind(0, '127.0.0.1', resolve));
  return sock;
}

/** ffmpeg's RTP of one encode, per kind, as datagrams. */
async function captureOnce(m: SyntheticMedia, plan: LoopPlan): Promise<Record<MediaKind, Buffer[]>> {
  const socks = { video: await bound(), audio: await bound() };
  const got: Record<MediaKind, Buffer[]> = { video: [], audio: [] };
  let lastAt = Date.now();
  for (const kind of ['video', 'audio'] as const) {
    socks[kind].on('message', (msg) => {
      got[kind].push(msg);
      lastAt = Date.now();
    });
  }
  try {
    const args = syntheticFfmpegArgs(m, socks.video.address().port, socks.audio.address().port, captureRendering(plan));
    const r = await runChild('ffmpeg', args, { timeoutMs: 600_000 });
    if (r.code !== 0) throw new Error(`the replay capture's ffmpeg failed (${r.code ?? r.signal}): ${r.stderr.trim().slice(-500)}`);
    // Datagrams still in the sockets' buffers come in on the next turns of the event loop.
    while (Date.now() - lastAt < 200) await new Promise((r) => setTimeout(r, 50));
    return got;
  } finally {
    socks.video.close();
    socks.audio.close();
  }
}

async function capture(m: SyntheticMedia, plan: LoopPlan): Promise<ReplayMedia> {
  for (let attempt = 1; ; attempt++) {
    const got = await captureOnce(m, plan);
    try {
      return { video: cutLoop('video', got.video, plan, m.fps), audio: cutLoop('audio', got.audio, plan, m.fps) };
    } catch (e) {
      if (!(e instanceof CaptureGap) || attempt >= CAPTURE_TRIES) throw e;
    }
  }
}

/** File layout: FORMAT, a newline, then per packet a kind byte (0 audio, 1 video), a 16-bit length and the packet. */
function serialize(media: ReplayMedia): Buffer {
  const parts: Buffer[] = [Buffer.from(`${FORMAT}\n`)];
  for (const [code, kind] of [[0, 'audio'], [1, 'video']] as const) {
    for (const p of media[kind].packets) {
      const head = Buffer.alloc(3);
      head.writeUInt8(code, 0);
      head.writeUInt16BE(p.length, 1);
      parts.push(head, p);
    }
  }
  return Buffer.concat(parts);
}

function parse(file: Buffer, plan: LoopPlan, fps: number): ReplayMedia {
  const magic = Buffer.from(`${FORMAT}\n`);
  if (!file.subarray(0, magic.length).equals(magic)) throw new Error('not a replay cache file of this version');
  const got: Record<MediaKind, Buffer[]> = { audio: [], video: [] };
  for (let at = magic.length; at < file.length; ) {
    if (at + 3 > file.length) throw new Error('truncated replay cache file');
    const kind = file[at] === 0 ? 'audio' : 'video';
    const len = file.readUInt16BE(at + 1);
    if (at + 3 + len > file.length) throw new Error('truncated replay cache file');
    got[kind].push(file.subarray(at + 3, at + 3 + len));
    at += 3 + len;
  }
  return { video: asLoop('video', got.video, plan, fps), audio: asLoop('audio', got.audio, plan, fps) };
}

const loaded = new Map<string, Promise<ReplayMedia>>();

/**
 * The replay media of `m` with a loop of at least `seconds`: from this process's memory, the cache file, or a new
 * capture (written under a temporary name and renamed, so a parallel process reads a whole file or none).
 */
export function replayMedia(m: SyntheticMedia, seconds: number): Promise<ReplayMedia> {
  const plan = loopPlan(m, seconds);
  const key = replayCacheKey(m, plan);
  let media = loaded.get(key);
  if (!media) {
    media = load(m, plan, key);
    loaded.set(key, media);
    media.catch(() => loaded.delete(key));
  }
  return media;
}

async function load(m: SyntheticMedia, plan: LoopPlan, key: string): Promise<ReplayMedia> {
  const file = join(REPLAY_CACHE_DIR, `${key}.rtp`);
  try {
    const media = parse(await readFile(file), plan, m.fps);
    // Marks the file as used, for pruneReplayCache.
    const now = new Date();
    await utimes(file, now, now).catch(() => {});
    return media;
  } catch {
    // Absent, or unreadable (then made again below).
  }
  const media = await capture(m, plan);
  await mkdir(REPLAY_CACHE_DIR, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, serialize(media));
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await pruneReplayCache(REPLAY_CACHE_DIR, Date.now());
  return media;
}

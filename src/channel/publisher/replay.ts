/**
 * The replay publisher's pacer: sends a ReplayMedia's packets at their media times from its start, loop after loop,
 * as one RTP stream per kind with its own random SSRC, sequence numbers and timestamps (as each ffmpeg run picks
 * them). Each loop continues the previous one's numbers: sequence numbers by the loop's packet count, timestamps by
 * its length, VP8 picture IDs by its frame count, so a receiver sees one unbroken stream. Packets of one video frame
 * go out together, as ffmpeg sends them. A late timer (busy event loop) sends what has come due at once, as a
 * socket's queue would. `packetAt` and `dueMs` are pure; the class only holds the timer.
 */
import { randomBytes } from 'node:crypto';
import type { MediaKind } from '../membership/index.ts';
import type { ReplayMedia, ReplayTrack } from './replay-cache.ts';

/** The numbers one replayed stream starts from. */
export interface StreamBase {
  readonly ssrc: number;
  readonly sequence: number;
  readonly timestamp: number;
}

export function randomBase(): StreamBase {
  const r = randomBytes(10);
  return { ssrc: r.readUInt32BE(0), sequence: r.readUInt16BE(4), timestamp: r.readUInt32BE(6) };
}

/** Where a VP8 payload descriptor's picture ID is (RFC 7741 §4.2), if it has one. */
function vp8PictureId(p: Buffer): { at: number; bits: 7 | 15 } | undefined {
  const cc = p[0]! & 0x0f;
  let at = 12 + 4 * cc;
  if (p[0]! & 0x10) at += 4 + 4 * p.readUInt16BE(at + 2);
  if (at + 3 > p.length || !(p[at]! & 0x80) || !(p[at + 1]! & 0x80)) return undefined; // no X, or no I
  return p[at + 2]! & 0x80 ? { at: at + 2, bits: 15 } : { at: at + 2, bits: 7 };
}

/** A copy of packet `index` of `track` as it goes out in loop `loop` of the stream starting at `base`. */
export function packetAt(track: ReplayTrack, index: number, loop: number, base: StreamBase, vp8: boolean): Buffer {
  const src = track.packets[index]!;
  const p = Buffer.from(src);
  // A loop's sequence numbers are consecutive (replay-cache.ts checks them), so the index stands for them.
  p.writeUInt16BE((base.sequence + loop * track.packets.length + index) & 0xffff, 2);
  p.writeUInt32BE((base.timestamp + loop * track.loopTicks + track.offsets[index]!) >>> 0, 4);
  p.writeUInt32BE(base.ssrc >>> 0, 8);
  const pid = vp8 && loop > 0 ? vp8PictureId(p) : undefined;
  if (pid?.bits === 7) p[pid.at] = (p[pid.at]! + loop * track.frames) & 0x7f;
  else if (pid?.bits === 15) p.writeUInt16BE(0x8000 | ((p.readUInt16BE(pid.at) + loop * track.frames) & 0x7fff), pid.at);
  return p;
}

/** When packet `index` of loop `loop` is due, in ms after the replay's start. */
export const dueMs = (track: ReplayTrack, index: number, loop: number): number =>
  ((loop * track.loopTicks + track.offsets[index]!) * 1000) / track.clockRate;

interface Stream {
  readonly kind: MediaKind;
  readonly track: ReplayTrack;
  readonly base: StreamBase;
  index: number;
  loop: number;
}

export class RtpReplay {
  readonly #streams: Stream[];
  #t0 = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    media: ReplayMedia,
    private readonly videoCodec: 'vp8' | 'h264',
    private readonly send: (kind: MediaKind, packet: Buffer) => void,
  ) {
    this.#streams = (['audio', 'video'] as const).map((kind) => ({ kind, track: media[kind], base: randomBase(), index: 0, loop: 0 }));
  }

  start(): void {
    this.#t0 = performance.now();
    this.#pump();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #pump = (): void => {
    this.#timer = undefined;
    if (this.#stopped) return;
    const elapsed = performance.now() - this.#t0;
    let next = Infinity;
    for (const s of this.#streams) {
      while (dueMs(s.track, s.index, s.loop) <= elapsed) {
        this.send(s.kind, packetAt(s.track, s.index, s.loop, s.base, s.kind === 'video' && this.videoCodec === 'vp8'));
        if (this.#stopped) return;
        if (++s.index === s.track.packets.length) {
          s.index = 0;
          s.loop++;
        }
      }
      next = Math.min(next, dueMs(s.track, s.index, s.loop));
    }
    this.#timer = setTimeout(this.#pump, Math.max(0, next - (performance.now() - this.#t0)));
  };
}

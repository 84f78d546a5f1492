/**
 * The MPEG-TS packets from the latest video keyframe on (pure, no I/O). A pusher that joins a running stream is
 * handed these first, so it starts at once on a keyframe with its parameter sets, and picture and sound begin
 * together at the CDN (a pusher fed only from "now" skips video up to the next keyframe, up to 2 s, while it
 * already sends sound; a CDN that probes briefly then sees no video at all).
 *
 * The video stream is found from the PAT and PMT; a keyframe is a PES start on that stream with the random
 * access indicator, which ffmpeg's MPEG-TS muxer sets on keyframes and precedes with PAT and PMT.
 */
import { TS_PACKET_BYTES } from './pusher-args.ts';

/** PMT stream types of video: MPEG-2, H.264, H.265. */
const VIDEO_STREAM_TYPES = new Set([0x02, 0x1b, 0x24]);

/** Packet id, payload-start flag, and where the payload begins (undefined: no payload). */
function header(p: Buffer): { pid: number; start: boolean; payload: number | undefined; randomAccess: boolean } {
  const pid = ((p[1]! & 0x1f) << 8) | p[2]!;
  const start = (p[1]! & 0x40) !== 0;
  const afc = (p[3]! >> 4) & 0x3;
  let payload: number | undefined = 4;
  let randomAccess = false;
  if (afc & 0x2) {
    const len = p[4]!;
    randomAccess = len > 0 && (p[5]! & 0x40) !== 0;
    payload = 5 + len;
  }
  if (!(afc & 0x1) || payload >= TS_PACKET_BYTES) payload = undefined;
  return { pid, start, payload, randomAccess };
}

/** The section a PSI packet starts (after the pointer field), or undefined. */
function section(p: Buffer, payload: number): Buffer | undefined {
  const at = payload + 1 + p[payload]!;
  if (at + 3 > TS_PACKET_BYTES) return undefined;
  const length = ((p[at + 1]! & 0x0f) << 8) | p[at + 2]!;
  return p.subarray(at, Math.min(TS_PACKET_BYTES, at + 3 + length));
}

export class GopCache {
  #pmtPid: number | undefined;
  #videoPid: number | undefined;
  #pat: Buffer | undefined;
  #pmt: Buffer | undefined;
  #gop: Buffer[] = [];
  #gopBytes = 0;
  #full = false;

  constructor(private readonly maxBytes = 8 * 1024 * 1024) {}

  /** Takes whole TS packets (a multiple of 188 bytes, in stream order). */
  push(packets: Buffer): void {
    let from = 0;
    for (let at = 0; at < packets.length; at += TS_PACKET_BYTES) {
      const p = packets.subarray(at, at + TS_PACKET_BYTES);
      if (p[0] !== 0x47) continue;
      const h = header(p);
      if (h.pid === 0 && h.start && h.payload !== undefined) {
        this.#pat = Buffer.from(p);
        this.#readPat(p, h.payload);
      } else if (h.pid === this.#pmtPid && h.start && h.payload !== undefined) {
        this.#pmt = Buffer.from(p);
        this.#readPmt(p, h.payload);
      } else if (h.pid === this.#videoPid && h.start && h.randomAccess) {
        // A keyframe: the cache starts over with the tables and this packet.
        this.#gop = [];
        this.#gopBytes = 0;
        this.#full = false;
        for (const t of [this.#pat, this.#pmt]) if (t) this.#keep(t);
        from = at;
      }
    }
    if (this.#videoPid !== undefined && !this.#full) this.#keep(Buffer.from(packets.subarray(from)));
  }

  /** What a pusher joining now is given first: the tables and the current GOP (just the tables without video). */
  snapshot(): Buffer {
    if (this.#gop.length > 0) return Buffer.concat(this.#gop);
    return Buffer.concat([this.#pat, this.#pmt].filter((t): t is Buffer => t !== undefined));
  }

  #keep(b: Buffer): void {
    if (this.#gopBytes + b.length > this.maxBytes) {
      // No keyframe for too long: rather nothing than an unbounded cache.
      this.#gop = [];
      this.#gopBytes = 0;
      this.#full = true;
      return;
    }
    this.#gop.push(b);
    this.#gopBytes += b.length;
  }

  #readPat(p: Buffer, payload: number): void {
    const s = section(p, payload);
    if (s?.[0] !== 0x00) return;
    for (let i = 8; i + 4 <= s.length - 4; i += 4) {
      const program = (s[i]! << 8) | s[i + 1]!;
      if (program !== 0) {
        this.#pmtPid = ((s[i + 2]! & 0x1f) << 8) | s[i + 3]!;
        return;
      }
    }
  }

  #readPmt(p: Buffer, payload: number): void {
    const s = section(p, payload);
    if (s?.[0] !== 0x02 || s.length < 12) return;
    const infoLength = ((s[10]! & 0x0f) << 8) | s[11]!;
    for (let i = 12 + infoLength; i + 5 <= s.length - 4; ) {
      const type = s[i]!;
      const pid = ((s[i + 1]! & 0x1f) << 8) | s[i + 2]!;
      if (VIDEO_STREAM_TYPES.has(type)) {
        this.#videoPid = pid;
        return;
      }
      i += 5 + (((s[i + 3]! & 0x0f) << 8) | s[i + 4]!);
    }
  }
}

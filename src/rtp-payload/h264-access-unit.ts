/**
 * H.264 RTP packets (RFC 6184, packetization-mode 1) → whole access units in Annex B form, each with its RTP
 * timestamp. The recorder hands these to ffmpeg in a container that carries a timestamp per frame, because
 * ffmpeg's own H.264 RTP input stamps every frame after the first with the previous frame's timestamp
 * (docs/recording-individual.md, "A/V sync"). Pure: packets in, units out.
 */
import { H264ParameterSets, h264Nals, NAL } from './h264.ts';
import { readRtpHeader } from './rtp-header.ts';

export interface H264AccessUnit {
  /** The RTP timestamp all of its packets carried. */
  readonly timestamp: number;
  /** NAL units, each after a 4-byte start code. */
  readonly annexB: Buffer;
  /** The same NAL units, without start codes. */
  readonly units: readonly Buffer[];
  /** It holds an IDR slice (a decoder can start here). */
  readonly key: boolean;
}

const START_CODE = Buffer.from([0, 0, 0, 1]);

/**
 * Packets come in sequence order (the jitter buffer's output, or the network's for a clean link). A unit ends at
 * the marker bit or when a packet of a later timestamp arrives (with `unitEndsAt: 'timestamp'`, only then: for a
 * sender that sets the marker after each slice of a picture). A unit with a sequence gap inside it or an FU-A
 * fragment missing is dropped whole: a decoder would show it corrupt, and the repair in front already asks for a
 * keyframe when it gives a packet up.
 */
export class H264AccessUnitAssembler {
  #timestamp: number | undefined;
  #units: Buffer[] = [];
  /** Fragments of the FU-A unit being put together (its rebuilt header first). */
  #fragments: Buffer[] | undefined;
  #broken = false;
  #key = false;
  #lastSeq: number | undefined;
  readonly #parameterSets: H264ParameterSets;
  readonly #endAtMarker: boolean;
  /** Units dropped so far because a packet of theirs was missing. */
  dropped = 0;

  /** `sprop` is the track's fmtp sprop-parameter-sets, if any (prepended to an IDR unit that lacks them). */
  constructor(sprop?: string, opts: { readonly unitEndsAt?: 'marker' | 'timestamp' } = {}) {
    this.#parameterSets = new H264ParameterSets(sprop);
    this.#endAtMarker = (opts.unitEndsAt ?? 'marker') === 'marker';
  }

  /** One RTP packet; returns the units it completed (none, one, or the previous one and its own). */
  push(packet: Buffer): H264AccessUnit[] {
    const h = readRtpHeader(packet);
    if (!h) return [];
    const out: H264AccessUnit[] = [];
    const gap = this.#lastSeq !== undefined && h.sequenceNumber !== ((this.#lastSeq + 1) & 0xffff);
    if (this.#timestamp !== undefined && h.timestamp !== this.#timestamp) {
      // Without trusted marker bits, packets missing between two pictures may have belonged to either.
      if (gap && !this.#endAtMarker) this.#broken = true;
      this.#finish(out);
    }
    // After a marker, a gap can be padding the jitter buffer kept back: only a gap inside a unit breaks it there.
    if (gap && (this.#timestamp !== undefined || !this.#endAtMarker)) this.#broken = true;
    this.#lastSeq = h.sequenceNumber;
    this.#timestamp = h.timestamp;
    const payload = packet.subarray(h.payloadOffset, h.payloadEnd);
    this.#parameterSets.observe(payload);
    this.#add(payload);
    if (h.marker && this.#endAtMarker) this.#finish(out);
    return out;
  }

  /** The unit in progress, if complete (end of stream without a marker bit). */
  flush(): H264AccessUnit[] {
    const out: H264AccessUnit[] = [];
    this.#finish(out);
    return out;
  }

  #add(p: Buffer): void {
    if (p.length < 1) return;
    const type = p[0]! & 0x1f;
    if ((type >= 1 && type <= 23) || type === NAL.stapA) {
      const nals = h264Nals(p);
      // A STAP-A whose sizes do not add up is cut short: h264Nals keeps what was complete, this unit is broken.
      const bytes = type === NAL.stapA ? 1 + nals.reduce((n, x) => n + 2 + x.unit!.length, 0) : p.length;
      if (nals.length === 0 || bytes !== p.length) this.#broken = true;
      for (const n of nals) this.#unit(n.unit!);
      return;
    }
    if (type === NAL.fuA && p.length >= 2) {
      const start = (p[1]! & 0x80) !== 0;
      const end = (p[1]! & 0x40) !== 0;
      if (start) {
        if (this.#fragments) this.#broken = true;
        this.#fragments = [Buffer.from([(p[0]! & 0xe0) | (p[1]! & 0x1f)])];
      } else if (!this.#fragments) {
        this.#broken = true;
        return;
      }
      this.#fragments.push(p.subarray(2));
      if (end) {
        this.#unit(Buffer.concat(this.#fragments));
        this.#fragments = undefined;
      }
      return;
    }
    this.#broken = true; // STAP-B, MTAP, FU-B: interleaved mode only, never negotiated
  }

  #unit(u: Buffer): void {
    if ((u[0]! & 0x1f) === NAL.idrSlice) this.#key = true;
    this.#units.push(u);
  }

  #finish(out: H264AccessUnit[]): void {
    const timestamp = this.#timestamp;
    const units = this.#units;
    const broken = this.#broken || this.#fragments !== undefined;
    const complete = !broken && units.length > 0;
    const key = this.#key;
    this.#units = [];
    this.#fragments = undefined;
    this.#broken = false;
    this.#key = false;
    this.#timestamp = undefined;
    if (timestamp === undefined) return;
    if (!complete) {
      if (units.length > 0 || broken) this.dropped++;
      return;
    }
    const types = new Set(units.map((u) => u[0]! & 0x1f));
    const sets = this.#parameterSets.latest();
    const lead = key && sets && !(types.has(NAL.sps) && types.has(NAL.pps)) ? [sets.sps, sets.pps] : [];
    const all = [...lead, ...units];
    const parts: Buffer[] = [];
    for (const u of all) parts.push(START_CODE, u);
    out.push({ timestamp, annexB: Buffer.concat(parts), units: all, key });
  }
}

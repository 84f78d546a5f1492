/**
 * H.264 over RTP (RFC 6184, packetization-mode 1) as far as a forwarding SFU needs it: which NAL units a payload
 * carries, where a decoder can start, and the parameter sets a new viewer needs first (docs/channel.md, "Clean
 * starts"). Pure functions over payload bytes.
 */

/** nal_unit_type values (H.264 table 7-1, RFC 6184 section 5.2). */
export const NAL = { slice: 1, idrSlice: 5, sei: 6, sps: 7, pps: 8, stapA: 24, fuA: 28 } as const;

/** One NAL unit, or one FU-A fragment of it, found in an RTP payload. */
export interface H264Nal {
  /** nal_unit_type of the unit (for a fragment, of the unit it belongs to). */
  readonly type: number;
  /** The whole unit, header byte included; undefined for FU-A fragments. */
  readonly unit: Buffer | undefined;
  /** A slice (or the FU-A fragment that starts one) whose first_mb_in_slice is 0: the first slice of a picture. */
  readonly firstSlice: boolean;
}

const isSlice = (type: number) => type === NAL.slice || type === NAL.idrSlice;
/** first_mb_in_slice is the slice header's first ue(v); the value 0 is the single bit 1. */
const firstMbIsZero = (sliceData: number | undefined) => sliceData !== undefined && (sliceData & 0x80) !== 0;

/** The NAL units of one payload: a single unit, each unit of a STAP-A, or an FU-A fragment. */
export function h264Nals(p: Buffer): H264Nal[] {
  if (p.length < 1) return [];
  const type = p[0]! & 0x1f;
  if (type >= 1 && type <= 23) return [{ type, unit: p, firstSlice: isSlice(type) && firstMbIsZero(p[1]) }];
  if (type === NAL.stapA) {
    const out: H264Nal[] = [];
    let i = 1;
    while (i + 2 < p.length) {
      const size = p.readUInt16BE(i);
      const end = i + 2 + size;
      if (size === 0 || end > p.length) break; // malformed: keep what was complete
      const unit = p.subarray(i + 2, end);
      const t = unit[0]! & 0x1f;
      out.push({ type: t, unit, firstSlice: isSlice(t) && firstMbIsZero(unit[1]) });
      i = end;
    }
    return out;
  }
  if (type === NAL.fuA) {
    if (p.length < 2) return [];
    const t = p[1]! & 0x1f;
    const start = (p[1]! & 0x80) !== 0;
    return [{ type: t, unit: undefined, firstSlice: start && isSlice(t) && firstMbIsZero(p[2]) }];
  }
  return []; // STAP-B, MTAP, FU-B: interleaved mode only, never negotiated here
}

/**
 * Whether a decoder can start at this payload: it carries the first slice of an IDR picture. `withParameterSets`
 * tells whether an SPS and a PPS come before that slice in the same payload (a STAP-A such as [SPS, PPS, IDR]).
 */
export function h264IdrStart(p: Buffer): { readonly withParameterSets: boolean } | undefined {
  let sps = false;
  let pps = false;
  for (const n of h264Nals(p)) {
    if (n.type === NAL.sps) sps = true;
    else if (n.type === NAL.pps) pps = true;
    else if (n.type === NAL.idrSlice && n.firstSlice) return { withParameterSets: sps && pps };
  }
  return undefined;
}

/** A STAP-A payload aggregating `units` (its NRI is the highest of theirs, RFC 6184 section 5.7.1). */
export function stapA(units: readonly Buffer[]): Buffer {
  const nri = Math.max(0, ...units.map((u) => u[0]! & 0x60));
  const parts: Buffer[] = [Buffer.from([nri | NAL.stapA])];
  for (const u of units) {
    const size = Buffer.alloc(2);
    size.writeUInt16BE(u.length);
    parts.push(size, u);
  }
  return Buffer.concat(parts);
}

export interface H264ParameterSetPair {
  readonly sps: Buffer;
  readonly pps: Buffer;
}

/**
 * The latest SPS and PPS a publisher sent, in band or in its offer's sprop-parameter-sets. A viewer that starts at
 * an IDR whose parameter sets went by before it joined (or were only ever sent once) gets these first.
 * One of each is kept: WebRTC encoders use a single SPS and PPS (id 0) per stream.
 */
export class H264ParameterSets {
  #sps: Buffer | undefined;
  #pps: Buffer | undefined;

  /** `sprop` is the fmtp value "base64,base64,..." (RFC 6184 section 8.1), if the offer had one. */
  constructor(sprop?: string) {
    for (const b64 of sprop?.split(',') ?? []) {
      const unit = Buffer.from(b64.trim(), 'base64');
      if (unit.length > 0) this.#keep(unit);
    }
  }

  /** Notes the parameter sets carried by one payload (whole units only; fragmented SPS/PPS are not kept). */
  observe(payload: Buffer): void {
    const type = (payload[0] ?? 0) & 0x1f;
    if (type !== NAL.sps && type !== NAL.pps && type !== NAL.stapA) return; // the common case costs one byte read
    for (const n of h264Nals(payload)) if (n.unit) this.#keep(n.unit);
  }

  latest(): H264ParameterSetPair | undefined {
    return this.#sps && this.#pps ? { sps: this.#sps, pps: this.#pps } : undefined;
  }

  #keep(unit: Buffer): void {
    const type = unit[0]! & 0x1f;
    // Copies: the payload buffer belongs to the packet, which werift may reuse.
    if (type === NAL.sps && !this.#sps?.equals(unit)) this.#sps = Buffer.from(unit);
    else if (type === NAL.pps && !this.#pps?.equals(unit)) this.#pps = Buffer.from(unit);
  }
}

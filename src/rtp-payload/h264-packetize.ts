/**
 * Whole H.264 access units → RTP packets (RFC 6184, packetization mode 1), and the re-framing of an ingest's H.264
 * RTP on its way into a channel (docs/ingest.md, "Cameras that slice their pictures"). Pure: packets in, packets out.
 */
import { H264AccessUnitAssembler } from './h264-access-unit.ts';
import { NAL, stapA } from './h264.ts';
import { readRtpHeader } from './rtp-header.ts';

/** nal_unit_type 9: an access unit delimiter, which WebRTC receivers neither need nor expect. */
const ACCESS_UNIT_DELIMITER = 9;
const FU_HEADER_BYTES = 2;

/**
 * The RTP payloads of one access unit's NAL units (without start codes), in order: the parameter sets together in
 * one STAP-A when they fit, every other unit as itself when it fits in `maxPayload` bytes, else as FU-A fragments.
 */
export function h264Payloads(units: readonly Buffer[], maxPayload: number): Buffer[] {
  const out: Buffer[] = [];
  const sets = units.filter((u) => isParameterSet(u));
  const aggregated = sets.length > 1 && 1 + sets.reduce((n, u) => n + 2 + u.length, 0) <= maxPayload;
  if (aggregated) out.push(stapA(sets));
  for (const u of units) {
    if (aggregated && isParameterSet(u)) continue;
    if (u.length <= maxPayload) {
      out.push(u);
      continue;
    }
    const indicator = (u[0]! & 0xe0) | NAL.fuA;
    const type = u[0]! & 0x1f;
    const step = maxPayload - FU_HEADER_BYTES;
    for (let i = 1; i < u.length; i += step) {
      const start = i === 1 ? 0x80 : 0;
      const end = i + step >= u.length ? 0x40 : 0;
      out.push(Buffer.concat([Buffer.from([indicator, start | end | type]), u.subarray(i, i + step)]));
    }
  }
  return out;
}

const isParameterSet = (u: Buffer) => {
  const t = u[0]! & 0x1f;
  return t === NAL.sps || t === NAL.pps;
};

/**
 * The NAL units of one picture as a WebRTC receiver wants them: at most one SPS and one PPS, before everything else,
 * no access unit delimiters. ffmpeg's RTSP input hands each slice of a picture on as a packet of its own, with the
 * parameter sets repeated before each (dump_extra), and a decoder takes a parameter set between slices for the start
 * of a new picture.
 */
export function normalizedAccessUnit(units: readonly Buffer[]): Buffer[] {
  let sps: Buffer | undefined;
  let pps: Buffer | undefined;
  const rest: Buffer[] = [];
  for (const u of units) {
    const t = u[0]! & 0x1f;
    if (t === NAL.sps) sps ??= u;
    else if (t === NAL.pps) pps ??= u;
    else if (t !== ACCESS_UNIT_DELIMITER) rest.push(u);
  }
  return [...(sps ? [sps] : []), ...(pps ? [pps] : []), ...rest];
}

/**
 * Re-frames H.264 RTP whose marker bits and parameter sets cannot be trusted (an ingest ffmpeg copying a camera's
 * stream): a picture is every packet of one RTP timestamp, whatever the marker bits say, and goes out as one access
 * unit (normalizedAccessUnit) with its own sequence numbers and the marker on its last packet only. This costs one
 * frame of delay: a picture is known whole when a packet of the next one arrives. With `unitEndsAt: 'marker'` (a
 * sender whose marker ends each picture: ffmpeg packetizing whole access units read from FLV or MPEG-TS) a picture
 * goes out at its marker, without that delay.
 *
 * A picture that lost a packet on the way (the loopback socket dropped one on a busy process) is not sent, and nor is
 * any picture after it until the next keyframe: the pictures between would reference the lost one and show corrupt.
 */
export class H264Reframer {
  readonly #assembler: H264AccessUnitAssembler;
  readonly #maxPayload: number;
  #seq: number;
  #payloadType = 96;
  #ssrc = 0;
  #waitingForKey = false;
  #droppedSeen = 0;
  /** Pictures not sent: lost on the way in, or waiting for a keyframe after one was. */
  skipped = 0;

  constructor(opts: { readonly maxPayload?: number; readonly firstSequenceNumber?: number; readonly unitEndsAt?: 'marker' | 'timestamp' } = {}) {
    this.#assembler = new H264AccessUnitAssembler(undefined, { unitEndsAt: opts.unitEndsAt ?? 'timestamp' });
    this.#maxPayload = opts.maxPayload ?? 1188;
    this.#seq = (opts.firstSequenceNumber ?? 0) & 0xffff;
  }

  /** One packet as it came; returns the packets of the picture it completed, if any. */
  push(packet: Buffer): Buffer[] {
    const h = readRtpHeader(packet);
    if (!h) return [];
    this.#payloadType = h.payloadType;
    this.#ssrc = h.ssrc;
    const out: Buffer[] = [];
    for (const unit of this.#assembler.push(packet)) out.push(...this.#send(unit.units, unit.timestamp, unit.key));
    return out;
  }

  #send(units: readonly Buffer[], timestamp: number, key: boolean): Buffer[] {
    if (this.#assembler.dropped !== this.#droppedSeen) {
      this.skipped += this.#assembler.dropped - this.#droppedSeen;
      this.#droppedSeen = this.#assembler.dropped;
      this.#waitingForKey = true;
    }
    if (this.#waitingForKey && !key) {
      this.skipped++;
      return [];
    }
    this.#waitingForKey = false;
    const payloads = h264Payloads(normalizedAccessUnit(units), this.#maxPayload);
    return payloads.map((payload, i) => {
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = (i === payloads.length - 1 ? 0x80 : 0) | this.#payloadType;
      header.writeUInt16BE(this.#seq, 2);
      header.writeUInt32BE(timestamp, 4);
      header.writeUInt32BE(this.#ssrc, 8);
      this.#seq = (this.#seq + 1) & 0xffff;
      return Buffer.concat([header, payload]);
    });
  }
}

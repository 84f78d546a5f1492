/**
 * Lost Opus packets remade for the recorder (issue 27), with libopus (WebAssembly, `libopus-wasm`): the decoder
 * behind (ffmpeg 5.1's native one) has neither in-band FEC nor a real concealment (given a lost frame it plays
 * about 60 ms of near silence, measured in `opus-loss.test.ts`), so the lost frames are made here and go on as Opus
 * packets of their own, in their place.
 * - **In-band FEC**: a SILK or hybrid packet may carry a low-bitrate copy (LBRR, RFC 6716 §4.2.4) of the frame before
 *   it; a sender makes one when its receiver signals `useinbandfec=1` and it expects loss (Chromium does, from the
 *   loss its receiver reports; ffmpeg's libopus with `-fec 1`). The frame right before such a packet is decoded
 *   from that copy.
 * - **Concealment**: every other lost frame is libopus's packet loss concealment (pitch-following, fading out).
 *
 * Nothing runs while nothing is lost. A repair warms the decoder on the packets before the gap (SILK's and CELT's
 * state is a few frames of history), decodes the lost frames and the packet after them, then warms an encoder of
 * the stream's kind (VoIP for SILK and hybrid, restricted low delay for CELT-only, so the decoder behind switches no
 * mode) on the same sound and encodes the lost frames shifted by the encoder's lookahead, so each new packet decodes
 * to its frame in place. Cost: 1.5-2 ms of CPU per repair (`opus-loss.test.ts` prints it).
 */
import { createDecoder, createEncoder, type OpusDecoderHandle, type OpusEncoderHandle } from 'libopus-wasm';
import { opusHasSilk, opusPacketSamples } from '../../rtp-payload/index.ts';

/** Packets before a gap that warm the decoder and encoder. */
export const OPUS_WARM_PACKETS = 3;
/** Lost frames remade at most in one gap (the last ones); concealment has faded out to silence before 100 ms. */
export const OPUS_REMADE_MAX = 5;

/** Opus frame sizes at 48 kHz an encoder can make (2.5–60 ms). */
const FRAME_SIZES = new Set([120, 240, 480, 960, 1920, 2880]);

export interface RemadeOpus {
  /** One packet per lost frame, oldest first. */
  readonly packets: readonly Buffer[];
  /** The last came from the in-band FEC of the packet after the gap (the others are concealed). */
  readonly lastFromFec: boolean;
}

export interface OpusLossRepair {
  /**
   * Opus packets for the last `lost` frames of `samples` (48 kHz) each before `after` (at most OPUS_REMADE_MAX), or
   * undefined when they cannot be remade (frames of other sizes). `before`: payloads received before the gap,
   * oldest first; the last ones warm the decoder and encoder.
   */
  remake(before: readonly Buffer[], after: Buffer, samples: number, lost: number): RemadeOpus | undefined;
  close(): void;
}

/** Target bitrate of the remade packets: about the sender's, from the packet after the gap (bits per second). */
function bitrateOf(payload: Buffer, samples: number): number {
  return Math.min(128_000, Math.max(16_000, Math.round((payload.length * 8 * 48_000) / samples)));
}

class LibopusLossRepair implements OpusLossRepair {
  #closed = false;

  constructor(
    private readonly decoder: OpusDecoderHandle,
    /** For SILK and hybrid streams. */
    private readonly voip: OpusEncoderHandle,
    /** For CELT-only streams. */
    private readonly celt: OpusEncoderHandle,
  ) {}

  remake(before: readonly Buffer[], after: Buffer, samples: number, lost: number): RemadeOpus | undefined {
    if (this.#closed || lost < 1 || !FRAME_SIZES.has(samples)) return undefined;
    const warm = before.slice(-OPUS_WARM_PACKETS);
    // The encoder's frames must line up with the decoded ones: every warm packet one frame of `samples`.
    if (warm.length === 0 || warm.some((p) => opusPacketSamples(p) !== samples) || opusPacketSamples(after) === undefined) return undefined;
    const count = Math.min(lost, OPUS_REMADE_MAX);
    const fec = opusHasSilk(after);
    const encoder = fec ? this.voip : this.celt;
    try {
      const pcm: Int16Array[] = warm.map((p) => this.decoder.decode(p));
      for (let i = 0; i < count - 1; i++) pcm.push(this.decoder.decodePacketLoss(samples));
      pcm.push(fec ? this.decoder.decode(after, { decodeFec: true, frameSize: samples }) : this.decoder.decodePacketLoss(samples));
      const next = this.decoder.decode(after);
      const frame = samples * this.decoder.channels;
      if (pcm.some((f) => f.length !== frame)) return undefined;
      // The sound around the lost frames, encoded from `lookahead` on: what the encoder takes in at t, its packets
      // give back at t - lookahead, so the last `count` packets made are the lost frames in place.
      const lookahead = encoder.getLookahead() * this.decoder.channels;
      if (next.length < lookahead) return undefined;
      const sound = new Int16Array(frame * pcm.length + next.length);
      pcm.forEach((f, i) => sound.set(f, i * frame));
      sound.set(next, pcm.length * frame);
      encoder.setBitrate(bitrateOf(after, samples));
      const packets: Buffer[] = [];
      for (let i = 0; i < pcm.length; i++) {
        const start = lookahead + i * frame;
        const packet = Buffer.from(encoder.encode(sound.subarray(start, start + frame), { frameSize: samples }));
        if (i >= warm.length) packets.push(packet);
      }
      return { packets, lastFromFec: fec };
    } catch {
      // A packet libopus refuses leaves the frames to the decoder behind.
      return undefined;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.decoder.free();
    this.voip.free();
    this.celt.free();
  }
}

/** A repair for one Opus stream (stereo, 48 kHz: what WebRTC's `opus/48000/2` carries). */
export async function createOpusLossRepair(): Promise<OpusLossRepair> {
  const format = { channels: 2, sampleRate: 48_000 } as const;
  const [decoder, voip, celt] = await Promise.all([
    createDecoder(format),
    createEncoder({ ...format, application: 2048, complexity: 5 }),
    createEncoder({ ...format, application: 2051, complexity: 5 }),
  ]);
  return new LibopusLossRepair(decoder, voip, celt);
}

import { decodeAmf0, type Amf0Object, FLV_TAG } from '../../rtmp/index.ts';

/** The media kinds an FLV stream carries. */
export interface FlvKindsSeen {
  readonly audio: boolean;
  readonly video: boolean;
}

/** Media time after the first tag by which both kinds have come if the source has both (they interleave closely). */
const BOTH_WITHIN_MS = 1500;
/** Bytes looked at, at most, before deciding on what came (a source sending one kind at a high bitrate). */
const MAX_BYTES = 4 * 1024 * 1024;
const HEADER_BYTES = 9 + 4;

/**
 * Which kinds an RTMP publisher's FLV stream carries, read from its first bytes, so that the ingest ffmpeg is asked
 * for those only (an encoder without a microphone, an audio-only feed): the encoder's `onMetaData` when it names
 * the codecs (`videocodecid`, `audiocodecid`: OBS and ffmpeg send it before any media), else the tags themselves:
 * both kinds once a tag of each came, one kind when 1.5 s of media time or 4 MiB went by with that kind alone.
 * `push` returns the answer once there is one (and keeps returning it). Pure: bytes in, no I/O.
 */
export class FlvKinds {
  #buf = Buffer.alloc(0);
  #at = HEADER_BYTES;
  #bytes = 0;
  #firstMs: number | undefined;
  #audio = false;
  #video = false;
  #decided: FlvKindsSeen | undefined;

  push(chunk: Buffer): FlvKindsSeen | undefined {
    if (this.#decided) return this.#decided;
    this.#bytes += chunk.length;
    this.#buf = Buffer.concat([this.#buf, chunk]);
    while (!this.#decided && this.#buf.length >= this.#at + 11) {
      const type = this.#buf[this.#at]!;
      const size = this.#buf.readUIntBE(this.#at + 1, 3);
      const end = this.#at + 11 + size + 4;
      if (this.#buf.length < end) break;
      const ms = this.#buf.readUIntBE(this.#at + 4, 3) | (this.#buf[this.#at + 7]! << 24);
      this.#tag(type, ms, this.#buf.subarray(this.#at + 11, this.#at + 11 + size));
      this.#at = end;
    }
    if (!this.#decided && this.#bytes >= MAX_BYTES) this.#decide();
    // Tags read are dropped; what is left is the start of the next one.
    if (this.#at > HEADER_BYTES) {
      this.#buf = this.#buf.subarray(this.#at);
      this.#at = 0;
    }
    return this.#decided;
  }

  #tag(type: number, ms: number, data: Buffer): void {
    if (type === FLV_TAG.script) {
      const named = metadataKinds(data);
      if (named) this.#decided = named;
      return;
    }
    if (type !== FLV_TAG.audio && type !== FLV_TAG.video) return;
    if (type === FLV_TAG.audio) this.#audio = true;
    else this.#video = true;
    this.#firstMs ??= ms;
    if ((this.#audio && this.#video) || ms - this.#firstMs >= BOTH_WITHIN_MS) this.#decide();
  }

  #decide(): void {
    this.#decided = { audio: this.#audio, video: this.#video };
  }
}

/** The kinds `onMetaData` names by their codec ids, if it names either. */
function metadataKinds(data: Buffer): FlvKindsSeen | undefined {
  let values;
  try {
    values = decodeAmf0(data);
  } catch {
    return undefined;
  }
  if (values[0] !== 'onMetaData' || typeof values[1] !== 'object' || values[1] === null) return undefined;
  const meta = values[1] as Amf0Object;
  const named = (key: string) => key in meta && meta[key] !== null && meta[key] !== undefined;
  const seen = { audio: named('audiocodecid'), video: named('videocodecid') };
  return seen.audio || seen.video ? seen : undefined;
}

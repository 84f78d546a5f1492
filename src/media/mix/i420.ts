import type { YuvColour } from './colour.ts';

/**
 * One picture in I420 (yuv420p): a full-size Y plane, then U and V at half size each way (rounded up for odd
 * sizes), tightly packed as ffmpeg's rawvideo writes it. `data` spans all three planes; y, u, v are views into it.
 */
export interface I420Frame {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  readonly y: Uint8Array;
  readonly u: Uint8Array;
  readonly v: Uint8Array;
}

export const chromaSize = (lumaSize: number): number => (lumaSize + 1) >> 1;

export function i420ByteLength(width: number, height: number): number {
  return width * height + 2 * chromaSize(width) * chromaSize(height);
}

/** Wraps bytes (e.g. one frame read from a decoder pipe) without copying; throws if the length does not match. */
export function i420FromBytes(bytes: Uint8Array, width: number, height: number): I420Frame {
  if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) {
    throw new RangeError(`I420 size must be positive whole pixels, got ${width}×${height}`);
  }
  const length = i420ByteLength(width, height);
  if (bytes.length !== length) throw new RangeError(`an I420 ${width}×${height} frame is ${length} bytes, got ${bytes.length}`);
  const lumaLength = width * height;
  const chromaLength = chromaSize(width) * chromaSize(height);
  return Object.freeze({
    width,
    height,
    data: bytes,
    y: bytes.subarray(0, lumaLength),
    u: bytes.subarray(lumaLength, lumaLength + chromaLength),
    v: bytes.subarray(lumaLength + chromaLength, length),
  });
}

export function createI420Frame(width: number, height: number): I420Frame {
  return i420FromBytes(new Uint8Array(i420ByteLength(width, height)), width, height);
}

export function fillI420(frame: I420Frame, colour: YuvColour): I420Frame {
  frame.y.fill(colour.y);
  frame.u.fill(colour.u);
  frame.v.fill(colour.v);
  return frame;
}

/** A frame of one colour (test patterns, placeholder pictures). */
export function solidI420Frame(width: number, height: number, colour: YuvColour): I420Frame {
  return fillI420(createI420Frame(width, height), colour);
}

/** The colour of the pixel at (x, y): its luma and the chroma sample covering it. */
export function i420PixelAt(frame: I420Frame, x: number, y: number): YuvColour {
  const cw = chromaSize(frame.width);
  const c = (y >> 1) * cw + (x >> 1);
  return { y: frame.y[y * frame.width + x]!, u: frame.u[c]!, v: frame.v[c]! };
}

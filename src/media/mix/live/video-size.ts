/**
 * The picture size a video RTP packet announces, read from the bitstream so a decoder can be (re)started at the
 * right output size (docs/recording-mix.md, "Live pipeline"): VP8 keyframe headers (RFC 7741, RFC 6386 §9.1) and
 * H.264 sequence parameter sets (RFC 6184 packetization, ITU-T H.264 §7.3.2.1.1). Pure.
 */
import { h264SpsSize, vp8KeyframeSize, type VideoSize } from '../../../rtp-payload/index.ts';
import type { RtpCodecName } from '../../sdp.ts';

export { h264SpsSize, vp8KeyframeSize, type VideoSize };

/** The size a keyframe starting in this RTP payload declares, or undefined if the payload starts none. */
export function keyframeSize(codec: RtpCodecName, payload: Uint8Array): VideoSize | undefined {
  if (codec === 'VP8') return vp8KeyframeSize(payload);
  if (codec === 'H264') return h264SpsSize(payload);
  return undefined;
}

/**
 * The size a decoder writes for a source of `source` size: the source itself, scaled down (aspect kept) to fit in
 * `bound` when larger, even in both directions (I420 chroma). Never upscaled: the compositor scales to the region.
 */
export function decodeSize(source: VideoSize, bound: VideoSize): VideoSize {
  const scale = Math.min(1, bound.width / source.width, bound.height / source.height);
  const even = (n: number): number => Math.max(2, 2 * Math.round((n * scale) / 2));
  return { width: even(source.width), height: even(source.height) };
}

/**
 * The size at which the compositor draws a `source`-sized picture in a `region`-sized rectangle: covering it
 * (crop) or inside it (fit), aspect kept, never larger than the source. The dimension that sets the scale is the
 * region's own, and the other is rounded outwards (crop) or inwards (fit) to even, so a decoder that writes this
 * size gives the compositor a 1:1 copy instead of a scale.
 */
export function drawnSize(source: VideoSize, region: VideoSize, mode: 'crop' | 'fit'): VideoSize {
  const sx = region.width / source.width;
  const sy = region.height / source.height;
  const scale = mode === 'crop' ? Math.max(sx, sy) : Math.min(sx, sy);
  if (scale >= 1) return { width: source.width, height: source.height };
  const round = mode === 'crop' ? Math.ceil : Math.floor;
  const other = (n: number): number => Math.max(2, 2 * round((n * scale) / 2));
  const exact = (n: number): number => Math.max(2, n & ~1); // an odd canvas edge: one pixel scaled, still I420-even
  return scale === sx
    ? { width: exact(region.width), height: Math.min(source.height, other(source.height)) }
    : { width: Math.min(source.width, other(source.width)), height: exact(region.height) };
}

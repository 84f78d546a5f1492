import type { PlaneMap } from './scaling-plan.ts';

/**
 * The compositor's inner loops over one 8-bit plane. `alpha` is 0…256 (256 opaque); blending is
 * out = (src·a + dst·(256 − a) + 128) >> 8. No allocation inside any loop.
 */

export const ALPHA_OPAQUE = 256;

/** Draws a source plane through a nearest-neighbour map. */
export function drawPlaneNearest(dst: Uint8Array, dstStride: number, src: Uint8Array, map: PlaneMap, alpha: number): void {
  const { x, y, width, height, column0, rowOffset0 } = map;
  if (alpha >= ALPHA_OPAQUE && map.rowIsCopy) {
    const first = column0[0]!;
    for (let j = 0; j < height; j++) {
      const from = rowOffset0[j]! + first;
      dst.set(src.subarray(from, from + width), (y + j) * dstStride + x);
    }
    return;
  }
  if (alpha >= ALPHA_OPAQUE) {
    for (let j = 0; j < height; j++) {
      const row = rowOffset0[j]!;
      const out = (y + j) * dstStride + x;
      for (let i = 0; i < width; i++) dst[out + i] = src[row + column0[i]!]!;
    }
    return;
  }
  const keep = ALPHA_OPAQUE - alpha;
  for (let j = 0; j < height; j++) {
    const row = rowOffset0[j]!;
    const out = (y + j) * dstStride + x;
    for (let i = 0; i < width; i++) dst[out + i] = (src[row + column0[i]!]! * alpha + dst[out + i]! * keep + 128) >> 8;
  }
}

/** Draws a source plane through a bilinear map (8-bit fixed-point weights). */
export function drawPlaneBilinear(dst: Uint8Array, dstStride: number, src: Uint8Array, map: PlaneMap, alpha: number): void {
  if (map.samplesAreExact) {
    drawPlaneNearest(dst, dstStride, src, map, alpha);
    return;
  }
  const { x, y, width, height, column0, column1, columnWeight, rowOffset0, rowOffset1, rowWeight } = map;
  const opaque = alpha >= ALPHA_OPAQUE;
  if (opaque && map.halves) {
    drawPlaneHalved(dst, dstStride, src, map);
    return;
  }
  const keep = ALPHA_OPAQUE - alpha;
  for (let j = 0; j < height; j++) {
    const top = rowOffset0[j]!;
    const bottom = rowOffset1[j]!;
    const wy = rowWeight[j]!;
    const wyTop = 256 - wy;
    const out = (y + j) * dstStride + x;
    // Two copies of the loop so the opaque case (nearly every frame) has no per-pixel branch.
    if (opaque) {
      for (let i = 0; i < width; i++) {
        const left = column0[i]!;
        const right = column1[i]!;
        const wx = columnWeight[i]!;
        const upper = src[top + left]! * (256 - wx) + src[top + right]! * wx;
        const lower = src[bottom + left]! * (256 - wx) + src[bottom + right]! * wx;
        dst[out + i] = (upper * wyTop + lower * wy + 32768) >> 16;
      }
    } else {
      for (let i = 0; i < width; i++) {
        const left = column0[i]!;
        const right = column1[i]!;
        const wx = columnWeight[i]!;
        const upper = src[top + left]! * (256 - wx) + src[top + right]! * wx;
        const lower = src[bottom + left]! * (256 - wx) + src[bottom + right]! * wx;
        const value = (upper * wyTop + lower * wy + 32768) >> 16;
        dst[out + i] = (value * alpha + dst[out + i]! * keep + 128) >> 8;
      }
    }
  }
}

/**
 * Bilinear at exactly half size, opaque: the mean of each 2×2 block, (a + b + c + d + 2) >> 2, which is what the
 * weighted loop computes with all weights ½ — the same bytes for a third of the loads (a 640×360 picture in a
 * quarter of a 640×360 canvas, 320×180 in a sixteenth).
 */
function drawPlaneHalved(dst: Uint8Array, dstStride: number, src: Uint8Array, map: PlaneMap): void {
  const { x, y, width, height, column0, rowOffset0, sourceStride } = map;
  const first = column0[0]!;
  for (let j = 0; j < height; j++) {
    let top = rowOffset0[j]! + first;
    const out = (y + j) * dstStride + x;
    for (let i = 0; i < width; i++, top += 2) {
      const bottom = top + sourceStride;
      dst[out + i] = (src[top]! + src[top + 1]! + src[bottom]! + src[bottom + 1]! + 2) >> 2;
    }
  }
}

/** Fills a rectangle of a plane with one value. */
export function fillPlaneRect(
  dst: Uint8Array,
  dstStride: number,
  x: number,
  y: number,
  width: number,
  height: number,
  value: number,
  alpha: number,
): void {
  if (alpha >= ALPHA_OPAQUE) {
    for (let j = 0; j < height; j++) {
      const out = (y + j) * dstStride + x;
      dst.fill(value, out, out + width);
    }
    return;
  }
  const keep = ALPHA_OPAQUE - alpha;
  const weighted = value * alpha + 128;
  for (let j = 0; j < height; j++) {
    const out = (y + j) * dstStride + x;
    for (let i = 0; i < width; i++) dst[out + i] = (weighted + dst[out + i]! * keep) >> 8;
  }
}

/** Copies a rectangle from a same-sized plane (e.g. the prepared canvas background) into the same place. */
export function copyPlaneRect(
  dst: Uint8Array,
  src: Uint8Array,
  stride: number,
  x: number,
  y: number,
  width: number,
  height: number,
  alpha: number,
): void {
  const keep = ALPHA_OPAQUE - alpha;
  for (let j = 0; j < height; j++) {
    const start = (y + j) * stride + x;
    if (alpha >= ALPHA_OPAQUE) {
      dst.set(src.subarray(start, start + width), start);
    } else {
      for (let i = start; i < start + width; i++) dst[i] = (src[i]! * alpha + dst[i]! * keep + 128) >> 8;
    }
  }
}

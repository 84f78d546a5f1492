import type { CanvasSize, PixelRect } from './region.ts';

/**
 * Pixel rounding shared by every layout (docs/recording-mix.md, "Pixel rounding"): each edge is rounded on its own,
 * from the fraction rounded to the 6 decimals the API allows, to the nearest even pixel. Two regions that share an
 * edge fraction therefore share the pixel edge (no gap, no overlap), and even offsets and sizes keep I420 chroma
 * (one sample per 2×2 luma block) aligned with each region. Fractions ≤ 0 and ≥ 1 map to the canvas edges exactly,
 * so an odd canvas size only makes the last row or column of regions one pixel odd.
 */
export function pixelEdge(fraction: number, size: number): number {
  if (fraction <= 0) return 0;
  if (fraction >= 1) return size;
  const micro = Math.round(fraction * 1e6);
  const edge = 2 * Math.round((micro * size) / 2e6);
  return Math.min(edge, size);
}

/** A rectangle given as fractions of the canvas (x, y top-left; all 0…1). */
export interface FractionRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export function pixelRect(canvas: CanvasSize, f: FractionRect): PixelRect {
  const left = pixelEdge(f.x, canvas.width);
  const top = pixelEdge(f.y, canvas.height);
  const right = pixelEdge(f.x + f.width, canvas.width);
  const bottom = pixelEdge(f.y + f.height, canvas.height);
  return Object.freeze({ x: left, y: top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) });
}

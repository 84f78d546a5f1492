import { chromaSize } from './i420.ts';
import type { PixelRect, RenderMode } from './region.ts';

/** Nearest picks one source pixel per output pixel; bilinear weighs the four around it (docs/recording-mix.md). */
export type ScalingMethod = 'nearest' | 'bilinear';

/**
 * Precomputed source positions for drawing one plane of a picture into a rectangle of the same plane on the
 * canvas. Row tables hold byte offsets (row × source stride) so the inner loop is additions and loads only.
 */
export interface PlaneMap {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Source column (nearest) or left column (bilinear) per output column. */
  readonly column0: Int32Array;
  /** Bilinear only: right column and its weight 0…256. */
  readonly column1: Int32Array;
  readonly columnWeight: Int32Array;
  readonly rowOffset0: Int32Array;
  readonly rowOffset1: Int32Array;
  readonly rowWeight: Int32Array;
  /** Every sample lands exactly on a source sample (1:1 or an exact bilinear position): nearest gives the same. */
  readonly samplesAreExact: boolean;
  /** Exact and 1:1 horizontally: each output row is one contiguous source run starting at column0[0]. */
  readonly rowIsCopy: boolean;
  /**
   * Bilinear at exactly half size both ways: each output sample is the rounded mean of a 2×2 source block starting
   * at (column0[0] + 2i, rowOffset0[j]), `sourceStride` bytes between its rows (the same values as the weighted path).
   */
  readonly halves: boolean;
  readonly sourceStride: number;
}

/** How one picture of a given size lands in one region: the picture's planes and, in fit mode, the black bars. */
export interface DrawPlan {
  /** Null when the picture would be empty (a region or picture of no pixels). */
  readonly luma: PlaneMap | null;
  readonly chroma: PlaneMap | null;
  /** Fit mode: the parts of the region the picture does not cover (up to four rectangles, luma pixels). */
  readonly bars: readonly PixelRect[];
}

const WEIGHT_ONE = 256;

/** Maps dstLength output samples onto source samples [start, start + length) of a plane `limit` samples long. */
function axisTables(start: number, length: number, limit: number, dstLength: number, method: ScalingMethod) {
  const index0 = new Int32Array(dstLength);
  const index1 = new Int32Array(method === 'bilinear' ? dstLength : 0);
  const weight = new Int32Array(method === 'bilinear' ? dstLength : 0);
  const step = length / dstLength;
  for (let i = 0; i < dstLength; i++) {
    // Sample centres line up: output centre i + ½ maps to source centre start + (i + ½)·step.
    let s = start + (i + 0.5) * step - 0.5;
    if (s < 0) s = 0;
    if (s > limit - 1) s = limit - 1;
    if (method === 'nearest') {
      index0[i] = Math.min(limit - 1, Math.floor(s + 0.5));
    } else {
      let left = Math.floor(s);
      let w = Math.round((s - left) * WEIGHT_ONE);
      if (w === WEIGHT_ONE) {
        left += 1;
        w = 0;
      }
      index0[i] = left;
      index1[i] = Math.min(left + 1, limit - 1);
      weight[i] = w;
    }
  }
  return { index0, index1, weight };
}

function planeMap(
  dst: PixelRect,
  src: { readonly x: number; readonly y: number; readonly width: number; readonly height: number },
  srcPlane: { readonly width: number; readonly height: number },
  method: ScalingMethod,
): PlaneMap | null {
  if (dst.width <= 0 || dst.height <= 0) return null;
  const columns = axisTables(src.x, src.width, srcPlane.width, dst.width, method);
  const rows = axisTables(src.y, src.height, srcPlane.height, dst.height, method);
  const stride = srcPlane.width;
  const rowOffset0 = rows.index0.map((r) => r * stride);
  const rowOffset1 = rows.index1.map((r) => r * stride);
  const samplesAreExact = method === 'nearest' || (columns.weight.every((w) => w === 0) && rows.weight.every((w) => w === 0));
  let rowIsCopy = samplesAreExact && columns.index0[0]! + dst.width <= srcPlane.width;
  for (let i = 1; rowIsCopy && i < dst.width; i++) rowIsCopy = columns.index0[i] === columns.index0[0]! + i;
  const halvesAxis = (t: ReturnType<typeof axisTables>): boolean =>
    t.index0.every((v, i) => v === t.index0[0]! + 2 * i && t.index1[i] === v + 1 && t.weight[i] === WEIGHT_ONE / 2);
  const halves = method === 'bilinear' && halvesAxis(columns) && halvesAxis(rows);
  return {
    ...dst,
    column0: columns.index0,
    column1: columns.index1,
    columnWeight: columns.weight,
    rowOffset0,
    rowOffset1,
    rowWeight: rows.weight,
    samplesAreExact,
    rowIsCopy,
    halves,
    sourceStride: stride,
  };
}

const evenFloor = (v: number): number => 2 * Math.floor(v / 2);

/** The chroma-plane rectangle covering a luma rectangle. */
export function chromaRect(r: PixelRect): PixelRect {
  const x = r.x >> 1;
  const y = r.y >> 1;
  return { x, y, width: ((r.x + r.width + 1) >> 1) - x, height: ((r.y + r.height + 1) >> 1) - y };
}

/**
 * Crop: scale until the region is covered and cut the overflow equally on both sides. Fit: scale until the picture
 * touches the region's edges, centre it (at even offsets, for chroma) and leave the rest as bars.
 */
export function buildDrawPlan(
  sourceWidth: number,
  sourceHeight: number,
  region: PixelRect,
  renderMode: RenderMode,
  method: ScalingMethod,
): DrawPlan {
  if (region.width <= 0 || region.height <= 0 || sourceWidth <= 0 || sourceHeight <= 0) return { luma: null, chroma: null, bars: [] };
  let inner: PixelRect = region;
  let source = { x: 0, y: 0, width: sourceWidth, height: sourceHeight };
  const bars: PixelRect[] = [];
  if (renderMode === 'crop') {
    const scale = Math.max(region.width / sourceWidth, region.height / sourceHeight);
    const width = region.width / scale;
    const height = region.height / scale;
    source = { x: (sourceWidth - width) / 2, y: (sourceHeight - height) / 2, width, height };
  } else {
    const scale = Math.min(region.width / sourceWidth, region.height / sourceHeight);
    const width = Math.min(region.width, Math.max(2, 2 * Math.round((sourceWidth * scale) / 2)));
    const height = Math.min(region.height, Math.max(2, 2 * Math.round((sourceHeight * scale) / 2)));
    inner = { x: region.x + evenFloor((region.width - width) / 2), y: region.y + evenFloor((region.height - height) / 2), width, height };
    const below = inner.y + inner.height;
    const right = inner.x + inner.width;
    if (inner.y > region.y) bars.push({ x: region.x, y: region.y, width: region.width, height: inner.y - region.y });
    if (below < region.y + region.height) bars.push({ x: region.x, y: below, width: region.width, height: region.y + region.height - below });
    if (inner.x > region.x) bars.push({ x: region.x, y: inner.y, width: inner.x - region.x, height: inner.height });
    if (right < region.x + region.width) bars.push({ x: right, y: inner.y, width: region.x + region.width - right, height: inner.height });
  }
  const luma = planeMap(inner, source, { width: sourceWidth, height: sourceHeight }, method);
  const chroma = planeMap(
    chromaRect(inner),
    { x: source.x / 2, y: source.y / 2, width: source.width / 2, height: source.height / 2 },
    { width: chromaSize(sourceWidth), height: chromaSize(sourceHeight) },
    method,
  );
  return { luma, chroma, bars };
}

/** Plans keyed by (source size, region, render mode); bounded so a churn of sizes cannot grow it without end. */
export class DrawPlanCache {
  readonly #plans = new Map<string, DrawPlan>();
  constructor(
    readonly method: ScalingMethod,
    readonly capacity = 512,
  ) {}

  get(sourceWidth: number, sourceHeight: number, region: PixelRect, renderMode: RenderMode): DrawPlan {
    const key = `${sourceWidth}x${sourceHeight}|${region.x},${region.y},${region.width},${region.height}|${renderMode}`;
    let plan = this.#plans.get(key);
    if (!plan) {
      if (this.#plans.size >= this.capacity) this.#plans.clear();
      plan = buildDrawPlan(sourceWidth, sourceHeight, region, renderMode, this.method);
      this.#plans.set(key, plan);
    }
    return plan;
  }

  get size(): number {
    return this.#plans.size;
  }
}

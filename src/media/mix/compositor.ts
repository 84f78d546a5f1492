import { BLACK_YUV, type YuvColour } from './colour.ts';
import { chromaSize, createI420Frame, fillI420, type I420Frame } from './i420.ts';
import { ALPHA_OPAQUE, copyPlaneRect, drawPlaneBilinear, drawPlaneNearest, fillPlaneRect } from './plane-ops.ts';
import type { CanvasSize, PixelRect, RenderMode } from './region.ts';
import { chromaRect, type DrawPlan, DrawPlanCache, type PlaneMap, type ScalingMethod } from './scaling-plan.ts';

/** What a layer paints inside its rectangle. */
export type LayerContent =
  /** A video frame or a decoded image, cropped or fitted (fit leaves black bars). */
  | { readonly kind: 'picture'; readonly frame: I420Frame; readonly renderMode: RenderMode }
  /** The canvas background (colour, or background image) as it is at this place. */
  | { readonly kind: 'canvas-background' }
  | { readonly kind: 'colour'; readonly colour: YuvColour };

export interface CompositionLayer {
  readonly rect: PixelRect;
  /** 0 transparent … 1 opaque. */
  readonly alpha: number;
  readonly content: LayerContent;
}

/** The canvas beneath every layer: its colour and, when one is decoded, its image (always crop-to-fill). */
export interface CanvasBackground {
  readonly colour: YuvColour;
  readonly image: I420Frame | null;
}

/** One composed frame: the background, then the layers bottom to top. */
export interface Composition {
  readonly background: CanvasBackground;
  readonly layers: readonly CompositionLayer[];
}

/**
 * Bilinear by default: it costs about 3× nearest but stays well under a tenth of a core for 17 tiles at
 * 640×360@15 (bench/mix-compositor), and nearest visibly stair-steps edges and text when tiles are downscaled by
 * non-integer factors (docs/recording-mix.md, "Compositor").
 */
export const DEFAULT_SCALING: ScalingMethod = 'bilinear';

/**
 * Draws compositions onto I420 canvases. The output is a pure function of the composition; the compositor only
 * memoises scaling tables per (source size, region, render mode) and the prepared background, so a steady layout
 * costs table lookups and plane loops per frame, nothing allocated.
 */
export class MixCompositor {
  readonly #plans: DrawPlanCache;
  #background: { readonly key: CanvasBackground; readonly frame: I420Frame } | null = null;

  constructor(
    readonly canvas: CanvasSize,
    readonly scaling: ScalingMethod = DEFAULT_SCALING,
  ) {
    if (!(Number.isInteger(canvas.width) && canvas.width > 0 && Number.isInteger(canvas.height) && canvas.height > 0)) {
      throw new RangeError(`canvas must be positive whole pixels, got ${canvas.width}×${canvas.height}`);
    }
    this.#plans = new DrawPlanCache(scaling);
  }

  /** A canvas-sized frame to compose into (allocate a few and rotate them while the encoder pipe drains). */
  createCanvasFrame(): I420Frame {
    return createI420Frame(this.canvas.width, this.canvas.height);
  }

  /** Overwrites every pixel of `target` with the composition and returns it. */
  compose(target: I420Frame, composition: Composition): I420Frame {
    if (target.width !== this.canvas.width || target.height !== this.canvas.height) {
      throw new RangeError(`target must be ${this.canvas.width}×${this.canvas.height}, got ${target.width}×${target.height}`);
    }
    const background = this.#preparedBackground(composition.background);
    target.data.set(background.data);
    for (const layer of composition.layers) this.#drawLayer(target, background, layer);
    return target;
  }

  #drawLayer(target: I420Frame, background: I420Frame, layer: CompositionLayer): void {
    const alpha = Math.round(Math.min(1, Math.max(0, layer.alpha)) * ALPHA_OPAQUE);
    const rect = clipToCanvas(layer.rect, this.canvas);
    if (alpha <= 0 || rect.width <= 0 || rect.height <= 0) return;
    const content = layer.content;
    switch (content.kind) {
      case 'picture': {
        const plan = this.#plans.get(content.frame.width, content.frame.height, rect, content.renderMode);
        for (const bar of plan.bars) fillRect(target, bar, BLACK_YUV, alpha);
        this.#drawPicture(target, content.frame, plan, alpha);
        return;
      }
      case 'canvas-background':
        copyRect(target, background, rect, alpha);
        return;
      case 'colour':
        fillRect(target, rect, content.colour, alpha);
        return;
    }
  }

  #drawPicture(target: I420Frame, frame: I420Frame, plan: DrawPlan, alpha: number): void {
    const draw = this.scaling === 'nearest' ? drawPlaneNearest : drawPlaneBilinear;
    const luma: PlaneMap | null = plan.luma;
    const chroma: PlaneMap | null = plan.chroma;
    if (luma) draw(target.y, target.width, frame.y, luma, alpha);
    if (chroma) {
      const stride = chromaSize(target.width);
      draw(target.u, stride, frame.u, chroma, alpha);
      draw(target.v, stride, frame.v, chroma, alpha);
    }
  }

  /** The background colour with the background image drawn over it crop-to-fill, rebuilt only when it changes. */
  #preparedBackground(background: CanvasBackground): I420Frame {
    const cached = this.#background;
    if (cached && cached.key.image === background.image && sameColour(cached.key.colour, background.colour)) return cached.frame;
    const frame = fillI420(cached?.frame ?? this.createCanvasFrame(), background.colour);
    if (background.image) {
      const full = { x: 0, y: 0, width: this.canvas.width, height: this.canvas.height };
      this.#drawPicture(frame, background.image, this.#plans.get(background.image.width, background.image.height, full, 'crop'), ALPHA_OPAQUE);
    }
    this.#background = { key: background, frame };
    return frame;
  }
}

const sameColour = (a: YuvColour, b: YuvColour): boolean => a.y === b.y && a.u === b.u && a.v === b.v;

function clipToCanvas(r: PixelRect, canvas: CanvasSize): PixelRect {
  const x = Math.max(0, r.x);
  const y = Math.max(0, r.y);
  return { x, y, width: Math.min(canvas.width, r.x + r.width) - x, height: Math.min(canvas.height, r.y + r.height) - y };
}

function fillRect(target: I420Frame, r: PixelRect, colour: YuvColour, alpha: number): void {
  fillPlaneRect(target.y, target.width, r.x, r.y, r.width, r.height, colour.y, alpha);
  const c = chromaRect(r);
  const stride = chromaSize(target.width);
  fillPlaneRect(target.u, stride, c.x, c.y, c.width, c.height, colour.u, alpha);
  fillPlaneRect(target.v, stride, c.x, c.y, c.width, c.height, colour.v, alpha);
}

function copyRect(target: I420Frame, source: I420Frame, r: PixelRect, alpha: number): void {
  copyPlaneRect(target.y, source.y, target.width, r.x, r.y, r.width, r.height, alpha);
  const c = chromaRect(r);
  const stride = chromaSize(target.width);
  copyPlaneRect(target.u, source.u, stride, c.x, c.y, c.width, c.height, alpha);
  copyPlaneRect(target.v, source.v, stride, c.x, c.y, c.width, c.height, alpha);
}

/** A rectangle on the canvas in whole pixels, origin top-left. */
export interface PixelRect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** How a picture whose aspect ratio differs from its region is placed (docs/recording-mix.md, "Render modes"). */
export type RenderMode = 'crop' | 'fit';

/**
 * What a region shows while its user has no picture of its own (audio only, or never sent video): `transparent`
 * draws nothing, so what lies beneath shows (floating small windows); `background` shows the canvas background.
 */
export type RegionWithoutPicture = 'transparent' | 'background';

/** One place on the canvas and who is drawn there; `uid` null marks a slot that has no user (shows what is beneath). */
export interface MixRegion {
  readonly uid: string | null;
  readonly rect: PixelRect;
  readonly renderMode: RenderMode;
  /** 0 transparent … 1 opaque. */
  readonly alpha: number;
  /** Regions are drawn in ascending zOrder; a higher one covers a lower one. */
  readonly zOrder: number;
  readonly withoutPicture: RegionWithoutPicture;
}

/** Canvas size in pixels (transcodingConfig width × height). */
export interface CanvasSize {
  readonly width: number;
  readonly height: number;
}

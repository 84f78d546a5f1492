/** An 8-bit Y'CbCr colour (BT.601, limited range: Y 16–235, Cb/Cr 16–240), as I420 planes store it. */
export interface YuvColour {
  readonly y: number;
  readonly u: number;
  readonly v: number;
}

export interface RgbColour {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

const HEX_COLOUR = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/;

/** Parses `#RRGGBB`; throws a RangeError naming `field` otherwise. */
export function parseHexColour(text: string, field = 'backgroundColor'): RgbColour {
  const m = HEX_COLOUR.exec(text);
  if (!m) throw new RangeError(`${field} must be "#" followed by 6 hex digits, got ${JSON.stringify(text)}`);
  return Object.freeze({ r: parseInt(m[1]!, 16), g: parseInt(m[2]!, 16), b: parseInt(m[3]!, 16) });
}

const clampByte = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * RGB → BT.601 limited-range Y'CbCr, the matrix and range ffmpeg's swscale uses by default for yuv420p output, so
 * a colour drawn here matches the same colour converted by ffmpeg (within rounding).
 */
export function rgbToYuv({ r, g, b }: RgbColour): YuvColour {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  return Object.freeze({
    y: clampByte(16 + 65.481 * rn + 128.553 * gn + 24.966 * bn),
    u: clampByte(128 - 37.797 * rn - 74.203 * gn + 112.0 * bn),
    v: clampByte(128 + 112.0 * rn - 93.786 * gn - 18.214 * bn),
  });
}

export function hexToYuv(text: string, field?: string): YuvColour {
  return rgbToYuv(parseHexColour(text, field));
}

/** The black of fit-mode bars (and of `#000000`). */
export const BLACK_YUV: YuvColour = Object.freeze({ y: 16, u: 128, v: 128 });

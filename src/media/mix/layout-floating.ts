import { pixelRect } from './geometry.ts';
import { MAX_MIX_REGIONS } from './layout-settings.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/** Floating small windows: 23.5 % of the canvas each way, 1.2 % gaps and margins, 4 per row (docs/recording-mix.md). */
export const FLOATING_SMALL_SIZE = 0.235;
export const FLOATING_GAP = 0.012;
export const FLOATING_PER_ROW = 4;
const STEP = FLOATING_SMALL_SIZE + FLOATING_GAP;

/**
 * Layout 0: the first joiner fills the canvas; everyone after floats on top in small windows, left to right in rows
 * of four, the first row at the bottom and further rows stacked upwards. Audio-only small windows are transparent.
 */
export function floatingLayout(canvas: CanvasSize, usersInJoinOrder: readonly string[]): readonly MixRegion[] {
  const shown = usersInJoinOrder.slice(0, MAX_MIX_REGIONS);
  return shown.map((uid, index): MixRegion => {
    if (index === 0) {
      return Object.freeze({
        uid,
        rect: pixelRect(canvas, { x: 0, y: 0, width: 1, height: 1 }),
        renderMode: 'crop',
        alpha: 1,
        zOrder: 0,
        withoutPicture: 'background',
      });
    }
    const k = index - 1;
    const column = k % FLOATING_PER_ROW;
    const row = Math.floor(k / FLOATING_PER_ROW);
    return Object.freeze({
      uid,
      rect: pixelRect(canvas, {
        x: FLOATING_GAP + STEP * column,
        y: 1 - STEP * (row + 1),
        width: FLOATING_SMALL_SIZE,
        height: FLOATING_SMALL_SIZE,
      }),
      renderMode: 'crop',
      alpha: 1,
      zOrder: index,
      withoutPicture: 'transparent',
    });
  });
}

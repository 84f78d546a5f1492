import { type FractionRect, pixelRect } from './geometry.ts';
import { MAX_MIX_REGIONS } from './layout-settings.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/** Geometry of the vertical layout for a number of small users: the Large region and every small slot. */
export interface VerticalGeometry {
  readonly large: FractionRect;
  /** Slots in fill order; their count is the band's capacity (4, 6, 8 or 16). */
  readonly smalls: readonly FractionRect[];
}

/** Small users beside the Large region at most (16 + Large = 17). */
export const VERTICAL_MAX_SMALLS = MAX_MIX_REGIONS - 1;

/**
 * The band is chosen by small users + 1 (the Large slot counts even when empty), matching the documented bands for
 * N users: 1–5 one column of 4, 6–7 one column of 6, 8–9 one column of 8, 10–17 two columns of 8
 * (docs/recording-mix.md, "Layout 2").
 */
export function verticalGeometry(smallCount: number): VerticalGeometry {
  const n = smallCount + 1;
  const [columns, rows] = n <= 5 ? [1, 4] : n <= 7 ? [1, 6] : n <= 9 ? [1, 8] : [2, 8];
  // Small width 1/5, 1/7, 1/9 for one column (so each small keeps the canvas's aspect), 1/10 for two.
  const smallWidth = columns === 2 ? 1 / 10 : 1 / (rows + 1);
  const largeWidth = 1 - columns * smallWidth;
  const smalls: FractionRect[] = [];
  // Two columns: smalls 1–8 fill the outer (right-most) column, 9–16 the inner one beside Large.
  for (let c = 0; c < columns; c++) {
    const x = 1 - (c + 1) * smallWidth;
    for (let r = 0; r < rows; r++) smalls.push({ x, y: r / rows, width: smallWidth, height: (r + 1) / rows - r / rows });
  }
  return { large: { x: 0, y: 0, width: largeWidth, height: 1 }, smalls };
}

/** Swaps x and y: the vertical geometry turned into a horizontal one (Large on top, strip at the bottom). */
export function transposed(rect: FractionRect): FractionRect {
  return { x: rect.y, y: rect.x, width: rect.height, height: rect.width };
}

/**
 * Places a Large user and small users on the vertical geometry (optionally transposed). The Large region shows its
 * whole picture (fit); smalls are cropped. Empty slots carry uid null.
 */
export function largeAndSmallsLayout(
  canvas: CanvasSize,
  largeUid: string | null,
  smallUids: readonly string[],
  transpose: boolean,
): readonly MixRegion[] {
  const smallsShown = smallUids.slice(0, VERTICAL_MAX_SMALLS);
  const geometry = verticalGeometry(smallsShown.length);
  const place = (rect: FractionRect) => pixelRect(canvas, transpose ? transposed(rect) : rect);
  const regions: MixRegion[] = [
    Object.freeze({ uid: largeUid, rect: place(geometry.large), renderMode: 'fit', alpha: 1, zOrder: 0, withoutPicture: 'background' }),
  ];
  geometry.smalls.forEach((slot, index) =>
    regions.push(
      Object.freeze({ uid: smallsShown[index] ?? null, rect: place(slot), renderMode: 'crop', alpha: 1, zOrder: index + 1, withoutPicture: 'background' }),
    ),
  );
  return regions;
}

/**
 * Layout 2: `maxResolutionUid` in the Large region on the left when that user is in the channel (else Large shows
 * the background), everyone else in join order in the small slots on the right. A lone user with no
 * `maxResolutionUid` fills the canvas.
 */
export function verticalLayout(
  canvas: CanvasSize,
  usersInJoinOrder: readonly string[],
  maxResolutionUid: string | null,
): readonly MixRegion[] {
  if (usersInJoinOrder.length === 0) return [];
  if (maxResolutionUid === null && usersInJoinOrder.length === 1) {
    const uid = usersInJoinOrder[0]!;
    return [Object.freeze({ uid, rect: pixelRect(canvas, { x: 0, y: 0, width: 1, height: 1 }), renderMode: 'fit', alpha: 1, zOrder: 0, withoutPicture: 'background' })];
  }
  const largeUid = maxResolutionUid !== null && usersInJoinOrder.includes(maxResolutionUid) ? maxResolutionUid : null;
  return largeAndSmallsLayout(canvas, largeUid, usersInJoinOrder.filter((uid) => uid !== largeUid), false);
}

import { type FractionRect, pixelRect } from './geometry.ts';
import { MAX_MIX_REGIONS } from './layout-settings.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/** Cells of the best-fit grid for N users, row by row from the top-left (docs/recording-mix.md, "Layout 1"). */
export function bestFitCells(userCount: number): readonly FractionRect[] {
  if (userCount <= 0) return [];
  if (userCount === MAX_MIX_REGIONS) {
    // 17: four rows of four 0.2 × 0.2 tiles between 0.1 bands, the 17th centred in a fifth row.
    const cells: FractionRect[] = [];
    for (let i = 0; i < 16; i++) cells.push({ x: 0.1 + 0.2 * (i % 4), y: 0.2 * Math.floor(i / 4), width: 0.2, height: 0.2 });
    cells.push({ x: 0.4, y: 0.8, width: 0.2, height: 0.2 });
    return cells;
  }
  const [columns, rows] = userCount === 1 ? [1, 1] : userCount === 2 ? [2, 1] : userCount <= 4 ? [2, 2] : userCount <= 9 ? [3, 3] : [4, 4];
  const cells: FractionRect[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      // Edges as k/n so neighbours compute the same edge from the same fraction.
      cells.push({ x: c / columns, y: r / rows, width: (c + 1) / columns - c / columns, height: (r + 1) / rows - r / rows });
    }
  }
  return cells;
}

/** Layout 1: equal tiles; cells without a user (and audio-only users' cells) show the canvas background. */
export function bestFitLayout(canvas: CanvasSize, usersInJoinOrder: readonly string[]): readonly MixRegion[] {
  const shown = usersInJoinOrder.slice(0, MAX_MIX_REGIONS);
  return bestFitCells(shown.length).map((cell, index) =>
    Object.freeze({
      uid: shown[index] ?? null,
      rect: pixelRect(canvas, cell),
      renderMode: 'crop',
      alpha: 1,
      zOrder: index,
      withoutPicture: 'background',
    }),
  );
}

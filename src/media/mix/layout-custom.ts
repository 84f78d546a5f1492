import { pixelRect } from './geometry.ts';
import type { CustomRegionSpec } from './layout-settings.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/**
 * Layout 3: one region per `layoutConfig` entry, drawn in array order (a later entry covers an earlier one). An
 * entry with a uid shows that user (nothing of its own while the user is absent); entries without a uid are handed
 * out in join order to the users that no entry names. Users left over are not drawn.
 */
export function customLayout(
  canvas: CanvasSize,
  usersInJoinOrder: readonly string[],
  entries: readonly CustomRegionSpec[],
): readonly MixRegion[] {
  const present = new Set(usersInJoinOrder);
  const named = new Set(entries.flatMap((e) => (e.uid === null ? [] : [e.uid])));
  const unnamed = usersInJoinOrder.filter((uid) => !named.has(uid));
  let nextUnnamed = 0;
  return entries.map((entry, index) => {
    const uid = entry.uid === null ? (unnamed[nextUnnamed++] ?? null) : present.has(entry.uid) ? entry.uid : null;
    return Object.freeze({
      uid,
      rect: pixelRect(canvas, entry),
      renderMode: entry.renderMode,
      alpha: entry.alpha,
      zOrder: index,
      withoutPicture: 'transparent',
    });
  });
}

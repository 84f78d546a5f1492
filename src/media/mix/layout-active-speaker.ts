import { pixelRect } from './geometry.ts';
import { largeAndSmallsLayout } from './layout-vertical.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/**
 * reeltime's extension layout (`mixedVideoLayout` 100): the current main speaker in the main region, everyone else
 * in a strip. It reuses the vertical layout's geometry with the speaker as Large: on a landscape or square canvas
 * the strip is on the right; on a portrait canvas the geometry is transposed (main on top, strip along the bottom).
 * Without a known speaker (or when the speaker is not in the channel) the first joiner is the main user.
 */
export function activeSpeakerLayout(
  canvas: CanvasSize,
  usersInJoinOrder: readonly string[],
  activeSpeakerUid: string | null,
): readonly MixRegion[] {
  if (usersInJoinOrder.length === 0) return [];
  const main = activeSpeakerUid !== null && usersInJoinOrder.includes(activeSpeakerUid) ? activeSpeakerUid : usersInJoinOrder[0]!;
  const others = usersInJoinOrder.filter((uid) => uid !== main);
  if (others.length === 0) {
    return [Object.freeze({ uid: main, rect: pixelRect(canvas, { x: 0, y: 0, width: 1, height: 1 }), renderMode: 'fit', alpha: 1, zOrder: 0, withoutPicture: 'background' })];
  }
  return largeAndSmallsLayout(canvas, main, others, canvas.height > canvas.width);
}

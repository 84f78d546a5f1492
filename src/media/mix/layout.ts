import { activeSpeakerLayout } from './layout-active-speaker.ts';
import { bestFitLayout } from './layout-best-fit.ts';
import { customLayout } from './layout-custom.ts';
import { floatingLayout } from './layout-floating.ts';
import { type CustomRegionSpec, MIX_LAYOUT, type MixLayoutKind } from './layout-settings.ts';
import { verticalLayout } from './layout-vertical.ts';
import type { CanvasSize, MixRegion } from './region.ts';

/** What a layout needs besides the canvas and the users; MixLayoutSettings satisfies it. */
export interface LayoutOptions {
  /** Vertical layout's Large user. */
  readonly maxResolutionUid?: string | null;
  /** Custom layout's regions. */
  readonly customRegions?: readonly CustomRegionSpec[];
  /** Active-speaker layout's main user (from the active speaker selector). */
  readonly activeSpeakerUid?: string | null;
}

/**
 * The regions of one composed frame: a pure function of the layout kind, canvas size and the users in join order
 * (a user who left is simply not in the list, so everyone after moves up a slot). Sorted by zOrder.
 */
export function layout(
  kind: MixLayoutKind,
  canvas: CanvasSize,
  usersInJoinOrder: readonly string[],
  options: LayoutOptions = {},
): readonly MixRegion[] {
  if (!(Number.isInteger(canvas.width) && canvas.width > 0 && Number.isInteger(canvas.height) && canvas.height > 0)) {
    throw new RangeError(`canvas must be positive whole pixels, got ${canvas.width}×${canvas.height}`);
  }
  switch (kind) {
    case MIX_LAYOUT.floating:
      return floatingLayout(canvas, usersInJoinOrder);
    case MIX_LAYOUT.bestFit:
      return bestFitLayout(canvas, usersInJoinOrder);
    case MIX_LAYOUT.vertical:
      return verticalLayout(canvas, usersInJoinOrder, options.maxResolutionUid ?? null);
    case MIX_LAYOUT.custom:
      return customLayout(canvas, usersInJoinOrder, options.customRegions ?? []);
    case MIX_LAYOUT.activeSpeaker:
      return activeSpeakerLayout(canvas, usersInJoinOrder, options.activeSpeakerUid ?? null);
    default:
      throw new RangeError(`unknown mixedVideoLayout ${String(kind satisfies never)}`);
  }
}

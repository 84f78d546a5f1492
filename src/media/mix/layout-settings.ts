import { parseHexColour } from './colour.ts';
import type { RenderMode } from './region.ts';

/**
 * `mixedVideoLayout` values: 0–3 are the hosted service's; 100 is reeltime's own extension (active speaker), chosen
 * far from the service's range so a future service value cannot collide with it (docs/recording-mix.md).
 */
export const MIX_LAYOUT = Object.freeze({ floating: 0, bestFit: 1, vertical: 2, custom: 3, activeSpeaker: 100 } as const);
export type MixLayoutKind = (typeof MIX_LAYOUT)[keyof typeof MIX_LAYOUT];
export const MIX_LAYOUT_KINDS: readonly MixLayoutKind[] = Object.freeze(Object.values(MIX_LAYOUT));

/** At most this many regions on a canvas, in every layout. */
export const MAX_MIX_REGIONS = 17;

/** The default canvas colour when a layout names none (`#000000`, also after an updateLayout that omits it). */
export const DEFAULT_BACKGROUND_COLOR = '#000000';

/** One region of a custom layout, in fractions of the canvas. `uid` null: handed out to users in join order. */
export interface CustomRegionSpec {
  readonly uid: string | null;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly alpha: number;
  readonly renderMode: RenderMode;
}

/** A per-user image shown once that user's video has stopped (the 3.5 s rule). */
export interface UserBackgroundSpec {
  readonly uid: string;
  readonly imageUrl: string;
  readonly renderMode: RenderMode;
}

/** Everything a layout change sets, complete: each updateLayout replaces all of it (omitted = default). */
export interface MixLayoutSettings {
  readonly kind: MixLayoutKind;
  /** Vertical layout's Large user; ignored by the other layouts. */
  readonly maxResolutionUid: string | null;
  /** `#RRGGBB`. */
  readonly backgroundColor: string;
  readonly backgroundImageUrl: string | null;
  readonly defaultUserBackgroundImageUrl: string | null;
  /** Custom layout only; empty otherwise. */
  readonly customRegions: readonly CustomRegionSpec[];
  readonly userBackgrounds: readonly UserBackgroundSpec[];
}

export type CustomRegionSpecInput = Pick<CustomRegionSpec, 'x' | 'y' | 'width' | 'height'> &
  Partial<Pick<CustomRegionSpec, 'uid' | 'alpha' | 'renderMode'>>;
export type UserBackgroundSpecInput = Pick<UserBackgroundSpec, 'uid' | 'imageUrl'> & Partial<Pick<UserBackgroundSpec, 'renderMode'>>;

/** A layout change as given: every field optional. The API layer maps its request shapes onto this. */
export interface MixLayoutSettingsInput {
  readonly kind?: MixLayoutKind;
  readonly maxResolutionUid?: string | null;
  readonly backgroundColor?: string;
  readonly backgroundImageUrl?: string | null;
  readonly defaultUserBackgroundImageUrl?: string | null;
  readonly customRegions?: readonly CustomRegionSpecInput[];
  readonly userBackgrounds?: readonly UserBackgroundSpecInput[];
}

function checkFraction(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`${field} must be a number from 0 to 1, got ${value}`);
  return value;
}

function completeCustomRegion(input: CustomRegionSpecInput, index: number): CustomRegionSpec {
  const at = `customRegions[${index}]`;
  return Object.freeze({
    uid: input.uid ?? null,
    x: checkFraction(input.x, `${at}.x`),
    y: checkFraction(input.y, `${at}.y`),
    width: checkFraction(input.width, `${at}.width`),
    height: checkFraction(input.height, `${at}.height`),
    alpha: checkFraction(input.alpha ?? 1, `${at}.alpha`),
    renderMode: input.renderMode ?? 'crop',
  });
}

/**
 * Fills every omitted field with its default, the way the service treats each `updateLayout` (and `start`):
 * floating layout, no Large user, black canvas, no images, no custom regions. Throws a RangeError naming the field
 * for values the media side cannot draw.
 */
export function completeMixLayoutSettings(input: MixLayoutSettingsInput = {}): MixLayoutSettings {
  const kind = input.kind ?? MIX_LAYOUT.floating;
  if (!MIX_LAYOUT_KINDS.includes(kind)) throw new RangeError(`kind must be one of ${MIX_LAYOUT_KINDS.join(', ')}, got ${kind}`);
  const backgroundColor = input.backgroundColor ?? DEFAULT_BACKGROUND_COLOR;
  parseHexColour(backgroundColor, 'backgroundColor');
  const customRegions = input.customRegions ?? [];
  if (customRegions.length > MAX_MIX_REGIONS) {
    throw new RangeError(`customRegions holds at most ${MAX_MIX_REGIONS} entries, got ${customRegions.length}`);
  }
  return Object.freeze({
    kind,
    maxResolutionUid: input.maxResolutionUid ?? null,
    backgroundColor,
    backgroundImageUrl: input.backgroundImageUrl ?? null,
    defaultUserBackgroundImageUrl: input.defaultUserBackgroundImageUrl ?? null,
    customRegions: Object.freeze(customRegions.map(completeCustomRegion)),
    userBackgrounds: Object.freeze(
      (input.userBackgrounds ?? []).map((b) => Object.freeze({ uid: b.uid, imageUrl: b.imageUrl, renderMode: b.renderMode ?? 'crop' })),
    ),
  });
}

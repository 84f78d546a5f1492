import type { YuvColour } from './colour.ts';
import type { Composition, CompositionLayer, LayerContent } from './compositor.ts';
import { type UserDisplay, userDisplayAt, NEVER_SENT } from './display-state.ts';
import type { I420Frame } from './i420.ts';
import type { MixRegion, RenderMode } from './region.ts';
import type { MixRoster } from './roster.ts';

/** A decoded image and how it fills its region. */
export interface PlacedImage {
  readonly frame: I420Frame;
  readonly renderMode: RenderMode;
}

/** The pictures a scene can draw at one instant; every image is optional (a failed download is simply absent). */
export interface ScenePictures {
  /** The most recent decoded frame per user (kept after the user stops sending). */
  readonly latestFrames: ReadonlyMap<string, I420Frame>;
  /** Per-user images (`backgroundConfig`) with their render mode. */
  readonly userImages: ReadonlyMap<string, PlacedImage>;
  /** `defaultUserBackgroundImage`, drawn crop-to-fill. */
  readonly defaultUserImage: I420Frame | null;
  /** `backgroundImage`, the canvas's own picture. */
  readonly canvasImage: I420Frame | null;
  /** `backgroundColor` as YUV. */
  readonly backgroundColour: YuvColour;
}

/**
 * Turns a layout and the users' states at `nowMs` into what the compositor draws: each region's display (3.5 s
 * rule) resolved to a picture, a patch of canvas background, a colour, or nothing (transparent). Layers keep the
 * regions' zOrder.
 */
export function composeScene(regions: readonly MixRegion[], roster: MixRoster, nowMs: number, pictures: ScenePictures): Composition {
  const states = new Map(roster.map((e) => [e.uid, e.video]));
  const layers: CompositionLayer[] = [];
  for (const region of [...regions].sort((a, b) => a.zOrder - b.zOrder)) {
    if (region.uid === null) continue;
    const uid = region.uid;
    const display = userDisplayAt(states.get(uid) ?? NEVER_SENT, nowMs, {
      own: pictures.userImages.has(uid),
      defaultUser: pictures.defaultUserImage !== null,
      canvas: pictures.canvasImage !== null,
    });
    const content = contentFor(display, region, uid, pictures);
    if (content) layers.push({ rect: region.rect, alpha: region.alpha, content });
  }
  return { background: { colour: pictures.backgroundColour, image: pictures.canvasImage }, layers };
}

function contentFor(display: UserDisplay, region: MixRegion, uid: string, pictures: ScenePictures): LayerContent | null {
  switch (display.kind) {
    case 'frame': {
      const frame = pictures.latestFrames.get(uid);
      if (frame) return { kind: 'picture', frame, renderMode: region.renderMode };
      return withoutPicture(region); // no frame decoded yet
    }
    case 'user-image': {
      if (display.image === 'own') {
        const image = pictures.userImages.get(uid)!;
        return { kind: 'picture', frame: image.frame, renderMode: image.renderMode };
      }
      return { kind: 'picture', frame: pictures.defaultUserImage!, renderMode: 'crop' };
    }
    case 'canvas-image':
      return { kind: 'canvas-background' };
    case 'background-colour':
      return { kind: 'colour', colour: pictures.backgroundColour };
    case 'no-picture':
      return withoutPicture(region);
    case 'gone':
      return null;
  }
}

function withoutPicture(region: MixRegion): LayerContent | null {
  return region.withoutPicture === 'background' ? { kind: 'canvas-background' } : null;
}

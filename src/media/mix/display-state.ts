/**
 * What a user's region shows over time (docs/recording-mix.md, "The 3.5 s rule"). Pure: every function takes the
 * time it applies to, so a compositor tick asks "what now?" and no timer is needed.
 */

/** A held picture (the last frame, or a stopped user's last frame) is replaced after this long. */
export const VIDEO_STOP_GRACE_MS = 3500;
/** A user who left shows the canvas colour for this long before the layout reflows without them. */
export const LEAVE_REFLOW_DELAY_MS = 3500;

/** A user's video as far as the compositor knows; "stopped" is not a state but time passing since the last frame. */
export type UserVideoState =
  | { readonly kind: 'never-sent' }
  | { readonly kind: 'sending'; readonly lastFrameAtMs: number }
  | { readonly kind: 'left'; readonly leftAtMs: number };

export const NEVER_SENT: UserVideoState = Object.freeze({ kind: 'never-sent' });

export function videoFrameArrived(state: UserVideoState, atMs: number): UserVideoState {
  if (state.kind === 'left') return state;
  if (state.kind === 'sending' && state.lastFrameAtMs >= atMs) return state;
  return Object.freeze({ kind: 'sending', lastFrameAtMs: atMs });
}

export function userLeft(state: UserVideoState, atMs: number): UserVideoState {
  return state.kind === 'left' ? state : Object.freeze({ kind: 'left', leftAtMs: atMs });
}

/** Which decoded images exist for this user's region (an image that failed to download does not count). */
export interface AvailableImages {
  /** This user's own `backgroundConfig` image. */
  readonly own: boolean;
  /** `defaultUserBackgroundImage`. */
  readonly defaultUser: boolean;
  /** The canvas `backgroundImage`. */
  readonly canvas: boolean;
}

export type UserDisplay =
  /** The latest frame: live, held for under 3.5 s, or held on because no image is configured. */
  | { readonly kind: 'frame' }
  | { readonly kind: 'user-image'; readonly image: 'own' | 'default' }
  /** The canvas background image, seen through the region. */
  | { readonly kind: 'canvas-image' }
  /** Just left: the canvas colour until the layout reflows. */
  | { readonly kind: 'background-colour' }
  /** Never sent video and no user image: the region's own rule (transparent or background). */
  | { readonly kind: 'no-picture' }
  /** Left long enough ago to be dropped from the layout. */
  | { readonly kind: 'gone' };

const FRAME: UserDisplay = Object.freeze({ kind: 'frame' });
const OWN_IMAGE: UserDisplay = Object.freeze({ kind: 'user-image', image: 'own' });
const DEFAULT_IMAGE: UserDisplay = Object.freeze({ kind: 'user-image', image: 'default' });
const CANVAS_IMAGE: UserDisplay = Object.freeze({ kind: 'canvas-image' });
const BACKGROUND_COLOUR: UserDisplay = Object.freeze({ kind: 'background-colour' });
const NO_PICTURE: UserDisplay = Object.freeze({ kind: 'no-picture' });
const GONE: UserDisplay = Object.freeze({ kind: 'gone' });

/**
 * Sending, or stopped for under 3.5 s: the last frame. Stopped for 3.5 s or more: own image, else the default user
 * image, else the canvas image; with no image at all the last frame stays. Never sent: own or default image, else
 * no picture. Left: canvas colour for 3.5 s, then gone.
 */
export function userDisplayAt(state: UserVideoState, nowMs: number, images: AvailableImages): UserDisplay {
  switch (state.kind) {
    case 'never-sent':
      return images.own ? OWN_IMAGE : images.defaultUser ? DEFAULT_IMAGE : NO_PICTURE;
    case 'sending':
      if (nowMs - state.lastFrameAtMs < VIDEO_STOP_GRACE_MS) return FRAME;
      return images.own ? OWN_IMAGE : images.defaultUser ? DEFAULT_IMAGE : images.canvas ? CANVAS_IMAGE : FRAME;
    case 'left':
      return nowMs - state.leftAtMs < LEAVE_REFLOW_DELAY_MS ? BACKGROUND_COLOUR : GONE;
  }
}

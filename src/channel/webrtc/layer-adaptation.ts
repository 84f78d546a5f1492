/**
 * Which encoding of a simulcast publisher a subscriber gets (docs/channel.md, "Simulcast"): `high` the one with the
 * most bits, `low` the one with the fewest. A publisher without simulcast has one, which is both.
 */
import type { DelaySignal } from './delay-trend.ts';

export type LayerChoice = 'high' | 'low';
export const LAYER_CHOICES: readonly LayerChoice[] = ['high', 'low'];

/** What a viewer asks for: a layer pinned, or `auto`, the layer its reported loss allows (a `SwitchingLayerView`, simulcast.ts). */
export type ViewerLayer = LayerChoice | 'auto';
export const VIEWER_LAYERS: readonly ViewerLayer[] = [...LAYER_CHOICES, 'auto'];

/**
 * Which simulcast layer a viewer that pinned none gets, from the loss its receiver reports tell (RFC 3550 fraction
 * lost of the viewer's video stream; docs/channel.md, "Viewers adapt"). Pure: the session feeds it reports and
 * the clock's time. A link too narrow for the high layer overflows its queue, and the loss shows in the next
 * report (0.5-1.5 s apart from werift, about 1 s from Chromium); random loss of a few percent does not move it.
 *
 * - `high`: a report above `downLoss` twice in a row, or one above `burstLoss`, takes it to `low`.
 * - `low`: after `backoffMs` and a clean report (below `cleanLoss`), it tries `high` again.
 * - `trying`: the same loss rule within `tryMs` takes it back to `low` with the back-off doubled (up to
 *   `maxBackoffMs`); `tryMs` without it makes it `high` and resets the back-off.
 *
 * Trying is how it finds that a link cleared: a viewer on the low layer gets only what that layer sends, so its
 * reports cannot tell how much more would fit.
 *
 * A queue that grows in front of the viewer's link (the delay trend of its transport-cc feedback, delay-trend.ts)
 * moves it as a burst of loss would (`adaptToDelay`), before the queue overflows: a browser viewer sends that
 * feedback (Chromium every 50-100 ms), so does reeltime's WHEP client.
 */
export type LayerAdaptation =
  | { readonly kind: 'high'; readonly backoffMs: number; readonly lossy: boolean }
  | { readonly kind: 'low'; readonly since: number; readonly backoffMs: number }
  | { readonly kind: 'trying'; readonly since: number; readonly backoffMs: number; readonly lossy: boolean };

export interface AdaptationRules {
  /** Loss fraction above which two reports in a row mean the layer does not fit. */
  readonly downLoss: number;
  /** Loss fraction above which one report does. */
  readonly burstLoss: number;
  /** Loss fraction below which a report is clean enough to try the high layer. */
  readonly cleanLoss: number;
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  readonly tryMs: number;
}

export const ADAPTATION_RULES: AdaptationRules = {
  downLoss: 0.1,
  burstLoss: 0.3,
  cleanLoss: 0.02,
  backoffMs: 8000,
  maxBackoffMs: 64_000,
  tryMs: 5000,
};

export const startAdaptation = (rules: AdaptationRules = ADAPTATION_RULES): LayerAdaptation => ({ kind: 'high', backoffMs: rules.backoffMs, lossy: false });

/** The layer a state sends. */
export const adaptedLayer = (s: LayerAdaptation): LayerChoice => (s.kind === 'low' ? 'low' : 'high');

/** The next state after a receiver report of `fractionLost` (0..1) at `at` (ms). */
export function adapt(s: LayerAdaptation, fractionLost: number, at: number, rules: AdaptationRules = ADAPTATION_RULES): LayerAdaptation {
  const lossy = fractionLost > rules.downLoss;
  const overflowing = fractionLost > rules.burstLoss || (lossy && s.kind !== 'low' && s.lossy);
  switch (s.kind) {
    case 'high':
      return overflowing ? { kind: 'low', since: at, backoffMs: s.backoffMs } : { ...s, lossy };
    case 'trying':
      if (overflowing) return { kind: 'low', since: at, backoffMs: Math.min(s.backoffMs * 2, rules.maxBackoffMs) };
      if (at - s.since >= rules.tryMs) return { kind: 'high', backoffMs: rules.backoffMs, lossy };
      return { ...s, lossy };
    case 'low':
      return at - s.since >= s.backoffMs && fractionLost < rules.cleanLoss ? { kind: 'trying', since: at, backoffMs: s.backoffMs, lossy: false } : s;
  }
}

/** The next state after the viewer's delay trend (delay-trend.ts) said `signal` at `at` (ms): overuse moves it down. */
export function adaptToDelay(s: LayerAdaptation, signal: DelaySignal, at: number, rules: AdaptationRules = ADAPTATION_RULES): LayerAdaptation {
  if (signal !== 'overuse') return s;
  switch (s.kind) {
    case 'high':
      return { kind: 'low', since: at, backoffMs: s.backoffMs };
    case 'trying':
      return { kind: 'low', since: at, backoffMs: Math.min(s.backoffMs * 2, rules.maxBackoffMs) };
    case 'low':
      return s;
  }
}

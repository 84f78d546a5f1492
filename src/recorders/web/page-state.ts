/**
 * The web session's page, as one state and one transition function (pure): waiting for the page's `notifyReady`
 * (with the `readyTimeout` misses, renderer crashes and audio losses counted), ready, or ended with a stop code; on hold or not
 * while it lives. The session runs the effects: reloads, the capture's encoder paused or resumed, the ready timer
 * cancelled, the end, and which page failure ends it with which code (docs/recording-web.md, "readyTimeout" and
 * "Events").
 */
import type { CaptureEvent } from '../../media/capture/index.ts';
import { WEB_STOP, type WebStop } from '../../recording/index.ts';

export type WebPageState =
  /** The page has not called notifyReady yet (detection on): nothing is encoded. */
  | { readonly kind: 'waiting'; readonly onhold: boolean; readonly readyMisses: number; readonly crashes: number; readonly audioLosses: number }
  /** The page is ready (or detection is off): recording unless on hold. */
  | { readonly kind: 'ready'; readonly onhold: boolean; readonly crashes: number; readonly audioLosses: number }
  | { readonly kind: 'ended'; readonly stop: WebStop; readonly details: string };

/** What the capture tells about the page. */
export type PageEvent = Extract<CaptureEvent, { readonly kind: 'page-ready' | 'renderer-crashed' | 'audio-service-lost' | 'document-status' | 'load-failed' | 'capability-limit' | 'child-exited' }>;

export type WebPageInput =
  | PageEvent
  | { readonly kind: 'ready-timeout' }
  /** A reload finished: `failure` when the page did not load (404, 5xx, nothing at all). */
  | { readonly kind: 'reloaded'; readonly failure: string | undefined }
  | { readonly kind: 'hold'; readonly onhold: boolean }
  | { readonly kind: 'end'; readonly stop: WebStop; readonly details: string };

export type WebPageEffect =
  /** Event 73 with the reason, then the page reloaded (its readyTimeout starts over). */
  | { readonly kind: 'reload'; readonly reason: 'page_load_timeout' | 'renderer_crashed' | 'audio_silence' }
  | { readonly kind: 'cancel-ready-timer' }
  /** The page loaded again while waiting for notifyReady: its readyTimeout starts over. */
  | { readonly kind: 'arm-ready-timer' }
  /** Event 72 with the limit's type (the end follows). */
  | { readonly kind: 'capability-limit'; readonly limitType: string }
  /** The encoder pauses (a hold began); the CDN push is reported on hold. */
  | { readonly kind: 'pause' }
  /** The encoder runs again; `afterHold`: the CDN push is reported connecting. */
  | { readonly kind: 'resume'; readonly afterHold: boolean }
  | { readonly kind: 'end'; readonly stop: WebStop; readonly details: string };

export interface WebPageStep {
  readonly state: WebPageState;
  readonly effects: readonly WebPageEffect[];
}

/** At start: waiting for notifyReady when `readyTimeout` detection is on. */
export function initialPageState(readyDetection: boolean, onhold: boolean): WebPageState {
  return readyDetection ? { kind: 'waiting', onhold, readyMisses: 0, crashes: 0, audioLosses: 0 } : { kind: 'ready', onhold, crashes: 0, audioLosses: 0 };
}

/** The encoder runs: the page is ready and the session not on hold. */
export function isRecording(s: WebPageState): boolean {
  return s.kind === 'ready' && !s.onhold;
}

const stay = (state: WebPageState): WebPageStep => ({ state, effects: [] });

function ended(stop: WebStop, details: string): WebPageStep {
  return { state: { kind: 'ended', stop, details }, effects: [{ kind: 'end', stop, details }] };
}

export function stepPage(s: WebPageState, input: WebPageInput): WebPageStep {
  if (s.kind === 'ended') return stay(s);
  switch (input.kind) {
    case 'end':
      return ended(input.stop, input.details);
    case 'ready-timeout':
      if (s.kind !== 'waiting') return stay(s);
      // A second miss (the first reload did not help) ends the session.
      if (s.readyMisses + 1 >= 2) return ended(WEB_STOP.pageLoadTimeout, 'the page did not call notifyReady in time after a reload');
      return { state: { ...s, readyMisses: s.readyMisses + 1 }, effects: [{ kind: 'reload', reason: 'page_load_timeout' }] };
    case 'page-ready':
      if (s.kind !== 'waiting') return stay(s);
      return {
        state: { kind: 'ready', onhold: s.onhold, crashes: s.crashes, audioLosses: s.audioLosses },
        effects: [{ kind: 'cancel-ready-timer' }, ...(s.onhold ? [] : [{ kind: 'resume', afterHold: false } as const])],
      };
    case 'document-status':
      return input.status === 404 || input.status >= 500 ? ended(WEB_STOP.accessUrlFailed, `HTTP ${input.status}`) : stay(s);
    case 'load-failed':
      return ended(WEB_STOP.accessUrlFailed, input.errorText);
    case 'reloaded':
      if (input.failure !== undefined) return ended(WEB_STOP.accessUrlFailed, input.failure);
      return { state: s, effects: s.kind === 'waiting' ? [{ kind: 'arm-ready-timer' }] : [] };
    case 'capability-limit': {
      const end = ended(WEB_STOP.capabilityLimit, `the page uses ${input.limitType}`);
      return { state: end.state, effects: [{ kind: 'capability-limit', limitType: input.limitType }, ...end.effects] };
    }
    case 'child-exited':
      return ended(WEB_STOP.recorderError, `${input.child} exited`);
    case 'renderer-crashed':
      if (s.crashes + 1 >= 2) return ended(WEB_STOP.recorderError, 'the page renderer crashed again after a reload');
      return { state: { ...s, crashes: s.crashes + 1 }, effects: [{ kind: 'reload', reason: 'renderer_crashed' }] };
    case 'audio-service-lost':
      // One reload mends it (measured); if the sound is lost again, the recording goes on silent rather than
      // reloading the page over and over.
      return { state: { ...s, audioLosses: s.audioLosses + 1 }, effects: s.audioLosses === 0 ? [{ kind: 'reload', reason: 'audio_silence' }] : [] };
    case 'hold': {
      if (input.onhold === s.onhold) return stay(s);
      const state = { ...s, onhold: input.onhold };
      if (input.onhold) return { state, effects: [{ kind: 'pause' }] };
      // A page not ready yet starts its encoder on notifyReady.
      return { state, effects: s.kind === 'ready' ? [{ kind: 'resume', afterHold: true }] : [] };
    }
  }
}

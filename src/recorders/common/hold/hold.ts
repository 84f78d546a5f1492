/**
 * Pause and resume of a recording (`recordingConfig.onhold`, reeltime's extension; docs/recording-api.md, "Pause
 * and resume"): whether the session is on hold, the event each real change sends, and the held windows. Pure: the
 * session drops media while on hold and ends its streams, so the playlists continue with a discontinuity.
 */
import type { RecorderEventName } from '../../../recording/index.ts';

export interface HoldWindow {
  readonly startMs: number;
  /** Undefined while the hold lasts. */
  readonly endMs: number | undefined;
}

export class HoldState {
  readonly #windows: HoldWindow[] = [];

  constructor(onhold: boolean, nowMs: number) {
    if (onhold) this.#windows.push({ startMs: nowMs, endMs: undefined });
  }

  get onhold(): boolean {
    const last = this.#windows.at(-1);
    return last !== undefined && last.endMs === undefined;
  }

  /** Every hold so far, in order (the last one open while on hold). */
  get windows(): readonly HoldWindow[] {
    return this.#windows;
  }

  /** Applies a requested state; the event to send, or undefined when the state does not change (repeats are no-ops). */
  set(onhold: boolean, nowMs: number): Extract<RecorderEventName, 'recorderOnHold' | 'recorderResumed'> | undefined {
    if (onhold === this.onhold) return undefined;
    if (onhold) {
      this.#windows.push({ startMs: nowMs, endMs: undefined });
      return 'recorderOnHold';
    }
    const last = this.#windows.pop()!;
    this.#windows.push({ startMs: last.startMs, endMs: nowMs });
    return 'recorderResumed';
  }

  /** Whether instant `ms` lies in a hold (its start included, its end not). */
  heldAt(ms: number): boolean {
    return this.#windows.some((w) => w.startMs <= ms && (w.endMs === undefined || ms < w.endMs));
  }

  /** Time spent on hold up to `nowMs`. */
  heldMs(nowMs: number): number {
    return this.#windows.reduce((sum, w) => sum + (w.endMs ?? nowMs) - w.startMs, 0);
  }
}

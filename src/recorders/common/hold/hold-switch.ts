/**
 * A session's pause and resume (`recordingConfig.onhold`, docs/recording-api.md "Pause and resume"), shared by
 * individual and mix: the HoldState, started from the hold the control plane stored (`RecordingTask.settings.onhold`), the
 * changes applied one after another (a resume waits until the hold's media has ended), and events 1100/1101, each
 * sent once the mode's own work for it is done.
 */
import type { Clock } from '../../../clock/index.ts';
import type { RecorderSignals } from '../events.ts';
import { HoldState } from './hold.ts';

export interface HoldActions {
  /** Ends what is being recorded; resolves once its last slice is handed to the uploader. */
  pause(): Promise<void>;
  /** Lets the next media start a new stream. */
  resume(): void;
  /** True once the session is ending: a change then does nothing. */
  ending(): boolean;
}

export class HoldSwitch {
  readonly #state: HoldState;
  #change: Promise<void> = Promise.resolve();

  constructor(
    /** The hold the session starts in (`RecordingTask.settings.onhold`). */
    start: { readonly onhold: boolean },
    private readonly clock: Clock,
    private readonly signals: RecorderSignals,
    private readonly actions: HoldActions,
  ) {
    this.#state = new HoldState(start.onhold, clock.now());
  }

  get onhold(): boolean {
    return this.#state.onhold;
  }

  /** Whether instant `ms` (the session's clock) lies in a hold, now or an earlier one. */
  heldAt(ms: number): boolean {
    return this.#state.heldAt(ms);
  }

  /** After `recorder_started`: event 1100 for a session that starts on hold. */
  announce(): void {
    const first = this.#state.windows[0];
    if (this.#state.onhold && first) this.signals.emit('recorderOnHold', { UtcMs: first.startMs });
  }

  /** Applies an update's `onhold`; repeats of the current state change nothing and send nothing. */
  set(onhold: boolean): Promise<void> {
    this.#change = this.#change.then(async () => {
      if (this.actions.ending()) return;
      const at = this.clock.now();
      const event = this.#state.set(onhold, at);
      if (event === undefined) return;
      if (event === 'recorderOnHold') await this.actions.pause();
      else this.actions.resume();
      this.signals.emit(event, { UtcMs: at });
    });
    return this.#change;
  }
}

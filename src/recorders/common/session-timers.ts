/**
 * The two timers every recorder session runs on the injected clock: the idle exit (`maxIdleTime` with nobody to
 * record) and the `uploadingProgress` report about once a minute (docs/notify.md, "Recorder events").
 */
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { RecorderSignals } from './events.ts';

export const PROGRESS_INTERVAL_MS = 60_000;

/** Fires once after `ms` of continuous idleness; arming again while armed keeps the first deadline. */
export class IdleTimer {
  #timer: TimerHandle | undefined;
  #done = false;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /** Idle now: starts the countdown unless it runs already. */
  arm(): void {
    if (this.#timer || this.#done) return;
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#done = true;
      this.onIdle();
    }, this.ms);
  }

  /** Someone to record again: the countdown starts over next time. */
  disarm(): void {
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The session ends: never fires again. */
  dispose(): void {
    this.disarm();
    this.#done = true;
  }
}

/** Every PROGRESS_INTERVAL_MS: uploaded / recorded × 10000 from the storage session. */
export class ProgressReporter {
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly upload: Pick<UploadSession, 'status'>,
    private readonly signals: Pick<RecorderSignals, 'emit'>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.#timer = this.clock.setTimeout(() => {
      if (this.#stopped) return;
      void this.upload
        .status()
        .then((st) => {
          if (!this.#stopped) this.signals.emit('uploadingProgress', { progress: st.progress });
        })
        .catch((e: unknown) => this.log.warn({ err: (e as Error).message }, 'upload status unavailable'))
        .finally(() => {
          if (!this.#stopped) this.start();
        });
    }, PROGRESS_INTERVAL_MS);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) this.clock.clearTimeout(this.#timer);
  }
}

/** Event 33 `uploadingProgress` about once a minute, on the injected clock (docs/notify.md, "Recorder events"). */
import type { Clock, TimerHandle } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import type { RecorderSignals } from '../events.ts';

export const PROGRESS_INTERVAL_MS = 60_000;

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

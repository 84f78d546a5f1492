/**
 * A session's voice towards the control plane, the same in every mode: named events and statuses, in the order
 * they happen, over the dispatch report; the opening (status 2, event 30 `uploaderStarted`, status 3); the
 * uploader's storage trouble as warnings and errors; a user's stream states (43/44); and event 33 `uploadingProgress` about once a minute on the
 * injected clock (docs/notify.md, "Recorder events").
 */
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { RecorderReport, StreamState } from '../../../recording/dispatch/index.ts';
import { EVENT_STATUS } from '../../../recording/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import { recorderSignals, type RecorderSignals } from '../events.ts';
import { ProgressReporter } from './progress.ts';
import { uploadEventReporter } from './upload-events.ts';

export interface SessionSignalsDeps {
  readonly report: RecorderReport;
  readonly upload: Pick<UploadSession, 'onEvent' | 'status'>;
  readonly clock: Clock;
  readonly log: Logger;
}

export class SessionSignals implements RecorderSignals {
  readonly emit: RecorderSignals['emit'];
  readonly error: RecorderSignals['error'];
  readonly warning: RecorderSignals['warning'];
  readonly status: RecorderSignals['status'];
  readonly #progress: ProgressReporter;
  #unlistenUploads: (() => void) | undefined;

  constructor(private readonly d: SessionSignalsDeps) {
    const s = recorderSignals(d.report);
    this.emit = s.emit;
    this.error = s.error;
    this.warning = s.warning;
    this.status = s.status;
    this.#progress = new ProgressReporter(d.clock, d.upload, s, d.log);
  }

  /** Statuses 2 and 3 around event 30; from now on the uploader's storage events are reported. */
  open(): void {
    this.status('recorderStarting');
    this.emit('uploaderStarted', { status: EVENT_STATUS.ok });
    this.status('uploaderReady');
    this.#unlistenUploads = this.d.upload.onEvent(uploadEventReporter(this));
  }

  /** Event 33 about once a minute from now on. */
  startProgress(): void {
    this.#progress.start();
  }

  stopProgress(): void {
    this.#progress.stop();
  }

  /** Events 43/44: a user's audio or video stream is received or no longer. */
  streamState(uid: string, kind: 'audio' | 'video', state: StreamState): void {
    this.emit(kind === 'audio' ? 'audioStreamState' : 'videoStreamState', { streamUid: uid, state, UtcMs: this.d.clock.now() });
  }

  /** No more progress, and the uploader's events are no longer reported. */
  close(): void {
    this.#progress.stop();
    this.#unlistenUploads?.();
    this.#unlistenUploads = undefined;
  }
}

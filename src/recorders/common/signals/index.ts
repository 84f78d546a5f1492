export { PROGRESS_INTERVAL_MS, ProgressReporter } from './progress.ts';
export { SessionSignals, type SessionSignalsDeps } from './session-signals.ts';
export { uploadEventReporter } from './upload-events.ts';

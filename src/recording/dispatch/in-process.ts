import type { Dispatcher, Recorder, RecorderHandle, RecorderReport, RecordingMode, RecordingTask } from './types.ts';

/** Runs each session on the recorder registered for its mode, in this process. */
export function createInProcessDispatcher(recorders: readonly Recorder[]): Dispatcher {
  const byMode = new Map<RecordingMode, Recorder>();
  for (const r of recorders) {
    if (byMode.has(r.mode)) throw new Error(`two recorders registered for mode ${r.mode}`);
    byMode.set(r.mode, r);
  }
  return {
    supports: (mode) => byMode.has(mode),
    async launch(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const r = byMode.get(task.settings.mode);
      if (!r) throw new Error(`no recorder for mode ${task.settings.mode}`);
      return r.start(task, report);
    },
    async close() {},
  };
}

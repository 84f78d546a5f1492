/**
 * The `individual` mode Recorder the recording control plane dispatches to: validates nothing twice (the task
 * is already validated), opens the storage session, runs an IndividualSession and turns its outcome into the
 * dispatch interface's handle.
 */
import { join } from 'node:path';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import { openSessionIO, startInBackground, type LaunchDeps } from '../common/launch.ts';
import { individualOptions } from './options.ts';
import { IndividualSession } from './session.ts';

export interface IndividualRecorderDeps extends LaunchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/individual`. */
  readonly workRoot: string;
}

export function createIndividualRecorder(deps: IndividualRecorderDeps): Recorder {
  return {
    mode: 'individual',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const log = deps.log.child({ component: 'recorder-individual', sid: task.sid });
      const options = individualOptions(task);
      const io = await openSessionIO(deps, task, report, options.profile);
      const generation = options.backupIndex === undefined ? 'g0' : `g${options.backupIndex + 1}`;
      const session = new IndividualSession({
        task,
        options,
        report,
        source: io.source,
        upload: io.upload,
        clock: deps.clock,
        log,
        workDir: join(deps.workRoot, task.sid, generation),
      });
      startInBackground(session, io, report, log);
      return {
        update: (req) => session.update(req),
        stop: () => session.stop(),
      };
    },
  };
}

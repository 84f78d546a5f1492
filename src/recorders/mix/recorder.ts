/**
 * The `mix` mode Recorder the recording control plane dispatches to: opens the storage session and the channel
 * source (common/launch.ts), runs a MixSession and turns it into the dispatch interface's handle (with
 * `updateLayout`).
 */
import { join } from 'node:path';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import { openSessionIO, startInBackground, type LaunchDeps } from '../common/launch/index.ts';
import { generationDir, resumedBackupIndex } from '../common/output/index.ts';
import { mixOptions } from './options.ts';
import { MixSession } from './session.ts';

export interface MixRecorderDeps extends LaunchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/mix`. */
  readonly workRoot: string;
  /** The outbound guard's policy for background image URLs. */
  readonly policy: OutboundPolicy;
}

export function createMixRecorder(deps: MixRecorderDeps): Recorder {
  return {
    mode: 'mix',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const log = deps.log.child({ component: 'recorder-mix', sid: task.sid });
      const options = mixOptions(task);
      const io = await openSessionIO(deps, task, report, options.profile);
      const sessionDir = join(deps.workRoot, task.sid);
      const backupIndex = task.resumed ? await resumedBackupIndex(task.previousFiles, sessionDir) : undefined;
      const session = new MixSession({
        task,
        options,
        report,
        source: io.source,
        upload: io.upload,
        clock: deps.clock,
        log,
        workDir: join(sessionDir, generationDir(backupIndex)),
        backupIndex,
        policy: deps.policy,
      });
      startInBackground(session, io, report, log);
      return {
        update: (req) => session.update(req),
        updateLayout: (req) => session.updateLayout(req),
        stop: () => session.stop(),
      };
    },
  };
}

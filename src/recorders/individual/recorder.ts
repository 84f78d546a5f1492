/**
 * The `individual` mode Recorder the recording control plane dispatches to: validates nothing twice (the task
 * is already validated), opens the storage session, runs an IndividualSession and turns its outcome into the
 * dispatch interface's handle.
 */
import type { ChildProcess } from 'node:child_process';
import type { MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import { launchFollowingSession, type LaunchDeps } from '../common/launch/index.ts';
import { runWorkDir } from '../common/output/index.ts';
import { individualOptions } from './options.ts';
import { IndividualSession } from './session.ts';

export interface IndividualRecorderDeps extends LaunchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/individual`. */
  readonly workRoot: string;
  /** Slice length in seconds (`recording.individualSliceSeconds`, tests); absent: the service's 15 s. */
  readonly sliceSeconds?: number;
  /** The outbound guard's policy for the transcription hook's URL. */
  readonly policy: OutboundPolicy;
  readonly testHooks?: IndividualTestHooks;
}

/** Fault injection (tests), instead of patching prototypes. */
export interface IndividualTestHooks {
  /** Each slicer's ffmpeg child as it is spawned (a test kills it as a crash would). */
  readonly slicerLaunched?: (slicer: { readonly sid: string; readonly uid: string; readonly kind: MediaKind }, child: ChildProcess) => void;
}

export function createIndividualRecorder(deps: IndividualRecorderDeps): Recorder {
  return {
    mode: 'individual',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      // Past every earlier run's work dir too: a run killed before it reported a file must not share its names.
      const run = await runWorkDir(deps.workRoot, task);
      const options = individualOptions(task, run.backupIndex);
      const session = await launchFollowingSession(
        deps,
        task,
        report,
        { component: 'recorder-individual', options, workDir: run.workDir },
        (base) =>
          new IndividualSession({
            ...base,
            policy: deps.policy,
            ...(deps.meter ? { lossMeter: deps.meter.loss } : {}),
            ...(deps.sliceSeconds !== undefined ? { sliceSeconds: deps.sliceSeconds } : {}),
            ...(deps.testHooks?.slicerLaunched
              ? { slicerLaunched: (t: { uid: string; kind: MediaKind }, child: ChildProcess) => deps.testHooks?.slicerLaunched?.({ sid: task.sid, ...t }, child) }
              : {}),
          }),
      );
      return {
        update: (req) => session.update(req),
        stop: () => session.stop(),
      };
    },
  };
}

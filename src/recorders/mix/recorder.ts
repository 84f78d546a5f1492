/**
 * The `mix` mode Recorder the recording control plane dispatches to: opens the storage session and the channel
 * source (common/launch), runs a MixSession and turns it into the dispatch interface's handle (with
 * `updateLayout`).
 */
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import { launchFollowingSession, type LaunchDeps } from '../common/launch/index.ts';
import { runWorkDir } from '../common/output/index.ts';
import { mixOptions } from './options.ts';
import { MixSession } from './session.ts';

export interface MixRecorderDeps extends LaunchDeps {
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/mix`. */
  readonly workRoot: string;
  /** The outbound guard's policy for background image URLs. */
  readonly policy: OutboundPolicy;
  /** Take each simulcast publisher's smallest layer covering its region (`recording.mixFitLayers`; default true). */
  readonly fitLayers?: boolean;
  /** Slice length in seconds (`recording.mixSliceSeconds`, tests); absent: the service's 15 s. */
  readonly sliceSeconds?: number;
}

export function createMixRecorder(deps: MixRecorderDeps): Recorder {
  return {
    mode: 'mix',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const run = await runWorkDir(deps.workRoot, task);
      const session = await launchFollowingSession(
        deps,
        task,
        report,
        { component: 'recorder-mix', options: mixOptions(task), workDir: run.workDir },
        (base) => new MixSession({ ...base, backupIndex: run.backupIndex, policy: deps.policy, fitLayers: deps.fitLayers ?? true, sliceSeconds: deps.sliceSeconds }),
      );
      return {
        update: (req) => session.update(req),
        updateLayout: (req) => session.updateLayout(req),
        stop: () => session.stop(),
      };
    },
  };
}

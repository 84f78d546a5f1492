/**
 * What a session that follows the channel (individual, mix) answers through its channel follower: the
 * subscription update, a fatal refusal and stop are the follower's; the mode keeps its own media logic.
 */
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { RecorderReport, RecorderUpdate, RecordingTask, StopResult } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import type { ChannelFollower } from './channel-follower.ts';
import type { ChannelRefusal, ChannelSource } from './channel-source.ts';

/** What every following session is built from (launch/launch.ts's launchFollowingSession hands it over). */
export interface FollowingSessionDeps<Options> {
  readonly task: RecordingTask;
  /** The mode's settings, read from the start request once (the mode's options.ts). */
  readonly options: Options;
  readonly report: RecorderReport;
  readonly source: ChannelSource;
  readonly upload: UploadSession;
  readonly clock: Clock;
  readonly log: Logger;
  /** This run's work dir (common/output's runWorkDir). */
  readonly workDir: string;
}

export abstract class FollowingSession {
  protected abstract readonly follower: ChannelFollower;

  update(change: RecorderUpdate): Promise<void> {
    return this.follower.update(change);
  }

  /** A fatal refusal (bad or expired token): error event, abnormal status, the session ends. */
  fail(e: ChannelRefusal): Promise<void> {
    return this.follower.fail(e);
  }

  stop(): Promise<StopResult> {
    return this.follower.stop();
  }
}

/**
 * The `mix` mode Recorder the recording control plane dispatches to: opens the storage session, runs a
 * MixSession and turns it into the dispatch interface's handle (with `updateLayout`).
 */
import { join } from 'node:path';
import type { ChannelModule } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import type { StorageModule } from '../../storage/index.ts';
import { nextBackupIndex } from '../common/backup-index.ts';
import { ChannelRefusal, channelSource, type ChannelSource } from '../common/channel-source.ts';
import { recorderSignals } from '../common/events.ts';
import { mixOptions } from './options.ts';
import { MixSession } from './session.ts';

export interface MixRecorderDeps {
  readonly channel: ChannelModule;
  readonly storage: StorageModule;
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/mix`. */
  readonly workRoot: string;
  /** This process's HTTP base URL (WHEP endpoint), known once the server listens. */
  readonly baseUrl: () => string;
  /** The outbound guard's policy for background image URLs. */
  readonly policy: OutboundPolicy;
  /** Replaces the channel source (tests). */
  readonly source?: (task: RecordingTask) => ChannelSource;
}

export function createMixRecorder(deps: MixRecorderDeps): Recorder {
  return {
    mode: 'mix',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const log = deps.log.child({ component: 'recorder-mix', sid: task.sid });
      const options = mixOptions(task);
      const signals = recorderSignals(report);
      signals.status('initialized');
      const upload = await deps.storage.openSession({
        sid: task.sid,
        appId: task.appId,
        cname: task.cname,
        uid: task.uid,
        storage: task.clientRequest.storageConfig,
      });
      const source =
        deps.source?.(task) ??
        channelSource({
          channel: deps.channel,
          baseUrl: deps.baseUrl,
          appId: task.appId,
          cname: task.cname,
          uid: task.uid,
          token: task.clientRequest.token,
          profile: options.profile,
        });
      const backupIndex = task.resumed ? nextBackupIndex(task.previousFiles) : undefined;
      const session = new MixSession({
        task,
        options,
        report,
        source,
        upload,
        clock: deps.clock,
        log,
        workDir: join(deps.workRoot, task.sid, backupIndex === undefined ? 'g0' : `g${backupIndex + 1}`),
        backupIndex,
        policy: deps.policy,
      });
      // Joining happens after the handle is returned: a refused token ends the session through the report.
      void session.start().catch((e: Error) => {
        if (e instanceof ChannelRefusal) return session.fail(e);
        log.error({ err: e.message }, 'mix recorder failed to start');
        signals.status('exitedAbnormally');
        void session.stop().catch(() => undefined);
        report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: false, message: 'recorder failed to start' });
      });
      return {
        update: (req) => session.update(req),
        updateLayout: (req) => session.updateLayout(req),
        stop: () => session.stop(),
      };
    },
  };
}

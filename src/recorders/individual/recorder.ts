/**
 * The `individual` mode Recorder the recording control plane dispatches to: validates nothing twice (the task
 * is already validated), opens the storage session, runs an IndividualSession and turns its outcome into the
 * dispatch interface's handle.
 */
import { join } from 'node:path';
import type { ChannelModule } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import type { StorageModule } from '../../storage/index.ts';
import { recorderSignals } from '../common/events.ts';
import { ChannelRefusal, channelSource, type ChannelSource } from '../common/channel-source.ts';
import { fenceUploads } from '../common/fenced-upload.ts';
import { individualOptions } from './options.ts';
import { IndividualSession } from './session.ts';

export interface IndividualRecorderDeps {
  readonly channel: ChannelModule;
  readonly storage: StorageModule;
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (slices before upload, MP4s): `<dataDir>/recorder/individual`. */
  readonly workRoot: string;
  /** This process's HTTP base URL (WHEP endpoint), known once the server listens. */
  readonly baseUrl: () => string;
  /** Replaces the channel source (tests). */
  readonly source?: (task: RecordingTask) => ChannelSource;
}

export function createIndividualRecorder(deps: IndividualRecorderDeps): Recorder {
  return {
    mode: 'individual',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const log = deps.log.child({ component: 'recorder-individual', sid: task.sid });
      const options = individualOptions(task);
      const signals = recorderSignals(report);
      signals.status('initialized');
      const upload = fenceUploads(
        await deps.storage.openSession({
          sid: task.sid,
          appId: task.appId,
          cname: task.cname,
          uid: task.uid,
          storage: task.clientRequest.storageConfig,
        }),
        task.fence,
      );
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
      const generation = options.backupIndex === undefined ? 'g0' : `g${options.backupIndex + 1}`;
      const session = new IndividualSession({
        task,
        options,
        report,
        source,
        upload,
        clock: deps.clock,
        log,
        workDir: join(deps.workRoot, task.sid, generation),
      });
      // Joining happens after the handle is returned: a refused token ends the session through the report.
      void session.start().catch((e: Error) => {
        if (e instanceof ChannelRefusal) return session.fail(e);
        log.error({ err: e.message }, 'individual recorder failed to start');
        signals.status('exitedAbnormally');
        report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: false, message: 'recorder failed to start' });
      });
      return {
        update: (req) => session.update(req),
        stop: () => session.stop(),
      };
    },
  };
}

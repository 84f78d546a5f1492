/**
 * The `web` mode Recorder the recording control plane dispatches to: opens the storage session, runs a
 * WebSession and turns its outcome into the dispatch interface's handle. Layout updates are refused earlier,
 * by the control plane (web mode has none).
 */
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask } from '../../recording/dispatch/index.ts';
import { WEB_STOP } from '../../recording/index.ts';
import type { StorageModule } from '../../storage/index.ts';
import { recorderSignals } from '../common/events.ts';
import { runWorkDir } from '../common/output/index.ts';
import { openUpload } from '../common/launch/index.ts';
import type { RecorderMeter } from '../common/launch/index.ts';
import { webOptions, type WebTuning } from './options.ts';
import { WebSession } from './session.ts';

export interface WebRecorderDeps {
  readonly storage: StorageModule;
  readonly clock: Clock;
  readonly log: Logger;
  /** Root of the recorder's local work (segments before upload, MP4s): `<dataDir>/recorder/web`. */
  readonly workRoot: string;
  readonly tuning?: WebTuning;
  /** Counts slices and streams for /metrics. */
  readonly meter?: RecorderMeter | undefined;
  /** Where private targets are refused: the page URL's guard, whose approved address the browser is pinned to. */
  readonly pageUrlPolicy?: OutboundPolicy | undefined;
  /** `recording.webPageHosts` (see WebSessionDeps). */
  readonly pageHosts?: readonly string[] | undefined;
}

export function createWebRecorder(deps: WebRecorderDeps): Recorder {
  return {
    mode: 'web',
    async start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle> {
      const log = deps.log.child({ component: 'recorder-web', sid: task.sid });
      const options = webOptions(task, deps.tuning);
      recorderSignals(report).status('initialized');
      const upload = await openUpload(deps.storage, task, deps.meter);
      // A session handed over after a restart starts a new page and names its files `bak<n>_…`.
      const run = await runWorkDir(deps.workRoot, task);
      const session = new WebSession({
        task,
        options,
        report,
        upload,
        clock: deps.clock,
        log,
        workDir: run.workDir,
        naming: { sid: task.sid, cname: task.cname, backupIndex: run.backupIndex },
        pageUrlPolicy: deps.pageUrlPolicy,
        pageHosts: deps.pageHosts,
      });
      // The page opens after the handle is returned: a page that fails ends the session through the report.
      void session.start().catch((e: Error) => {
        log.error({ err: e.message }, 'web recorder failed to start');
        void session.fail(WEB_STOP.startEngineFailed, e.message).catch(() => undefined);
      });
      return {
        update: (req) => session.update(req),
        stop: () => session.stop(),
      };
    },
  };
}

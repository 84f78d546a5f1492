/**
 * What every mode's Recorder does to launch a session: the first status, the storage upload session and the
 * channel source with the task's token; then the session's start runs after the handle is returned, a refused
 * token ending it through the report.
 */
import type { ChannelModule, Profile } from '../../../channel/index.ts';
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { RecorderReport, RecordingTask } from '../../../recording/dispatch/index.ts';
import { RecorderRefusedError } from '../../../recording/index.ts';
import type { StorageModule, UploadSession } from '../../../storage/index.ts';
import { ChannelRefusal, channelSource, type ChannelSource, type ChannelSourceOptions, type FollowingSession, type FollowingSessionDeps, type MediaPath } from '../follower/index.ts';
import { recorderSignals, type RecorderSignals } from '../events.ts';
import { fenceUploads } from '../output/index.ts';
import { meterUploads, type RecorderMeter } from './meter.ts';

export interface LaunchDeps {
  readonly channel: ChannelModule;
  readonly storage: StorageModule;
  /** This process's HTTP base URL (WHEP endpoint), known once the server listens. */
  readonly baseUrl: () => string;
  /** How publishers' media reaches the recorder (default `auto`: in-process tap when the SFU runs here). */
  readonly mediaPath?: MediaPath;
  /** Replaces the channel source (tests). */
  readonly source?: (task: RecordingTask) => ChannelSource;
  /** Each WHEP peer the channel source makes (fault injection in tests; ChannelSourceOptions.whepPeerMade). */
  readonly whepPeerMade?: ChannelSourceOptions['whepPeerMade'];
  /** Counts slices and streams for /metrics (processes with the recorder role). */
  readonly meter?: RecorderMeter | undefined;
  /** The recorders' injected clock (WHEP re-subscription bounds, among the session's timers). */
  readonly clock: Clock;
  readonly log: Logger;
}

export interface SessionIO {
  readonly signals: RecorderSignals;
  readonly upload: UploadSession;
  readonly source: ChannelSource;
}

/**
 * The task's upload session, fenced: past its lease (multi-process dispatch) a recorder hands nothing more to the
 * spool (docs/deployment.md).
 */
export async function openUpload(storage: StorageModule, task: RecordingTask, meter?: RecorderMeter): Promise<UploadSession> {
  const upload = await storage.openSession({
    sid: task.sid,
    appId: task.appId,
    cname: task.cname,
    uid: task.uid,
    storage: task.storage,
  });
  return meterUploads(fenceUploads(upload, task.fence), task.settings.mode, meter);
}

/**
 * The task's view of the channel, checked (refuseTakenUid), then status `initialized` and the task's upload session.
 * Throws RecorderRefusedError before anything is opened.
 */
async function openSessionIO(deps: LaunchDeps, task: RecordingTask, report: RecorderReport, profile: Profile): Promise<SessionIO> {
  const source =
    deps.source?.(task) ??
    channelSource({
      channel: deps.channel,
      baseUrl: deps.baseUrl,
      appId: task.appId,
      cname: task.cname,
      uid: task.uid,
      token: task.token,
      profile,
      ...(task.settings.mode !== 'web' ? { layer: task.settings.subscription.videoLayer } : {}),
      clock: deps.clock,
      log: deps.log.child({ component: 'channel-source', sid: task.sid }),
      ...(deps.mediaPath ? { mediaPath: deps.mediaPath } : {}),
      ...(deps.whepPeerMade ? { whepPeerMade: deps.whepPeerMade } : {}),
    });
  refuseTakenUid(task, source);
  const signals = recorderSignals(report);
  signals.status('initialized');
  const upload = await openUpload(deps.storage, task, deps.meter);
  return { signals, upload, source };
}

/**
 * The spec's recording `uid` "must not duplicate any UID in the channel": a first launch whose uid a publisher in the
 * channel already uses is refused (that publisher could never be recorded). A resumed session goes on; the follower
 * warns when such a publisher appears later (ChannelFollower, warnCode 1107).
 */
export function refuseTakenUid(task: RecordingTask, source: Pick<ChannelSource, 'snapshot'>): void {
  if (task.resumed) return;
  const uid = Number(task.uid);
  if (!source.snapshot().participants.some((p) => p.uid === uid && p.tracks.length > 0)) return;
  throw new RecorderRefusedError('uid', `${task.uid} is the uid of a publisher in channel ${task.cname}; the recording uid must not duplicate any uid in the channel`);
}

export interface StartableSession {
  start(): Promise<void>;
  fail(e: ChannelRefusal): Promise<void>;
}

/** Runs the session's start in the background: a refused token ends it as a failure, any other fault as an error. */
function startInBackground(session: StartableSession, io: SessionIO, report: RecorderReport, log: Logger): void {
  void session.start().catch((e: Error) => {
    if (e instanceof ChannelRefusal) return session.fail(e);
    log.error({ err: e.message }, 'recorder failed to start');
    io.signals.status('exitedAbnormally');
    report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: false, message: 'recorder failed to start' });
  });
}

/**
 * Launches a following session (individual, mix): its log, status `initialized`, the upload session and the
 * channel source, then `build` makes the session from them, whose start runs after the handle is returned.
 */
export async function launchFollowingSession<Options extends { readonly profile: Profile }, Session extends FollowingSession & StartableSession>(
  deps: LaunchDeps,
  task: RecordingTask,
  report: RecorderReport,
  run: { readonly component: string; readonly options: Options; readonly workDir: string },
  build: (base: FollowingSessionDeps<Options>) => Session,
): Promise<Session> {
  const log = deps.log.child({ component: run.component, sid: task.sid });
  const io = await openSessionIO(deps, task, report, run.options.profile);
  const session = build({ task, options: run.options, report, source: io.source, upload: io.upload, clock: deps.clock, log, workDir: run.workDir });
  startInBackground(session, io, report, log);
  return session;
}

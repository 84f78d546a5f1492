/**
 * One session held by a recorder process under a lease: starts the recorder (rejoining with a new uid after a
 * failover), answers control messages (control-endpoint.ts), keeps the lease (lease-keeper.ts) and runs until the
 * session is stopped, ends on its own, ends elsewhere or the lease is lost. The recorder's own state is a
 * `HeldState`, changed only by `heldAfter`.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { MessageBus } from '../../../redis/index.ts';
import { RecorderRefusedError, type LiveTask, type StoppingTask, type Task } from '../../lifecycle/index.ts';
import type { TaskStore } from '../../store/index.ts';
import { SERVICE_EVENTS } from '../../vocabulary/index.ts';
import { recordingTaskOf } from '../recording-task.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingTask, StopResult, WriteFence } from '../types.ts';
import { openControlEndpoint } from './control-endpoint.ts';
import type { Lease, LeaseStore } from './lease.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { topics, type Accepted, type ControlReply } from './protocol.ts';

/**
 * `starting`: the recorder is being started. `running`: it records. `stopping`: its one stop is under way (every
 * stop asked for gets that stop's result). `failed`: it did not start.
 */
export type HeldState =
  | { readonly kind: 'starting' }
  | { readonly kind: 'running'; readonly handle: RecorderHandle }
  | { readonly kind: 'stopping'; readonly handle: RecorderHandle; readonly stopped: Promise<StopResult> }
  | { readonly kind: 'failed' };

export type HeldEvent =
  | { readonly kind: 'started'; readonly handle: RecorderHandle }
  | { readonly kind: 'startFailed' }
  | { readonly kind: 'stopAsked'; readonly stopped: Promise<StopResult> };

/** The one transition function of a held session's recorder. */
export function heldAfter(s: HeldState, ev: HeldEvent): HeldState {
  switch (ev.kind) {
    case 'started':
      return s.kind === 'starting' ? { kind: 'running', handle: ev.handle } : s;
    case 'startFailed':
      return s.kind === 'starting' ? { kind: 'failed' } : s;
    case 'stopAsked':
      // Only a running recorder begins a stop; a second ask joins the first.
      return s.kind === 'running' ? { kind: 'stopping', handle: s.handle, stopped: ev.stopped } : s;
  }
}

/** The session of the job still needs a recorder: live, or stopping (its recorder died during the stop). */
export const isHeldSession = (t: Task | undefined, sid: string): t is LiveTask | StoppingTask =>
  (t?.kind === 'live' || t?.kind === 'stopping') && t.session.sid === sid;

/** A random uid for the recorder that takes a session over, never the one it had. */
function newUid(old: string): string {
  for (;;) {
    const uid = String(randomInt(1, 2 ** 32 - 1));
    if (uid !== old) return uid;
  }
}

export interface HeldSessionDeps {
  readonly store: TaskStore;
  readonly leases: LeaseStore;
  readonly bus: MessageBus;
  readonly clock: Clock;
  readonly log: Logger;
  readonly leaseMs: number;
  readonly reportFor: (task: LiveTask | StoppingTask, fence: WriteFence) => RecorderReport;
  readonly rejoinToken?: ((appId: string, cname: string, uid: string) => string | undefined) | undefined;
  readonly publish: (topic: string, body: unknown) => void;
  /** Where the session registers how to let it go when this process shuts down (removed when it ends). */
  readonly running: Set<() => Promise<void>>;
}

export type HeldOutcome = 'failed' | 'fenced' | 'done';

/** Runs the session here until it is over; `fenced`: the lease was lost or let go, and the job should go back to the queue. */
export async function runHeldSession(
  d: HeldSessionDeps,
  task: LiveTask | StoppingTask,
  lease: Lease,
  acquiredAt: number,
  recorder: Recorder,
): Promise<HeldOutcome> {
  const sid = task.session.sid;
  const log = d.log.child({ resourceId: task.resource.resourceId, sid, epoch: lease.epoch });
  // Epoch 1 is the first recorder; any later one takes over from a recorder that stopped renewing.
  const failover = lease.epoch > 1;
  let state: HeldState = { kind: 'starting' };
  let over: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (over = resolve));
  let handleReady: (h: RecorderHandle | undefined) => void = () => undefined;
  const ready = new Promise<RecorderHandle | undefined>((resolve) => (handleReady = resolve));

  /** The session's one stop: its result completes the session here and answers whoever asked. */
  const stop = (): Promise<StopResult> => {
    if (state.kind === 'stopping') return state.stopped;
    if (state.kind !== 'running') return Promise.reject(new Error('the recorder is not running'));
    const stopped = state.handle
      .stop()
      .then((result) => {
        if (!keeper.fenced) {
          keeper.complete();
          // Also answers a stop whose requester sent it to a recorder that died meanwhile (control.ts).
          d.publish(topics.stopped(sid), { ok: true, result } satisfies ControlReply);
        }
        return result;
      })
      .finally(() => over());
    state = heldAfter(state, { kind: 'stopAsked', stopped });
    return stopped;
  };

  const keeper: LeaseKeeper = new LeaseKeeper(
    {
      leases: d.leases,
      clock: d.clock,
      log,
      leaseMs: d.leaseMs,
      onLost: () => {
        if (state.kind === 'running' || state.kind === 'stopping') void state.handle.stop().catch(() => undefined);
        over();
      },
      afterRenewal: async () => {
        // Ended by another process (a start that gave up waiting for this recorder, an expiry): stop recording it.
        const now = await d.store.get(task.resource.resourceId).catch(() => task);
        if (state.kind === 'running' && !isHeldSession(now, sid)) {
          log.warn('the session ended elsewhere; stopping its recorder');
          void stop().catch(() => undefined);
        }
      },
    },
    lease,
    acquiredAt,
  );
  const leave = () => keeper.leave();
  d.running.add(leave);

  // Fencing: nothing this recorder reports reaches the store once its lease is gone (docs/deployment.md).
  const inner = d.reportFor(task, keeper.reportFence);
  const open = () => !keeper.fenced;
  const report: RecorderReport = {
    status: (s) => void (open() && inner.status(s)),
    files: (f) => void (open() && inner.files(f)),
    sliceStartTime: (ms) => void (open() && inner.sliceStartTime(ms)),
    rtmpStatus: (url, s) => void (open() && inner.rtmpStatus?.(url, s)),
    event: (t, s, details) => void (open() && inner.event(t, s, details)),
    ended: (o) => {
      if (open()) {
        keeper.complete();
        inner.ended(o);
      }
      over();
    },
  };

  // After a failover the recorder rejoins with a new random uid (and a token for it), writing bak<n>_ files.
  const uid = failover ? newUid(task.resource.uid) : task.resource.uid;
  const sessionTask = (): RecordingTask => {
    const base = recordingTaskOf(task, failover);
    if (!failover) return { ...base, fence: keeper.fence };
    const token = d.rejoinToken?.(task.resource.appId, task.resource.cname, uid) ?? base.token;
    return { ...base, uid, token, fence: keeper.fence };
  };

  const unsubscribe = await openControlEndpoint({ bus: d.bus, sid, ready, fenced: () => keeper.fenced, stop, publish: d.publish });

  try {
    let handle: RecorderHandle;
    try {
      handle = await recorder.start(sessionTask(), report);
    } catch (e) {
      const message = (e as Error).message;
      log.error({ err: message }, 'recorder failed to start');
      state = heldAfter(state, { kind: 'startFailed' });
      handleReady(undefined);
      // A first launch is ended by the API process that waits for the answer; after a take-over nobody waits.
      if (failover) report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: task.session.files.length > 0, message });
      else {
        const refused = e instanceof RecorderRefusedError ? { field: e.field, rule: e.rule } : undefined;
        d.publish(topics.accepted(sid), { ok: false, message, ...(refused ? { refused } : {}) } satisfies Accepted);
      }
      return 'failed';
    }
    state = heldAfter(state, { kind: 'started', handle });
    handleReady(handle);
    d.publish(topics.accepted(sid), { ok: true } satisfies Accepted);
    if (failover) {
      const e = SERVICE_EVENTS.sessionFailover;
      report.event(e.eventType, e.serviceType, { msgName: e.msgName, newUid: Number(uid) });
    }
    log.info({ failover, uid }, 'session accepted');
    if (task.kind === 'stopping') {
      // Its recorder died during a stop: finish that stop here (leftover slices included) and end the session,
      // whether or not the API process that asked is still waiting (it gets the same result if it asks again).
      void stop().then(
        (r) => report.ended({ reason: task.reason, uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything }),
        (e: Error) => report.ended({ reason: task.reason, uploadingStatus: 'unknown', recordedAnything: task.session.files.length > 0, message: e.message }),
      );
    }
    await finished;
    // The stop (if any) is awaited so its uploads are done before the job completes.
    if (state.kind === 'stopping') await state.stopped.catch(() => undefined);
    return keeper.fenced ? 'fenced' : 'done';
  } finally {
    d.running.delete(leave);
    keeper.stopRenewing();
    await unsubscribe().catch(() => undefined);
    await keeper.end();
  }
}

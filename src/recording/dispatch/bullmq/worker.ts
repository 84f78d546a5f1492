import { randomBytes, randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { TimerHandle } from '../../../clock/index.ts';
import type { LiveTask, StoppingTask, Task } from '../../lifecycle/index.ts';
import { recordingTaskOf } from '../../runtime.ts';
import type { TaskStore } from '../../store/index.ts';
import type { Area } from '../../validation/types.ts';
import { SERVICE_EVENTS } from '../../vocabulary/index.ts';
import type { Recorder, RecorderHandle, RecorderReport, RecordingMode, StopResult, WriteFence } from '../types.ts';
import { Admission } from './admission.ts';
import { bullConnection, bullPrefix, type QueueContext } from './connection.ts';
import { fitsWorker, type WorkerLabels } from './labels.ts';
import type { Lease } from './lease.ts';
import { placementNeeds } from './registry.ts';
import { QUEUE_NAME, topics, type Accepted, type ControlMessage, type ControlReply, type SessionJob } from './protocol.ts';

export interface RecorderWorkerDeps extends QueueContext {
  readonly store: TaskStore;
  readonly recorders: readonly Recorder[];
  /**
   * The runtime's report object for a task: reports become transitions in the shared database; one still waiting for
   * the database once `fence` no longer holds is applied as stale (runtime.ts, KeptReport).
   */
  readonly reportFor: (task: LiveTask | StoppingTask, fence: WriteFence) => RecorderReport;
  /** An RTC token for the new uid a recorder rejoins with after a failover (undefined: keep the start's token). */
  readonly rejoinToken?: (appId: string, cname: string, uid: string) => string | undefined;
  /** The area this recorder serves (`recording.region`); undefined: any. */
  readonly region?: Area | undefined;
}

export interface RecorderWorker {
  /** This process's name in lease rows. */
  readonly holder: string;
  close(): Promise<void>;
}

/** A refused job comes back after this long (another recorder may take it meanwhile). */
const REFUSED_RETRY_MS = 1000;

/** The session of the job still needs a recorder: live, or stopping (its recorder died during the stop). */
const isHeldSession = (t: Task | undefined, sid: string): t is LiveTask | StoppingTask =>
  (t?.kind === 'live' || t?.kind === 'stopping') && t.session.sid === sid;

/** The session moved to another recorder, which joined with `newUid` (docs/notify.md). */
const FAILOVER_EVENT = SERVICE_EVENTS.sessionFailover;

/** A random uid for the recorder that takes a session over, never the one it had. */
function newUid(old: string): string {
  for (;;) {
    const uid = String(randomInt(1, 2 ** 32 - 1));
    if (uid !== old) return uid;
  }
}

/**
 * The recorder side of queue-backed dispatch: takes sessions from the queue by capacity, holds each under a lease
 * (renewed on the injected clock) and runs it until it is stopped, ends on its own or the lease is lost.
 */
export function startRecorderWorker(d: RecorderWorkerDeps): RecorderWorker {
  const holder = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const byMode = new Map<RecordingMode, Recorder>(d.recorders.map((r) => [r.mode, r]));
  const admission = new Admission(d.settings.capacity, d.settings.cpuThresholdPercent);
  const leaseMs = d.settings.leaseMs;
  /** Per running session: fences it (used when this process shuts down and leaves its sessions to others). */
  const running = new Set<() => Promise<void>>();
  let closing = false;
  const connection = bullConnection(d.redisUrl, d.log, 'reeltime-worker');
  const minCost = Math.max(1, Math.min(...Object.values(d.settings.costs).filter((c) => c > 0), d.settings.capacity));

  // Advertised in the registry so API processes can refuse a session no recorder fits; checked again per job below.
  const labels: WorkerLabels = { id: holder, region: d.region };
  let announceTimer: TimerHandle | undefined;
  const announce = () => {
    if (closing) return;
    void d.workers.announce(labels, d.clock.now(), leaseMs).catch((e: Error) => d.log.warn({ err: e.message }, 'recorder announcement failed'));
    announceTimer = d.clock.setTimeout(announce, leaseMs / 3);
  };
  announce();

  const publish = (topic: string, body: unknown) => void d.bus.publish(topic, JSON.stringify(body)).catch(() => undefined);

  async function runSession(task: LiveTask | StoppingTask, lease: Lease, acquiredAt: number, recorder: Recorder): Promise<string> {
    const sid = task.session.sid;
    const log = d.log.child({ resourceId: task.resource.resourceId, sid, epoch: lease.epoch });
    // Epoch 1 is the first recorder; any later one takes over from a recorder that stopped renewing.
    const failover = lease.epoch > 1;
    /** The lease is ours until this instant by our own clock: past it we write nothing, renewed or not. */
    let validUntil = acquiredAt + leaseMs;
    let over: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (over = resolve));
    let fenced = false;
    let renewal: TimerHandle | undefined;
    const leave = async () => {
      fenced = true;
      if (renewal) d.clock.clearTimeout(renewal);
      await d.leases.release(lease).catch(() => undefined);
    };
    running.add(leave);
    const fence: WriteFence = { holds: () => !fenced && d.clock.now() < validUntil };
    /**
     * Set once the session ended here (its stop answered, or it ended on its own) with the lease still ours: the job
     * then completes, so no other recorder takes the session, and reports still waiting for the database (an outage
     * longer than the lease) are this session's last word, not stale.
     */
    let completed = false;
    const reportFence: WriteFence = { holds: () => !fenced && (completed || d.clock.now() < validUntil) };
    // Fencing: nothing this recorder reports reaches the store once its lease is gone (docs/deployment.md).
    const inner = d.reportFor(task, reportFence);
    const report: RecorderReport = {
      status: (s) => void (!fenced && inner.status(s)),
      files: (f) => void (!fenced && inner.files(f)),
      sliceStartTime: (ms) => void (!fenced && inner.sliceStartTime(ms)),
      rtmpStatus: (url, s) => void (!fenced && inner.rtmpStatus?.(url, s)),
      event: (t, s, details) => void (!fenced && inner.event(t, s, details)),
      ended: (o) => {
        if (!fenced) {
          completed = true;
          inner.ended(o);
        }
        over();
      },
    };

    // After a failover the recorder rejoins with a new random uid (and a token for it), writing bak<n>_ files.
    const uid = failover ? newUid(task.resource.uid) : task.resource.uid;
    const sessionTask = () => {
      const base = recordingTaskOf(task, failover);
      if (!failover) return { ...base, fence };
      const token = d.rejoinToken?.(task.resource.appId, task.resource.cname, uid) ?? base.clientRequest.token;
      return { ...base, uid, clientRequest: { ...base.clientRequest, ...(token !== undefined ? { token } : {}) }, fence };
    };

    let handle: RecorderHandle | undefined;
    let stopping: Promise<StopResult> | undefined;
    const stop = (): Promise<StopResult> =>
      (stopping ??= handle!
        .stop()
        .then((result) => {
          if (!fenced) completed = true;
          // Also answers a stop whose requester sent it to a recorder that died meanwhile (control.ts).
          if (!fenced) publish(topics.stopped(sid), { ok: true, result } satisfies ControlReply);
          return result;
        })
        .finally(() => over()));
    const answered = new Map<string, Promise<ControlReply>>();
    let handleReady: (h: RecorderHandle | undefined) => void = () => undefined;
    const ready = new Promise<RecorderHandle | undefined>((resolve) => (handleReady = resolve));
    const execute = async (m: ControlMessage): Promise<ControlReply> => {
      const h = await ready;
      if (!h || fenced) return { ok: false, message: 'the recorder no longer holds the session' };
      try {
        if (m.op === 'update') await h.update(m.change);
        else if (m.op === 'updateLayout') await h.updateLayout?.(m.request);
        else return { ok: true, result: await stop() };
        return { ok: true };
      } catch (e) {
        return { ok: false, message: (e as Error).message };
      }
    };
    const unsubscribe = await d.bus.subscribe(topics.control(sid), (raw) => {
      const m = JSON.parse(raw) as ControlMessage;
      // A resent message is answered from the first run (stop and update are not applied twice).
      let p = answered.get(m.id);
      if (!p) answered.set(m.id, (p = execute(m)));
      void p.then((r) => publish(topics.reply(m.id), r));
    });

    const renew = async () => {
      if (fenced) return;
      let ok: boolean;
      const asked = d.clock.now();
      try {
        ok = await d.leases.renew(lease, asked, leaseMs);
        if (ok) validUntil = asked + leaseMs;
      } catch (e) {
        // Database unreachable: keep recording while the lease lasts, then fence.
        ok = d.clock.now() < validUntil;
        log.warn({ err: (e as Error).message }, 'lease renewal failed');
      }
      if (!ok) {
        fenced = true;
        log.error('lease lost: this recorder stops writing; another takes the session');
        if (handle) void handle.stop().catch(() => undefined);
        over();
        return;
      }
      // Ended by another process (a start that gave up waiting for this recorder, an expiry): stop recording it.
      const now = await d.store.get(task.resource.resourceId).catch(() => task);
      if (handle && !stopping && !isHeldSession(now, sid)) {
        log.warn('the session ended elsewhere; stopping its recorder');
        void stop().catch(() => undefined);
      }
      renewal = d.clock.setTimeout(() => void renew(), leaseMs / 3);
    };
    renewal = d.clock.setTimeout(() => void renew(), leaseMs / 3);

    try {
      try {
        handle = await recorder.start(sessionTask(), report);
      } catch (e) {
        const message = (e as Error).message;
        log.error({ err: message }, 'recorder failed to start');
        handleReady(undefined);
        // A first launch is ended by the API process that waits for the answer; after a take-over nobody waits.
        if (failover) report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: task.session.files.length > 0, message });
        else publish(topics.accepted(sid), { ok: false, message } satisfies Accepted);
        return 'failed';
      }
      handleReady(handle);
      publish(topics.accepted(sid), { ok: true } satisfies Accepted);
      if (failover) report.event(FAILOVER_EVENT.eventType, FAILOVER_EVENT.serviceType, { msgName: FAILOVER_EVENT.msgName, newUid: Number(uid) });
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
      if (stopping) await stopping.catch(() => undefined);
      return fenced ? 'fenced' : 'done';
    } finally {
      running.delete(leave);
      if (renewal) d.clock.clearTimeout(renewal);
      await unsubscribe().catch(() => undefined);
      if (!fenced) await d.leases.release(lease).catch(() => undefined);
    }
  }

  async function take(job: Job<SessionJob>, token?: string): Promise<string> {
    const { resourceId, sid } = job.data;
    const task = await d.store.get(resourceId);
    // Ended (or never launched) meanwhile: nothing to record.
    if (!isHeldSession(task, sid)) return 'gone';
    if (closing) throw new Error('recorder shutting down');
    const recorder = byMode.get(task.session.mode);
    if (!recorder) {
      publish(topics.accepted(sid), { ok: false, message: `no recorder for mode ${task.session.mode}` } satisfies Accepted);
      return 'failed';
    }
    const cost = d.settings.costs[task.session.mode];
    const later = async (ms: number): Promise<never> => {
      await job.moveToDelayed(Date.now() + ms, token);
      throw new DelayedError();
    };
    // Another region, or a recorder the session excludes: left to the others (never run here).
    if (!fitsWorker(labels, await placementNeeds(d.leases, task.resource))) return later(REFUSED_RETRY_MS);
    if (!admission.admit(cost)) return later(REFUSED_RETRY_MS);
    try {
      const asked = d.clock.now();
      const lease = await d.leases.acquire(resourceId, sid, holder, asked, leaseMs);
      // A live lease elsewhere: this is a duplicate run of the job (at-least-once); wait for that lease to end.
      if (!lease) return await later(leaseMs / 2);
      const outcome = await runSession(task, lease, asked, recorder);
      // Fenced without a successor (e.g. cut off from the database): the job goes back to the queue, and whichever
      // recorder gets the lease next resumes the session. A fenced recorder whose job another worker holds already
      // fails this move harmlessly.
      if (outcome === 'fenced') return await later(leaseMs / 2);
      return outcome;
    } finally {
      admission.release(cost);
    }
  }

  const worker = new Worker<SessionJob, string>(QUEUE_NAME, take, {
    connection,
    prefix: bullPrefix(d.redisPrefix),
    concurrency: Math.max(1, Math.floor(d.settings.capacity / minCost)),
    lockDuration: leaseMs,
    stalledInterval: Math.max(1000, leaseMs / 2),
    // Every failover is a stall; a session may move several times in its life.
    maxStalledCount: 1000,
  });
  worker.on('error', (e: Error) => d.log.warn({ err: e.message }, 'recorder worker error'));
  worker.on('failed', (job, e: Error) => d.log.warn({ sid: job?.data.sid, err: e.message }, 'recording job failed'));

  return {
    holder,
    async close() {
      // Sessions here stay active in the queue: their job lock lapses and another recorder resumes them; the
      // leases are let go now so it need not wait for them too.
      closing = true;
      if (announceTimer) d.clock.clearTimeout(announceTimer);
      await d.workers.withdraw(holder).catch(() => undefined);
      await worker.close(true);
      await Promise.all([...running].map((leave) => leave()));
      connection.disconnect();
    },
  };
}

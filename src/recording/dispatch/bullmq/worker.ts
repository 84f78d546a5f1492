/**
 * The recorder side of queue-backed dispatch: takes jobs from the queue by capacity and placement, acquires each
 * session's lease and hands it to a held session (held-session.ts: lease keeper, control endpoint).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { TimerHandle } from '../../../clock/index.ts';
import type { LiveTask, StoppingTask } from '../../lifecycle/index.ts';
import type { TaskStore } from '../../store/index.ts';
import type { Area } from '../../validation/types.ts';
import type { Recorder, RecorderReport, RecordingMode, WriteFence } from '../types.ts';
import { Admission } from '../../../process/index.ts';
import { bullConnection, bullPrefix, type QueueContext } from './connection.ts';
import { isHeldSession, runHeldSession, type HeldSessionDeps } from './held-session.ts';
import { fitsWorker, type WorkerLabels } from './labels.ts';
import { placementNeeds } from './registry.ts';
import { QUEUE_NAME, topics, type Accepted, type SessionJob } from './protocol.ts';

export interface RecorderWorkerDeps extends QueueContext {
  readonly store: TaskStore;
  readonly recorders: readonly Recorder[];
  /**
   * The runtime's report object for a task: reports become transitions in the shared database; one still waiting for
   * the database once `fence` no longer holds is applied as stale (recording/runtime/reports.ts, KeptReport).
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
  const held: HeldSessionDeps = {
    store: d.store,
    leases: d.leases,
    bus: d.bus,
    clock: d.clock,
    log: d.log,
    leaseMs,
    reportFor: d.reportFor,
    rejoinToken: d.rejoinToken,
    publish,
    running,
  };

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
      const outcome = await runHeldSession(held, task, lease, asked, recorder);
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

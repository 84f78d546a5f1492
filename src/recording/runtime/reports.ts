/**
 * What recorders say and what the history keeps: each recorder report becomes a transition, and each event is stored
 * in the session history and handed to notify. Both wait in an outbox (src/outbox) while the database does not
 * answer, in order, journalled on local disk when the runtime has a journal directory.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { Outbox, OutboxError } from '../../outbox/index.ts';
import type {
  RecordedFile,
  RecorderOutcome,
  RecorderReport,
  RecordingStatus,
  RtmpStatus,
  WriteFence,
} from '../dispatch/index.ts';
import {
  finish,
  hasSession,
  type FinishEvent,
  reportFiles,
  reportRtmp,
  reportSliceStart,
  reportStatus,
  TaskConflictError,
  type Effect,
  type LiveTask,
  type Outcome,
  type StoppingTask,
  type Task,
} from '../lifecycle/index.ts';
import type { RecordingNotifier } from '../notifier.ts';
import type { StoredEvent, TaskStore } from '../store/index.ts';
import type { Mutate } from './types.ts';

/**
 * Reports and history events wait for the database this long at most, retried doubling from 250 ms to 5 s (as
 * notify's events do): longer than a slice waits for its manifest row, so they outlast any outage a recording rides
 * out.
 */
const KEEP_BASE_MS = 250;
const KEEP_MAX_MS = 5_000;
const KEEP_FOR_MS = 15 * 60_000;
/** Reports and events kept at most while the database is away. */
const KEEP_MAX_ITEMS = 100_000;

/** One recorder report as data, so it can wait for the database (and in the journal) and be applied later. */
export type KeptReport = {
  readonly resourceId: string;
  readonly sid: string;
  /**
   * Present when the recorder writes under a lease (queue-backed dispatch): the key of its fence in this process.
   * A report applied once the fence no longer holds (or in another process, after a restart) is stale: only what
   * cannot hurt the recorder that holds the session now is taken from it (`applyStale`).
   */
  readonly fence?: string;
} & (
  | { readonly kind: 'status'; readonly status: RecordingStatus }
  | { readonly kind: 'files'; readonly files: readonly RecordedFile[] }
  | { readonly kind: 'sliceStart'; readonly ms: number }
  | { readonly kind: 'rtmp'; readonly rtmpUrl: string; readonly status: RtmpStatus }
  | { readonly kind: 'ended'; readonly outcome: RecorderOutcome }
  /** An API stop's own end (its recorder's result), kept because the database did not take it at the time. */
  | { readonly kind: 'stopped'; readonly end: FinishEvent }
);

/** A report the lifecycle would not take: retrying cannot help. */
class ReportRefused extends Error {}

export interface ReportsDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly notifier: RecordingNotifier;
  readonly mutate: Mutate;
  /** Whether an API stop of the resource is under way here: it ends the task itself (executor.ts). */
  readonly stopping: (resourceId: string) => boolean;
  readonly journalDir?: string | undefined;
}

/** How one batch of reports is applied: which are stale, whether a stop is under way, the time. */
export interface ReportContext {
  readonly stale: (r: KeptReport) => boolean;
  readonly stopping: boolean;
  readonly now: number;
}

/**
 * The reports of one resource applied in order, as one transition (pure). A report of an earlier session of the
 * resource (or of none) changes nothing; throws when the lifecycle refuses one.
 */
export function applyReports(t: Task | undefined, items: readonly KeptReport[], ctx: ReportContext): Outcome {
  if (!t) return { task: t as never, effects: [] };
  let cur: Task = t;
  const effects: Effect[] = [];
  for (const r of items) {
    if (cur.kind === 'issued' || cur.session.sid !== r.sid) continue;
    const o = ctx.stale(r) ? applyStale(cur, r) : applyReport(cur, r, ctx);
    cur = o.task;
    effects.push(...o.effects);
  }
  return { task: cur, effects };
}

function applyReport(t: Task, r: KeptReport, ctx: ReportContext): Outcome {
  switch (r.kind) {
    case 'status':
      return reportStatus(t, r.status);
    case 'files':
      return reportFiles(t, r.files);
    case 'sliceStart':
      return reportSliceStart(t, r.ms);
    case 'rtmp':
      return reportRtmp(t, r.rtmpUrl, r.status);
    case 'ended':
      // An API stop in progress ends the task itself, with the stop's result.
      if (t.kind === 'ended' || (t.kind === 'stopping' && ctx.stopping)) return { task: t, effects: [] };
      return finish(t, r.outcome, ctx.now);
    case 'stopped':
      return t.kind === 'ended' ? { task: t, effects: [] } : finish(t, r.end, ctx.now);
  }
}

/**
 * A report made under a lease that no longer holds (its recorder was cut off, stopped, or is another process now):
 * the recorder holding the session may have moved on, so status, slice start, CDN state and the end are dropped.
 * Its files are real objects of the session (uploaded or in the spool), so any the stored list lacks are added;
 * none is removed or replaced.
 */
export function applyStale(t: Task, r: KeptReport): Outcome {
  if (r.kind !== 'files' || !hasSession(t)) return { task: t, effects: [] };
  const known = new Set(t.session.files.map((f) => f.fileName));
  const added = r.files.filter((f) => !known.has(f.fileName));
  return added.length > 0 ? reportFiles(t, [...t.session.files, ...added]) : { task: t, effects: [] };
}

export class RecorderReports {
  /** Fences of the sessions recorders in this process write under, by key (see KeptReport.fence). */
  readonly #fences = new Map<string, WriteFence>();
  /** Recorder reports, per resource in the order made, kept while the database does not answer. */
  readonly #reportsOut: Outbox<KeptReport>;
  /** The sessions API's event history (`recording_events`), per session in the order raised, kept likewise. */
  readonly #eventsOut: Outbox<StoredEvent>;

  constructor(private readonly d: ReportsDeps) {
    const keep = {
      clock: d.clock,
      log: d.log,
      maxItems: KEEP_MAX_ITEMS,
      retryBaseMs: KEEP_BASE_MS,
      retryMaxMs: KEEP_MAX_MS,
      retryForMs: KEEP_FOR_MS,
      dir: d.journalDir,
    };
    this.#reportsOut = new Outbox<KeptReport>({
      ...keep,
      name: 'recording-reports',
      // Reports arriving while the previous ones are written are applied together, in one transition.
      maxBatch: 64,
      write: (items) => this.#apply(items),
      isPermanent: (e) => e instanceof ReportRefused || e instanceof TaskConflictError,
    });
    this.#eventsOut = new Outbox<StoredEvent>({
      ...keep,
      name: 'recording-events',
      maxBatch: 64,
      write: (items) => this.d.store.addEvents(items),
    });
  }

  /** Writes what stopped processes of this data dir left in their journals; waits up to `boundMs` for them. */
  async replay(boundMs: number): Promise<void> {
    await this.#eventsOut.replay();
    await this.#reportsOut.replay();
    await Promise.all([this.#eventsOut.whenEmpty(boundMs), this.#reportsOut.whenEmpty(boundMs)]);
  }

  async close(boundMs: number): Promise<void> {
    await Promise.all([this.#reportsOut.close(boundMs), this.#eventsOut.close(boundMs)]);
  }

  /** Stores the event in the session history (kept while the database is away) and hands it to notify; `from` names the source in logs. */
  emit(
    task: Task,
    eventType: number,
    serviceType: number,
    details: { msgName: string; [k: string]: unknown },
    from: 'recording' | 'recorder' = 'recording',
  ): void {
    if (task.kind === 'issued') return;
    const ev = {
      appId: task.resource.appId,
      sid: task.session.sid,
      cname: task.resource.cname,
      uid: task.resource.uid,
      eventType,
      serviceType,
      details,
    };
    const now = this.d.clock.now();
    // The ID is fixed now: a retry after a lost answer does not list the event twice.
    void this.#eventsOut
      .submit(ev.sid, { id: randomUUID(), appId: ev.appId, resourceId: task.resource.resourceId, sid: ev.sid, eventType, serviceType, details, createdAt: now })
      .catch((e: Error) => this.d.log.warn({ err: e.message, eventType, from }, 'a recording event was not stored in the session history'));
    void this.d.notifier.emit(ev).catch((e: Error) => {
      // Left in the journal at a stop during an outage: the next start delivers it (logged by the outbox).
      if (e instanceof OutboxError && e.reason === 'left_in_journal') this.d.log.warn({ err: e.message, eventType }, `a ${from} event waits in the journal`);
      else this.d.log.error({ err: e.message, eventType }, `notify rejected a ${from} event`);
    });
  }

  /**
   * The report object a recorder gets: each call becomes a transition, kept in order while the database does not
   * answer (KeptReport), or a forwarded event. With `fence` (a recorder writing under a lease), a report still
   * waiting for the database when the fence stops holding is applied as stale.
   */
  reportFor(task: LiveTask | StoppingTask, fence?: WriteFence): RecorderReport {
    const base = { resourceId: task.resource.resourceId, sid: task.session.sid };
    let fenceKey: string | undefined;
    if (fence) {
      // Fences that no longer hold would only make their reports stale, as an unknown key does: let them go.
      for (const [k, f] of this.#fences) if (!f.holds()) this.#fences.delete(k);
      fenceKey = randomUUID();
      this.#fences.set(fenceKey, fence);
    }
    const keep = (r: KeptReport) =>
      void this.#reportsOut
        .submit(r.resourceId, fenceKey ? { ...r, fence: fenceKey } : r)
        .catch((e: Error) => this.d.log.error({ resourceId: r.resourceId, err: e.message }, `recorder report ${r.kind} not applied`));
    return {
      status: (status) => keep({ ...base, kind: 'status', status }),
      files: (files) => keep({ ...base, kind: 'files', files }),
      sliceStartTime: (ms) => keep({ ...base, kind: 'sliceStart', ms }),
      rtmpStatus: (rtmpUrl, status) => keep({ ...base, kind: 'rtmp', rtmpUrl, status }),
      event: (eventType, serviceType, details) => this.emit(task, eventType, serviceType, details, 'recorder'),
      ended: (outcome) => keep({ ...base, kind: 'ended', outcome }),
    };
  }

  /**
   * Keeps the end of an API stop whose write the database did not take (an outage at that moment): written, with
   * its effects (event 11, release), once the database answers, or by the next start from the journal.
   */
  keepStopEnd(task: StoppingTask, end: FinishEvent): Promise<void> {
    return this.#reportsOut.submit(task.resource.resourceId, { resourceId: task.resource.resourceId, sid: task.session.sid, kind: 'stopped', end });
  }

  /** Applies reports of one resource, in order, in one transition; throws while the store does not answer. */
  async #apply(items: readonly KeptReport[]): Promise<void> {
    const rid = items[0]!.resourceId;
    await this.d.mutate(rid, (t) => {
      const ctx: ReportContext = {
        stale: (r) => r.fence !== undefined && !(this.#fences.get(r.fence)?.holds() ?? false),
        stopping: this.d.stopping(rid),
        now: this.d.clock.now(),
      };
      try {
        return applyReports(t, items, ctx);
      } catch (e) {
        throw new ReportRefused((e as Error).message);
      }
    });
  }
}

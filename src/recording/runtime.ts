/**
 * The running side of the control plane: applies lifecycle transitions under a per-resource lock, persists them,
 * carries out every effect they return (launch, update, updateLayout, stop, timers, events) and receives recorder
 * reports. No HTTP here; callers that answer with a recorder's outcome await `Applied.done`.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../clock/index.ts';
import { Outbox, OutboxError } from '../db/outbox.ts';
import type { Logger } from '../log/index.ts';
import type {
  Dispatcher,
  EndReason,
  RecordedFile,
  RecorderHandle,
  RecorderOutcome,
  RecorderReport,
  RecordingStatus,
  RecordingTask,
  RtmpStatus,
  StopResult,
  WriteFence,
} from './dispatch/types.ts';
import { recorderUpdate, subscriptionRequest } from './dispatch/subscription.ts';
import {
  finish,
  hasSession,
  launchFailed,
  reportFiles,
  reportRtmp,
  reportSliceStart,
  reportStatus,
  resumeSession,
  timerFired,
  type Effect,
  type LiveTask,
  type Outcome,
  type StoppingTask,
  type Task,
} from './lifecycle/index.ts';
import { TaskConflictError } from './lifecycle/errors.ts';
import { KeyedLock } from './lock.ts';
import type { RecordingNotifier } from './notifier.ts';
import type { StoredEvent, TaskStore } from './store/index.ts';
import { scrub } from './scrub.ts';
import { within } from './within.ts';


/** Node timers overflow past 2^31-1 ms; long deadlines are re-armed in steps of at most a day. */
const MAX_TIMER_MS = 24 * 3600 * 1000;

/**
 * A recorder stop that has not finished after this long is given up: the task ends with uploadingStatus
 * `unknown`, so a hung recorder cannot hold its cname+uid forever (uploads may still complete later).
 */
const STOP_ABANDON_MS = 15 * 60 * 1000;

/** Serialises work per resource ID: in this process (KeyedLock) or across processes (dispatch/bullmq). */
export interface ResourceLock {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

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
/** How long a graceful stop keeps trying to write waiting reports and events before leaving them in the journal. */
const FLUSH_ON_CLOSE_MS = 5_000;

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
);

/** A report the lifecycle would not take: retrying cannot help. */
class ReportRefused extends Error {}

export interface RuntimeDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly dispatcher: Dispatcher;
  readonly notifier: RecordingNotifier;
  /**
   * Set when other processes change the same tasks (many API and recorder processes on one database): tasks are
   * then always read from the store, never from this process's memory, under a lock all processes share.
   */
  readonly shared?: { readonly lock: ResourceLock };
  /**
   * Where reports and history events that wait for the database are journalled (src/db/outbox.ts); undefined:
   * in memory only.
   */
  readonly journalDir?: string | undefined;
}

/** What a recorder needs to run a live task's session. */
export function recordingTaskOf(task: LiveTask | StoppingTask, resumed: boolean): RecordingTask {
  return {
    appId: task.resource.appId,
    cname: task.resource.cname,
    uid: task.resource.uid,
    sid: task.session.sid,
    resourceId: task.resource.resourceId,
    mode: task.session.mode,
    scene: task.resource.scene,
    clientRequest: task.session.clientRequest,
    subscription: subscriptionRequest(task.session.clientRequest.recordingConfig),
    startedAt: task.session.startedAt,
    resumed,
    previousFiles: task.session.files,
    onhold: task.session.onhold,
    layout: task.session.layout,
  };
}

/** A persisted transition whose effects are under way. */
export interface Applied<T extends Task> {
  readonly task: T;
  /**
   * The recorder's part of the transition: resolves with the task once the recorder has launched, applied the
   * update or layout, or stopped (then the ended task); rejects when it failed. Resolves at once when the
   * transition has no recorder effect. Awaiting it is optional: an unawaited failure is no unhandled rejection,
   * and a failed launch or stop still ends the task here.
   */
  readonly done: Promise<Task>;
}

export class SessionRuntime {
  readonly #lock: ResourceLock;
  /** Tasks with a session held by this process: query reads them without a database round trip. */
  readonly #cache = new Map<string, Task>();
  readonly #handles = new Map<string, Promise<RecorderHandle | undefined>>();
  readonly #timers = new Map<string, TimerHandle>();
  /** Stop in progress per resource, so an API stop and an expiry share one recorder stop. */
  readonly #stops = new Map<string, Promise<Task>>();
  /** Fences of the sessions recorders in this process write under, by key (see KeptReport.fence). */
  readonly #fences = new Map<string, WriteFence>();
  /** Recorder reports, per resource in the order made, kept while the database does not answer. */
  readonly #reportsOut: Outbox<KeptReport>;
  /** The sessions API's event history (`recording_events`), per session in the order raised, kept likewise. */
  readonly #eventsOut: Outbox<StoredEvent>;
  #closed = false;

  constructor(private readonly d: RuntimeDeps) {
    this.#lock = d.shared?.lock ?? new KeyedLock();
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
      write: (items) => this.#applyReports(items),
      isPermanent: (e) => e instanceof ReportRefused || e instanceof TaskConflictError,
    });
    this.#eventsOut = new Outbox<StoredEvent>({
      ...keep,
      name: 'recording-events',
      maxBatch: 64,
      write: (items) => this.d.store.addEvents(items),
    });
  }

  /**
   * Writes what stopped processes of this data dir left in their journals (call once at start); waits up to
   * `boundMs` for them to be written, so a session resumed next starts from its last reported files.
   */
  async replayKept(boundMs = FLUSH_ON_CLOSE_MS): Promise<void> {
    await this.#eventsOut.replay();
    await this.#reportsOut.replay();
    await Promise.all([this.#eventsOut.whenEmpty(boundMs), this.#reportsOut.whenEmpty(boundMs)]);
  }

  /** The current task: from memory when this process holds its session, else from the store. */
  async get(resourceId: string): Promise<Task | undefined> {
    return (this.d.shared ? undefined : this.#cache.get(resourceId)) ?? (await this.d.store.get(resourceId));
  }

  /** Applies `fn` to the current task under the resource's lock, persists the result and runs its effects. */
  async mutate<T extends Task>(resourceId: string, fn: (task: Task | undefined) => Outcome<T>): Promise<Applied<T>> {
    const out = await this.#lock.run(resourceId, async () => {
      const before = await this.get(resourceId);
      const o = fn(before);
      if (o.task !== before) {
        await this.d.store.save(o.task, this.d.clock.now(), before);
        if (hasSession(o.task)) this.#cache.set(resourceId, o.task);
        else this.#cache.delete(resourceId);
      }
      return o;
    });
    let done: Promise<Task> = Promise.resolve(out.task);
    for (const e of out.effects) {
      const recorder = this.#run(out.task, e);
      if (recorder) {
        // No unhandled rejection when nobody awaits `done`; whoever does still sees the failure.
        recorder.catch(() => undefined);
        done = recorder;
      }
    }
    return { task: out.task, done };
  }

  /** Hands a live session to its recorder. Resolves once launched, or ends the task (event 1, code 52) and rethrows. */
  async #launch(task: LiveTask, resumed: boolean): Promise<Task> {
    const rid = task.resource.resourceId;
    const p = this.d.dispatcher.launch(recordingTaskOf(task, resumed), this.#report(task));
    this.#handles.set(
      rid,
      p.catch(() => undefined),
    );
    try {
      await p;
      return task;
    } catch (e) {
      const err = scrub(String((e as Error)?.message ?? e), task.session.clientRequest);
      this.d.log.error({ resourceId: rid, sid: task.session.sid, err }, 'recorder failed to start');
      await this.mutate(rid, (t) => launchFailed(t ?? task, this.d.clock.now()));
      throw e;
    }
  }

  /** Runs a control call on the session's recorder once it is launched (none when the launch failed). */
  async #control(task: Task, call: (h: RecorderHandle) => Promise<void> | undefined): Promise<Task> {
    const h = await this.#handle(task);
    if (h) await call(h);
    return task;
  }

  /** This process's handle of the session, or the dispatcher's way to reach it where another process launched it. */
  #handle(task: Task): Promise<RecorderHandle | undefined> | undefined {
    const local = this.#handles.get(task.resource.resourceId);
    if (local || !this.d.dispatcher.attach || (task.kind !== 'live' && task.kind !== 'stopping')) return local;
    return Promise.resolve(this.d.dispatcher.attach(recordingTaskOf(task, false)));
  }

  /**
   * Stops the recorder of a task already moved to `stopping` and ends the task; resolves with the ended task.
   * Shared by API stops and expiry; a recorder failure still ends the task (uploadingStatus unknown) so no
   * session is left dangling.
   */
  #stop(task: StoppingTask, reason: EndReason): Promise<Task> {
    const rid = task.resource.resourceId;
    const running = this.#stops.get(rid);
    if (running) return running;
    const p = (async () => {
      let result: StopResult;
      try {
        const h = await this.#handle(task);
        const stopped = h ? await within(this.d.clock, h.stop(), STOP_ABANDON_MS) : undefined;
        if (h && !stopped) {
          this.d.log.error({ resourceId: rid, sid: task.session.sid }, 'recorder stop did not finish; session ended as unknown');
        }
        result = stopped ?? {
          uploadingStatus: 'unknown',
          files: task.session.files,
          recordedAnything: task.session.files.length > 0,
        };
      } catch (e) {
        const err = scrub(String((e as Error)?.message ?? e), task.session.clientRequest);
        this.d.log.error({ resourceId: rid, sid: task.session.sid, err }, 'recorder stop failed');
        result = { uploadingStatus: 'unknown', files: task.session.files, recordedAnything: task.session.files.length > 0 };
      }
      const out = await this.mutate(rid, (t) =>
        finish(t ?? task, { reason, ...result, files: result.files }, this.d.clock.now()),
      );
      return out.task;
    })();
    this.#stops.set(rid, p);
    void p.finally(() => this.#stops.delete(rid)).catch(() => undefined);
    return p;
  }

  /** Restart recovery: live sessions go back to their recorder (resumed); stopping ones end as `unknown`. */
  async recover(): Promise<void> {
    for (const t of await this.d.store.listWithSession()) {
      this.#cache.set(t.resource.resourceId, t);
      if (t.kind === 'stopping') {
        await this.mutate(t.resource.resourceId, (cur) =>
          finish(
            cur ?? t,
            { reason: t.reason, uploadingStatus: 'unknown', recordedAnything: t.session.files.length > 0 },
            this.d.clock.now(),
          ),
        );
        continue;
      }
      if (t.kind !== 'live') continue;
      if (!this.d.dispatcher.supports(t.session.mode)) {
        await this.mutate(t.resource.resourceId, (cur) =>
          finish(cur ?? t, { reason: 'error', uploadingStatus: 'unknown', recordedAnything: t.session.files.length > 0 }, this.d.clock.now()),
        );
        continue;
      }
      const { done } = await this.mutate(t.resource.resourceId, (cur) => resumeSession(cur ?? t));
      await done.catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers.values()) this.d.clock.clearTimeout(t);
    this.#timers.clear();
    await Promise.all([this.#reportsOut.close(FLUSH_ON_CLOSE_MS), this.#eventsOut.close(FLUSH_ON_CLOSE_MS)]);
  }

  /** Stores the event in the session history (kept while the database is away) and hands it to notify; `from` names the source in logs. */
  #emit(
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

  /** Carries out one effect; recorder effects return their completion (see `Applied.done`). */
  #run(task: Task, e: Effect): Promise<Task> | undefined {
    const rid = task.resource.resourceId;
    switch (e.kind) {
      case 'launch':
        return task.kind === 'live' ? this.#launch(task, e.resumed) : undefined;
      case 'update':
        return this.#control(task, (h) => h.update(recorderUpdate(e.request)));
      case 'updateLayout':
        return this.#control(task, (h) => h.updateLayout?.(e.request));
      case 'stopRecorder':
        return task.kind === 'stopping' ? this.#stop(task, e.reason) : undefined;
      case 'schedule':
        this.#schedule(rid, e.at);
        return undefined;
      case 'emit':
        this.#emit(task, e.eventType, e.serviceType, e.details);
        return undefined;
      case 'release': {
        const t = this.#timers.get(rid);
        if (t) this.d.clock.clearTimeout(t);
        this.#timers.delete(rid);
        this.#handles.delete(rid);
        this.#cache.delete(rid);
        return undefined;
      }
    }
  }

  #schedule(rid: string, at: number): void {
    if (this.#closed || !Number.isFinite(at)) return;
    const old = this.#timers.get(rid);
    if (old) this.d.clock.clearTimeout(old);
    const delay = Math.min(Math.max(0, at - this.d.clock.now()), MAX_TIMER_MS);
    this.#timers.set(
      rid,
      this.d.clock.setTimeout(() => {
        this.#timers.delete(rid);
        void this.mutate(rid, (t) => (t ? timerFired(t, this.d.clock.now()) : { task: t as never, effects: [] })).catch(
          (err: Error) => this.d.log.error({ resourceId: rid, err: err.message }, 'expiry handling failed'),
        );
      }, delay),
    );
  }

  /**
   * The report object for a session a recorder in this process took from another process (dispatch/bullmq), written
   * under `fence`: a report still waiting for the database when the fence stops holding is applied as stale.
   */
  reportFor(task: LiveTask | StoppingTask, fence?: WriteFence): RecorderReport {
    return this.#report(task, fence);
  }

  /**
   * The report object a recorder gets: each call becomes a transition, kept in order while the database does not
   * answer (KeptReport), or a forwarded event.
   */
  #report(task: LiveTask | StoppingTask, fence?: WriteFence): RecorderReport {
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
      event: (eventType, serviceType, details) => this.#emit(task, eventType, serviceType, details, 'recorder'),
      ended: (outcome) => keep({ ...base, kind: 'ended', outcome }),
    };
  }

  /** Applies reports of one resource, in order, in one transition; throws while the store does not answer. */
  async #applyReports(items: readonly KeptReport[]): Promise<void> {
    const rid = items[0]!.resourceId;
    await this.mutate(rid, (t) => {
      if (!t) return { task: t as never, effects: [] };
      let cur: Task = t;
      const effects: Effect[] = [];
      for (const r of items) {
        // A report of an earlier session of the resource (or of none) changes nothing.
        if (cur.kind === 'issued' || cur.session.sid !== r.sid) continue;
        const stale = r.fence !== undefined && !(this.#fences.get(r.fence)?.holds() ?? false);
        let o: Outcome;
        try {
          o = stale ? applyStale(cur, r) : this.#applyReport(cur, r);
        } catch (e) {
          throw new ReportRefused((e as Error).message);
        }
        cur = o.task;
        effects.push(...o.effects);
      }
      return { task: cur, effects };
    });
  }

  #applyReport(t: Task, r: KeptReport): Outcome {
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
        if (t.kind === 'ended' || (t.kind === 'stopping' && this.#stops.has(r.resourceId))) return { task: t, effects: [] };
        return finish(t, r.outcome, this.d.clock.now());
    }
  }
}

/**
 * A report made under a lease that no longer holds (its recorder was cut off, stopped, or is another process now):
 * the recorder holding the session may have moved on, so status, slice start, CDN state and the end are dropped.
 * Its files are real objects of the session (uploaded or in the spool), so any the stored list lacks are added;
 * none is removed or replaced.
 */
function applyStale(t: Task, r: KeptReport): Outcome {
  if (r.kind !== 'files' || !hasSession(t)) return { task: t, effects: [] };
  const known = new Set(t.session.files.map((f) => f.fileName));
  const added = r.files.filter((f) => !known.has(f.fileName));
  return added.length > 0 ? reportFiles(t, [...t.session.files, ...added]) : { task: t, effects: [] };
}

/**
 * The running side of the control plane: applies lifecycle transitions under a per-resource lock, persists them and
 * hands their effects to the executor (executor.ts); expiry timers (expiry.ts), recorder reports and history events
 * (reports.ts) and restart recovery (recovery.ts) are its parts. No HTTP here; callers that answer with a recorder's
 * outcome await `Applied.done`.
 */
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { Dispatcher, RecorderReport, ResourceLock, WriteFence } from '../dispatch/index.ts';
import { hasSession, timerFired, type LiveTask, type Outcome, type StoppingTask, type Task } from '../lifecycle/index.ts';
import { KeyedLock } from '../lock.ts';
import type { RecordingNotifier } from '../notifier.ts';
import type { TaskStore } from '../store/index.ts';
import { EffectExecutor } from './executor.ts';
import { ExpiryTimers } from './expiry.ts';
import { recoverSessions } from './recovery.ts';
import { RecorderReports } from './reports.ts';
import type { Applied } from './types.ts';

/** How long a graceful stop keeps trying to write waiting reports and events before leaving them in the journal. */
const FLUSH_ON_CLOSE_MS = 5_000;

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
   * Where reports and history events that wait for the database are journalled (src/outbox); undefined: in memory
   * only.
   */
  readonly journalDir?: string | undefined;
}

export class SessionRuntime {
  readonly #lock: ResourceLock;
  /** Tasks with a session held by this process: query reads them without a database round trip. */
  readonly #cache = new Map<string, Task>();
  readonly #expiry: ExpiryTimers;
  readonly #reports: RecorderReports;
  readonly #executor: EffectExecutor;

  constructor(private readonly d: RuntimeDeps) {
    this.#lock = d.shared?.lock ?? new KeyedLock();
    const mutate = this.mutate.bind(this);
    this.#expiry = new ExpiryTimers(d.clock, (rid) => {
      void this.mutate(rid, (t) => (t ? timerFired(t, d.clock.now()) : { task: t as never, effects: [] })).catch((err: Error) =>
        d.log.error({ resourceId: rid, err: err.message }, 'expiry handling failed'),
      );
    });
    this.#reports = new RecorderReports({
      store: d.store,
      clock: d.clock,
      log: d.log,
      notifier: d.notifier,
      mutate,
      stopping: (rid) => this.#executor.stopping(rid),
      journalDir: d.journalDir,
    });
    this.#executor = new EffectExecutor({
      dispatcher: d.dispatcher,
      clock: d.clock,
      log: d.log,
      mutate,
      expiry: this.#expiry,
      reportFor: (task) => this.#reports.reportFor(task),
      keepStopEnd: (task, end) => this.#reports.keepStopEnd(task, end),
      emit: (task, eventType, serviceType, details) => this.#reports.emit(task, eventType, serviceType, details),
      forget: (rid) => this.#cache.delete(rid),
    });
  }

  /**
   * Writes what stopped processes of this data dir left in their journals (call once at start); waits up to
   * `boundMs` for them to be written, so a session resumed next starts from its last reported files.
   */
  replayKept(boundMs = FLUSH_ON_CLOSE_MS): Promise<void> {
    return this.#reports.replay(boundMs);
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
      const recorder = this.#executor.run(out.task, e);
      if (recorder) {
        // No unhandled rejection when nobody awaits `done`; whoever does still sees the failure.
        recorder.catch(() => undefined);
        done = recorder;
      }
    }
    return { task: out.task, done };
  }

  /** Restart recovery: live sessions go back to their recorder (resumed); stopping ones end as `unknown`. */
  recover(): Promise<void> {
    return recoverSessions({
      store: this.d.store,
      clock: this.d.clock,
      dispatcher: this.d.dispatcher,
      mutate: this.mutate.bind(this),
      remember: (t) => this.#cache.set(t.resource.resourceId, t),
    });
  }

  /**
   * The report object for a session a recorder in this process took from another process (dispatch/bullmq), written
   * under `fence`: a report still waiting for the database when the fence stops holding is applied as stale.
   */
  reportFor(task: LiveTask | StoppingTask, fence?: WriteFence): RecorderReport {
    return this.#reports.reportFor(task, fence);
  }

  async close(): Promise<void> {
    this.#expiry.close();
    await this.#reports.close(FLUSH_ON_CLOSE_MS);
  }
}

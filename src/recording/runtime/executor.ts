/**
 * Carries out the effects of a persisted transition (docs/architecture.md, "Effects"): recorder control through the
 * dispatcher (launch, update, updateLayout, stopRecorder), expiry timers, events, release of in-memory state. What
 * this process knows of each resource's recorder is a `RecorderSlot`, changed only by `slotAfter`.
 */
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import {
  mixLayoutSettings,
  recorderUpdate,
  recordingTaskOf,
  type Dispatcher,
  type EndReason,
  type RecorderHandle,
  type RecorderReport,
  type StopResult,
} from '../dispatch/index.ts';
import { finish, launchFailed, type Effect, type FinishEvent, type LiveTask, type StoppingTask, type Task } from '../lifecycle/index.ts';
import { scrub } from '../scrub.ts';
import { within } from '../within.ts';
import type { ExpiryTimers } from './expiry.ts';
import type { Mutate } from './types.ts';

/**
 * A recorder stop that has not finished after this long is given up: the task ends with uploadingStatus
 * `unknown`, so a hung recorder cannot hold its cname+uid forever (uploads may still complete later).
 */
export const STOP_ABANDON_MS = 15 * 60 * 1000;

type HandleLookup = Promise<RecorderHandle | undefined>;

/**
 * A resource's recorder as this process knows it (no slot: none launched here, nothing stopping). `held`: launched
 * from here (the handle settles once the launch did, undefined when it failed). `stopping`: one stop is under way,
 * shared by an API stop and an expiry; reports then leave the end of the task to it.
 */
export type RecorderSlot =
  | { readonly kind: 'held'; readonly handle: HandleLookup }
  | { readonly kind: 'stopping'; readonly handle: HandleLookup | undefined; readonly stop: Promise<Task> };

export type SlotEvent =
  | { readonly kind: 'launched'; readonly handle: HandleLookup }
  | { readonly kind: 'stopBegan'; readonly stop: Promise<Task> }
  | { readonly kind: 'stopSettled'; readonly stop: Promise<Task> }
  | { readonly kind: 'released' };

export const RecorderSlot = Object.freeze({
  isStopping: (s: RecorderSlot | undefined): s is Extract<RecorderSlot, { kind: 'stopping' }> => s?.kind === 'stopping',
});

/** The one transition function of a recorder slot. */
export function slotAfter(slot: RecorderSlot | undefined, ev: SlotEvent): RecorderSlot | undefined {
  switch (ev.kind) {
    case 'launched':
      return { kind: 'held', handle: ev.handle };
    case 'stopBegan':
      // A second stop while one runs joins it (the caller reads the running one from the slot).
      if (slot?.kind === 'stopping') return slot;
      return { kind: 'stopping', handle: slot?.handle, stop: ev.stop };
    case 'stopSettled':
      // Only the stop that settled leaves its slot; a slot released meanwhile (or a later session's) stays.
      if (slot?.kind !== 'stopping' || slot.stop !== ev.stop) return slot;
      return slot.handle ? { kind: 'held', handle: slot.handle } : undefined;
    case 'released':
      return undefined;
  }
}

export interface ExecutorDeps {
  readonly dispatcher: Dispatcher;
  readonly clock: Clock;
  readonly log: Logger;
  readonly mutate: Mutate;
  readonly expiry: ExpiryTimers;
  /** The report object a recorder launched from here gets (reports.ts). */
  readonly reportFor: (task: LiveTask | StoppingTask) => RecorderReport;
  /** Stores and notifies an event (reports.ts). */
  readonly emit: (task: Task, eventType: number, serviceType: number, details: { msgName: string; [k: string]: unknown }) => void;
  /** Keeps the end of a stop the database did not take, to be written when it answers (reports.ts). */
  readonly keepStopEnd: (task: StoppingTask, end: FinishEvent) => Promise<void>;
  /** Drops the task from the runtime's memory. */
  readonly forget: (resourceId: string) => void;
}

export class EffectExecutor {
  readonly #slots = new Map<string, RecorderSlot>();

  constructor(private readonly d: ExecutorDeps) {}

  /** Whether a stop of the resource's recorder is under way in this process. */
  stopping(resourceId: string): boolean {
    return RecorderSlot.isStopping(this.#slots.get(resourceId));
  }

  /** Carries out one effect; recorder effects return their completion (see `Applied.done`). */
  run(task: Task, e: Effect): Promise<Task> | undefined {
    const rid = task.resource.resourceId;
    switch (e.kind) {
      case 'launch':
        return task.kind === 'live' ? this.#launch(task, e.resumed) : undefined;
      case 'update':
        return this.#control(task, (h) => h.update(recorderUpdate(e.request)));
      case 'updateLayout':
        // The same translation as start's layout, so a running and a resumed recorder draw the same.
        return this.#control(task, (h) => h.updateLayout?.(mixLayoutSettings(e.request)));
      case 'stopRecorder':
        return task.kind === 'stopping' ? this.#stop(task, e.reason) : undefined;
      case 'schedule':
        this.d.expiry.arm(rid, e.at);
        return undefined;
      case 'emit':
        this.d.emit(task, e.eventType, e.serviceType, e.details);
        return undefined;
      case 'release':
        this.d.expiry.cancel(rid);
        this.#step(rid, { kind: 'released' });
        this.d.forget(rid);
        return undefined;
    }
  }

  #step(rid: string, ev: SlotEvent): RecorderSlot | undefined {
    const next = slotAfter(this.#slots.get(rid), ev);
    if (next) this.#slots.set(rid, next);
    else this.#slots.delete(rid);
    return next;
  }

  /** Hands a live session to its recorder. Resolves once launched, or ends the task (launchFailed) and rethrows. */
  async #launch(task: LiveTask, resumed: boolean): Promise<Task> {
    const rid = task.resource.resourceId;
    const p = this.d.dispatcher.launch(recordingTaskOf(task, resumed), this.d.reportFor(task));
    this.#step(rid, { kind: 'launched', handle: p.catch(() => undefined) });
    try {
      await p;
      return task;
    } catch (e) {
      const err = scrub(String((e as Error)?.message ?? e), task.session.clientRequest);
      this.d.log.error({ resourceId: rid, sid: task.session.sid, err }, 'recorder failed to start');
      await this.d.mutate(rid, (t) => launchFailed(t ?? task, this.d.clock.now()));
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
  #handle(task: Task): HandleLookup | undefined {
    const local = this.#slots.get(task.resource.resourceId)?.handle;
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
    const current = this.#slots.get(rid);
    if (RecorderSlot.isStopping(current)) return current.stop;
    const handle = this.#handle(task);
    const p = (async () => {
      const result = await this.#stopRecorder(task, handle);
      const end: FinishEvent = { reason, ...result, files: result.files };
      try {
        return (await this.d.mutate(rid, (t) => finish(t ?? task, end, this.d.clock.now()))).task;
      } catch (e) {
        // The recorder's result is known: the stop answers it, and the end is written once the database answers
        // (kept in order with the session's reports, journalled across a restart) instead of a 500 and a session
        // left stopping until the next stop.
        this.d.log.warn({ resourceId: rid, sid: task.session.sid, err: (e as Error).message }, 'the end of a stop waits for the database');
        this.d.keepStopEnd(task, end).catch((err: Error) =>
          this.d.log.error({ resourceId: rid, sid: task.session.sid, err: err.message }, 'the end of a stop was not written'),
        );
        return finish(task, end, this.d.clock.now()).task;
      }
    })();
    this.#step(rid, { kind: 'stopBegan', stop: p });
    void p.finally(() => this.#step(rid, { kind: 'stopSettled', stop: p })).catch(() => undefined);
    return p;
  }

  /** The recorder's stop result; `unknown` uploads when it failed or did not finish in STOP_ABANDON_MS. */
  async #stopRecorder(task: StoppingTask, handle: HandleLookup | undefined): Promise<StopResult> {
    const rid = task.resource.resourceId;
    const unknown: StopResult = { uploadingStatus: 'unknown', files: task.session.files, recordedAnything: task.session.files.length > 0 };
    try {
      const h = await handle;
      const stopped = h ? await within(this.d.clock, h.stop(), STOP_ABANDON_MS) : undefined;
      if (h && !stopped) {
        this.d.log.error({ resourceId: rid, sid: task.session.sid }, 'recorder stop did not finish; session ended as unknown');
      }
      return stopped ?? unknown;
    } catch (e) {
      const err = scrub(String((e as Error)?.message ?? e), task.session.clientRequest);
      this.d.log.error({ resourceId: rid, sid: task.session.sid, err }, 'recorder stop failed');
      return unknown;
    }
  }
}

import type { Outcome, Task } from '../lifecycle/index.ts';

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

/** Applies a transition to the current task under the resource's lock, persists it and runs its effects. */
export type Mutate = <T extends Task>(resourceId: string, fn: (task: Task | undefined) => Outcome<T>) => Promise<Applied<T>>;

/**
 * Restart recovery (one process owning its tasks): live sessions go back to their recorder, resumed; a stopping one
 * ends as `unknown` (its stop was cut short); a live one whose mode no recorder here supports ends as an error.
 */
import type { Clock } from '../../clock/index.ts';
import type { Dispatcher } from '../dispatch/index.ts';
import { finish, resumeSession, type Task } from '../lifecycle/index.ts';
import type { TaskStore } from '../store/index.ts';
import type { Mutate } from './types.ts';

export interface RecoveryDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly dispatcher: Dispatcher;
  readonly mutate: Mutate;
  /** Keeps a task with a session in the runtime's memory. */
  readonly remember: (task: Task) => void;
}

export async function recoverSessions(d: RecoveryDeps): Promise<void> {
  for (const t of await d.store.listWithSession()) {
    const rid = t.resource.resourceId;
    d.remember(t);
    if (t.kind !== 'live' && t.kind !== 'stopping') continue;
    const recordedAnything = t.session.files.length > 0;
    if (t.kind === 'stopping') {
      await d.mutate(rid, (cur) => finish(cur ?? t, { reason: t.reason, uploadingStatus: 'unknown', recordedAnything }, d.clock.now()));
      continue;
    }
    if (!d.dispatcher.supports(t.session.mode)) {
      await d.mutate(rid, (cur) => finish(cur ?? t, { reason: 'error', uploadingStatus: 'unknown', recordedAnything }, d.clock.now()));
      continue;
    }
    const { done } = await d.mutate(rid, (cur) => resumeSession(cur ?? t));
    await done.catch(() => undefined);
  }
}

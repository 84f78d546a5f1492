import type { EndReason } from '../dispatch/types.ts';
import type { UpdateClientRequest, UpdateLayoutClientRequest } from '../validation/types.ts';
import type { EventKind } from '../vocabulary/index.ts';

/**
 * What must happen after a transition; the lifecycle itself does no I/O. The runtime carries out every kind
 * (docs/architecture.md, "Effects"): recorder control (launch, update, updateLayout, stopRecorder), timers, release
 * of in-memory state, and events.
 */
export type Effect =
  | { readonly kind: 'launch'; readonly resumed: boolean }
  | { readonly kind: 'update'; readonly request: UpdateClientRequest }
  | { readonly kind: 'updateLayout'; readonly request: UpdateLayoutClientRequest }
  | { readonly kind: 'stopRecorder'; readonly reason: EndReason }
  | { readonly kind: 'schedule'; readonly at: number }
  | { readonly kind: 'release' }
  | {
      readonly kind: 'emit';
      readonly eventType: number;
      readonly serviceType: number;
      readonly details: { readonly msgName: string; readonly [k: string]: unknown };
    };

export const Effects = Object.freeze({
  /** Hand the session to a recorder; `resumed` after a restart (new files then carry a `bak<n>_` prefix). */
  launch: (resumed: boolean): Effect => ({ kind: 'launch', resumed }),
  update: (request: UpdateClientRequest): Effect => ({ kind: 'update', request }),
  updateLayout: (request: UpdateLayoutClientRequest): Effect => ({ kind: 'updateLayout', request }),
  stopRecorder: (reason: EndReason): Effect => ({ kind: 'stopRecorder', reason }),
  schedule: (at: number): Effect => ({ kind: 'schedule', at }),
  release: (): Effect => ({ kind: 'release' }),
  /** Send a catalogue event (recording/vocabulary); `msgName` comes from the catalogue row, first in `details`. */
  emit: (event: EventKind, fields: { readonly [k: string]: unknown } = {}): Effect => ({
    kind: 'emit',
    eventType: event.eventType,
    serviceType: event.serviceType,
    details: { msgName: event.msgName, ...fields },
  }),
});

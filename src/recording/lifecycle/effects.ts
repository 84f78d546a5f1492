import type { EndReason } from '../dispatch/types.ts';
import type { UpdateClientRequest, UpdateLayoutClientRequest } from '../validation/types.ts';

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
  emit: (eventType: number, serviceType: number, details: { msgName: string; [k: string]: unknown }): Effect => ({
    kind: 'emit',
    eventType,
    serviceType,
    details,
  }),
});

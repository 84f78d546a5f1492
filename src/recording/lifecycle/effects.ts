import type { EndReason } from '../dispatch/types.ts';
import type { UpdateClientRequest, UpdateLayoutClientRequest } from '../validation/types.ts';

/** What the service must do after a transition; the lifecycle itself does no I/O. */
export type Effect =
  | { readonly kind: 'launch' }
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
  launch: (): Effect => ({ kind: 'launch' }),
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

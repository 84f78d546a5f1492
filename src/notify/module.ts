import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import type { DeliveryFilter, DeliveryRecord, RecordingEventInput } from './types.ts';

export interface NotifyModule extends ReeltimeModule {
  /** Durably stores the event (sequence assigned per sid, from 0) and schedules delivery; resolves once stored. */
  emit(event: RecordingEventInput): Promise<void>;
  /** Addresses of the notifier nodes for GET /v1/ncs/ip (the recording API registers that route). */
  ncsHosts(): readonly string[];
  /** Delivery records for an app/sid (for tests, ops and the console): pending, delivered, failed. */
  deliveries(filter: DeliveryFilter): Promise<readonly DeliveryRecord[]>;
}

export function createNotifyModule(ctx: ServerContext): NotifyModule {
  const hosts = Object.freeze([new URL(ctx.config.publicUrl).hostname]);
  return {
    name: 'notify',
    register() {},
    close() {},
    async emit() {},
    ncsHosts: () => hosts,
    async deliveries() {
      return [];
    },
  };
}

export { createNotifyModule, type NotifyModule } from './module.ts';
export type { NotifyConfig } from './config.ts';
export type {
  DeliveryAttempt,
  DeliveryFilter,
  DeliveryRecord,
  DeliveryStatus,
  RecordingEventInput,
} from './types.ts';

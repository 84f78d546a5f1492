export { createNotifyModule, type NotifyModule } from './module.ts';
export type { NotifyConfig, WebhookTarget } from './config.ts';
export { encodeEnvelope, encodePayload, PRODUCT_ID_CLOUD_RECORDING } from './envelope.ts';
export { signatureHeaders, verifySignature } from './signature.ts';
export type {
  DeliveryAttempt,
  DeliveryFilter,
  DeliveryRecord,
  DeliveryStatus,
  RecordingEventInput,
} from './types.ts';

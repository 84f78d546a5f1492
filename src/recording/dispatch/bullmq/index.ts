// Queue-backed dispatch across processes (BullMQ on Redis, leases in PostgreSQL): docs/deployment.md.
export { createQueueDispatcher, NoRecorderAccepted, type QueueDispatcherDeps } from './dispatcher.ts';
export { startRecorderWorker, type RecorderWorker, type RecorderWorkerDeps } from './worker.ts';
export { LeaseStore, type Lease } from './lease.ts';
export { redisResourceLock } from './lock.ts';
export { parseDispatchSettings, type DispatchSettings } from './settings.ts';
export type { QueueContext } from './connection.ts';
export { fitsWorker, noFitReason, type PlacementNeeds, type WorkerLabels } from './labels.ts';
export { WorkerRegistry } from './registry.ts';

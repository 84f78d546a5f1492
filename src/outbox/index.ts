// Writes that must outlive a database outage: kept in order per key, retried, journalled on local disk.
export { Outbox, OutboxError, type OutboxOptions } from './outbox.ts';

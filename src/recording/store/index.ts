export { TaskStore, type StoredEvent } from './task-store.ts';

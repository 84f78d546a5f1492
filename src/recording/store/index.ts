export { TaskConflictError, TaskStore, type StoredEvent } from './task-store.ts';

export { createRecordingModule, type RecordingModule } from './module.ts';
export type { RecordingConfig } from './config.ts';

import type { Migration } from 'kysely';

/** Tables owned by the recording module. Names are prefixed "recording_" so modules never collide. */
export interface RecordingTables {}

/** Migrations of the recording module, keyed "recording-NNNN-what"; portable across SQLite and PostgreSQL. */
export const recordingMigrations: Record<string, Migration> = {};

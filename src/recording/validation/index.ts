export { ValidationError } from './schema.ts';
export * from './tables.ts';
export { checkSceneMode, checkStorageUnchanged, checkUpdateMode, MIX_DEFAULT_RECORDING_CONFIG, validateStartClientRequest } from './rules.ts';
export { ALL_STREAMS } from './primitives.ts';
export type * from './types.ts';
export { RECORDING_MODES } from './types.ts';
export { echoable, RESOURCE_ID_PATTERN, SID_PATTERN, type Identifiers } from './identifiers.ts';

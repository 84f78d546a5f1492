export { ValidationError } from './schema.ts';
export * from './tables.ts';
export { checkSceneMode, checkStorageUnchanged, checkUpdateMode, MIX_DEFAULT_RECORDING_CONFIG, validateStartClientRequest } from './rules.ts';
export { ALL_STREAMS } from './formats.ts';
export { echoable, RESOURCE_ID_PATTERN, SID_PATTERN, type Identifiers } from './identifiers.ts';
export { REQUEST_BODY_NAMES, requestBodyJsonSchema, type JsonSchema, type RequestBodyName } from './json-schema.ts';
export type * from './types.ts';
export { RECORDING_MODES } from './types.ts';

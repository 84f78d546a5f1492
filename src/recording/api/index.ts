// The recording REST API under /v1: routes, Basic auth, error bodies (docs/recording-api.md, docs/errors.md).
export { createAuthenticator, type Authenticator } from './basic-auth.ts';
export { wordRecordingRefusal } from './errors-handler.ts';
export { recordingApi, type ApiDeps } from './plugin.ts';
export { recordingOpenApi } from './openapi.ts';

// The `record` command's pure parts: request bodies, remembered sessions, the status line.
export { LAYOUTS, localStorageConfig, sceneOf, startClientRequest, updateClientRequest } from './request.ts';
export { findSavedSession, saveSession, type SavedSession } from './saved-sessions.ts';
export { bucketUrl, bytes, fileNames, isRecording, statusLine } from './status-line.ts';

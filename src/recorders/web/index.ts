export { createWebRecorder, type WebRecorderDeps } from './recorder.ts';
export { webOptions, webTuning, webMp4Name, webPlaylistName, webSliceName, type WebOptions, type WebTuning } from './options.ts';

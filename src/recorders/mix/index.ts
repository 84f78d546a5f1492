export { createMixRecorder, type MixRecorderDeps } from './recorder.ts';
export { layoutSettings, mixOptions, type MixOptions } from './options.ts';

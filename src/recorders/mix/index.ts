export { createMixRecorder, type MixRecorderDeps } from './recorder.ts';
export { mixOptions, type MixOptions } from './options.ts';

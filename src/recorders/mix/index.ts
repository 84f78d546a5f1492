export { createMixRecorder, type MixRecorderDeps } from './recorder.ts';
export { layoutSettings, mixOptions, mp4Groups, type MixOptions } from './options.ts';

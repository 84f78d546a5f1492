export { createIndividualRecorder, type IndividualRecorderDeps } from './individual/index.ts';
export { defaultRecorders, type RecorderDeps, type RecorderTestHooks } from './registry.ts';
export { createMixRecorder, type MixRecorderDeps } from './mix/index.ts';
export { createWebRecorder, type WebRecorderDeps } from './web/index.ts';

export { createIndividualRecorder, type IndividualRecorderDeps } from './individual/index.ts';
export { defaultRecorders, type RecorderDeps } from './registry.ts';
export { createMixRecorder, type MixRecorderDeps } from './mix/index.ts';
export { createWebRecorder, type WebRecorderDeps } from './web/index.ts';

export { createIndividualRecorder, type IndividualRecorderDeps } from './individual/index.ts';

export { createIndividualRecorder, type IndividualRecorderDeps, type IndividualTestHooks } from './recorder.ts';
export { individualOptions, type IndividualOptions, type PostProcess, type StreamMode } from './options.ts';
export { channelSource, ChannelRefusal, type ChannelSource, type MediaSubscription } from '../common/index.ts';

export { launchFollowingSession, openUpload, refuseTakenUid, type LaunchDeps, type SessionIO, type StartableSession } from './launch.ts';
export { meterUploads, registerRecorderMetrics, type RecorderMeter } from './meter.ts';

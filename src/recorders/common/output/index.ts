export { groupMp4Slices, writeMp4Files, type Mp4Run, type Mp4Slice, type Mp4Split, type Mp4Writing } from './mp4.ts';
export { RecordingOutput, type FileOwner, type OutputTrack, type RecordingOutputDeps, type RecoveredRun } from './recording-output.ts';

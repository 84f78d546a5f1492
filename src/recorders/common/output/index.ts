export { nextBackupIndex } from './backup-index.ts';
export { fenceUploads } from './fenced-upload.ts';
export { HlsTrackWriter, PLAYLIST_CONTENT_TYPE, type ClosedSliceFile, type HlsTrackOptions, type SliceOutcome } from './hls-track.ts';
export { groupMp4Slices, writeMp4Files, type Mp4Run, type Mp4Slice, type Mp4Split, type Mp4Writing } from './mp4.ts';
export { RecordingOutput, type FileOwner, type OutputTrack, type RecordingOutputDeps, type RecoveredRun } from './recording-output.ts';
export {
  dirEntries,
  earlierGenerations,
  generationDir,
  generationNaming,
  recoverTrack,
  resumedBackupIndex,
  runWorkDir,
  type RecoveredSlice,
  type RecoveredTrack,
  type RunWorkDir,
  type TrackLeftovers,
} from './recovery.ts';

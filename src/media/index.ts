// Media pieces the recorders assemble: ffmpeg supervision, the RTP-to-slices pipeline and its slicing rule,
// HLS playlists, object names, and post-recording remux. Mix compositing has its own index (./mix/index.ts).
export { AAC_BITRATE } from './aac-output.ts';
export { SendClock } from './arrival-anchor.ts';
export { LOSS_FIGURES, LossMeter, type FeedStats, type LossFigure, type LossKind } from './jitter/index.ts';
export { FFMPEG_BIN, FFPROBE_BIN, FfmpegProcess, runFfmpeg, type FfmpegExit, type FfmpegOptions } from './ffmpeg.ts';
export { ivfFileHeader, ivfFrameHeader, RtpTimestampUnwrapper } from './ivf.ts';
export {
  appendSlice,
  createPlaylist,
  endPlaylist,
  parsePlaylist,
  renderMergedIndex,
  renderPlaylist,
  type MediaPlaylist,
  type PlaylistEntry,
  type RenderOptions,
} from './m3u8.ts';
export {
  audioMixName,
  mergedPlaylistName,
  parseUserFileName,
  parseUtcStamp,
  mixMp4Name,
  mixPlaylistName,
  mixSliceName,
  playlistName,
  sanitizeCname,
  sliceName,
  snapshotName,
  speakersName,
  transcodedMp4Name,
  userMp4Name,
  utcStamp,
  type AudioMixFormat,
  type FileTrack,
  type ParsedUserFile,
  type SessionNaming,
  type SliceContainer,
  type TrackKind,
} from './naming.ts';
export { mixAudio, userMp4, type AudioMixInput, type SliceFile, type UserMp4Input } from './remux.ts';
export { isVideoCodec, type RtpCodecName, type RtpTrackDescription } from './sdp.ts';
export { expectedSliceCount, SLICE_SECONDS, slicePolicy, type SlicePolicy } from './slice-policy.ts';
export {
  INPUT_TIMEOUT_MS,
  slicerEnd,
  TrackPipeline,
  type AudioOutput,
  type SlicerEnd,
  type ClosedSlice,
  type Snapshot,
  type TrackPipelineEvents,
  type PipelineRepair,
  type TrackPipelineOptions,
} from './track-pipeline.ts';

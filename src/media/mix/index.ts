// Mix mode's media-free core: layout geometry, per-user display state, I420 compositor, audio mixing and
// alignment, active speaker selection (docs/recording-mix.md).
export type { CanvasSize, MixRegion, PixelRect, RegionWithoutPicture, RenderMode } from './region.ts';
export { type FractionRect, pixelEdge, pixelRect } from './geometry.ts';
export {
  completeMixLayoutSettings,
  type CustomRegionSpec,
  type CustomRegionSpecInput,
  DEFAULT_BACKGROUND_COLOR,
  MAX_MIX_REGIONS,
  MIX_LAYOUT,
  MIX_LAYOUT_KINDS,
  type MixLayoutKind,
  type MixLayoutSettings,
  type MixLayoutSettingsInput,
  type UserBackgroundSpec,
  type UserBackgroundSpecInput,
} from './layout-settings.ts';
export { layout, type LayoutOptions } from './layout.ts';
export { bestFitCells } from './layout-best-fit.ts';
export { FLOATING_GAP, FLOATING_PER_ROW, FLOATING_SMALL_SIZE } from './layout-floating.ts';
export { VERTICAL_MAX_SMALLS, verticalGeometry, type VerticalGeometry } from './layout-vertical.ts';
export {
  type AvailableImages,
  LEAVE_REFLOW_DELAY_MS,
  NEVER_SENT,
  type UserDisplay,
  userDisplayAt,
  userLeft,
  type UserVideoState,
  VIDEO_STOP_GRACE_MS,
  videoFrameArrived,
} from './display-state.ts';
export {
  EMPTY_ROSTER,
  type MixRoster,
  rosterJoin,
  rosterLayoutUsers,
  rosterLeave,
  rosterPrune,
  rosterVideoFrame,
  type RosterEntry,
} from './roster.ts';
export { BLACK_YUV, hexToYuv, parseHexColour, type RgbColour, rgbToYuv, type YuvColour } from './colour.ts';
export {
  chromaSize,
  createI420Frame,
  fillI420,
  type I420Frame,
  i420ByteLength,
  i420FromBytes,
  i420PixelAt,
  solidI420Frame,
} from './i420.ts';
export type { ScalingMethod } from './scaling-plan.ts';
export {
  type CanvasBackground,
  type Composition,
  type CompositionLayer,
  DEFAULT_SCALING,
  type LayerContent,
  MixCompositor,
} from './compositor.ts';
export { composeScene, type PlacedImage, type ScenePictures } from './scene.ts';
export {
  DEFAULT_MIX_AUDIO_PROFILE,
  MIX_AUDIO_PROFILES,
  MIX_SAMPLE_RATE,
  mixAudioProfile,
  type MixAudioProfile,
  type MixAudioProfileId,
} from './audio-profile.ts';
export {
  addPcmInto,
  LIMITER_KNEE,
  limitInto,
  mixPcmFrames,
  type PcmFormat,
  type PcmFrame,
  pcmFrameCount,
  type PcmSamples,
  softLimit,
} from './audio-mixer.ts';
export { type AudioPlacement, AudioTimeline, type AudioTimelineOptions } from './audio-timeline.ts';
export {
  ACTIVE_SPEAKER_DEFAULTS,
  type ActiveSpeakerOptions,
  ActiveSpeakerSelector,
  rmsDbfs,
  rtpAudioLevelToDbfs,
  SILENCE_DBFS,
} from './active-speaker.ts';

// The per-mode settings a recorder runs with, built once at the dispatch boundary from the validated start request
// and the updates the control plane stored (docs/architecture.md, "Recorder settings").
export { recorderSettings, settingsFor, type RecorderSettings } from './recorder-settings.ts';
export { DEFAULT_CAPTURE_INTERVAL, DEFAULT_MIX_BITRATE, DEFAULT_MIX_SAMPLE_RATE, type IndividualSettings, type PostProcess, type StreamMode } from './individual.ts';
export { ACCEPTED_FPS, DEFAULT_BITRATE_KBPS, DEFAULT_CANVAS, DEFAULT_FPS, evenCanvas, mixLayoutSettings, type MixSettings } from './mix.ts';
export { channelProfile, DEFAULT_MAX_IDLE_SECONDS, type SettingsSource, type TranscriptionTarget } from './source.ts';
export { DEFAULT_MAX_VIDEO_MINUTES, type WebSettings } from './web.ts';

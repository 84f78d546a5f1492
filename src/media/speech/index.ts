// Who spoke when: the speaker timeline's pure core (docs/tasks/speaker-timeline.md).
export { LEVEL_FRAME_MS, levelFrames } from './level-frames.ts';
export {
  type LevelFrame,
  nextVoiceState,
  SILENT,
  SpeechDetector,
  type SpeechInterval,
  type SpeechRules,
  SPEECH_RULES,
  type VoiceInput,
  type VoiceState,
  type VoiceStep,
} from './speech-detector.ts';
export { SPEECH_SAMPLE_RATE, SpeechAudio, toSpeechRate, wavFile } from './speech-audio.ts';
export { type LevelSource, mediaSecondsAt, type SpeakersDocument, speakersDocument, speakersVtt, type TimelinePlaylist, type TimelineSlice, vttTime } from './timeline-files.ts';

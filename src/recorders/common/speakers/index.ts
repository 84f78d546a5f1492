// The speaker timeline stage (individual and mix modes): docs/tasks/speaker-timeline.md.
export { sessionSpeakerTimeline, type SessionTimelineDeps, SpeakerTimeline, type SpeakerTimelineDeps, TRANSCRIPTS_AT_STOP_MS } from './speaker-timeline.ts';
export { Transcriber, type TranscriberDeps, TRANSCRIPTION_RETRY_DELAYS_MS } from './transcriber.ts';
export { SpeakerLevels, type SpeakerLevelSinks } from './speaker-levels.ts';

// The speaker timeline stage (individual and mix modes): docs/tasks/speaker-timeline.md.
export { SpeakerTimeline, type SpeakerTimelineDeps } from './speaker-timeline.ts';
export { DecodedAudioLevels } from './decoded-audio.ts';

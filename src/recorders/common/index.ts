/**
 * The recorder stages every mode's session is built from (docs/architecture.md, ¹): follower/ the channel source
 * (individual, mix), output/ the recording output (every mode), signals/ what a session reports; hold/ pause and
 * resume, launch/ a Recorder's launch; events.ts the signals a session reports through.
 */
// The event, code and status vocabulary is the control plane's (recording/vocabulary, through recording/index.ts).
export { recorderSignals, type RecorderSignals } from './events.ts';
export * from './follower/index.ts';
export * from './hold/index.ts';
export * from './launch/index.ts';
export * from './output/index.ts';
export * from './signals/index.ts';

/**
 * The recorder stages every mode's session is built from (docs/architecture.md, ¹): follower/ the channel source
 * (individual, mix), output/ the recording output (every mode), signals/ what a session reports; hold/ pause and
 * resume, launch/ a Recorder's launch; events.ts the event catalogue.
 */
export {
  ERROR_CODE,
  ERROR_LEVEL,
  EVENT_MODULE,
  LEAVE_CODE,
  RECORDER_EVENTS,
  RECORDER_STATUS,
  recorderSignals,
  WARN_CODE,
  type RecorderEventName,
  type RecorderSignals,
  type RecorderStatusName,
} from './events.ts';
export * from './follower/index.ts';
export * from './hold/index.ts';
export * from './launch/index.ts';
export * from './output/index.ts';
export * from './signals/index.ts';

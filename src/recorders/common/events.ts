/**
 * A recorder's voice: the control plane's event catalogue (recording/vocabulary, through recording/dispatch) spoken
 * over the dispatch report.
 */
import {
  errorFields,
  RECORDER_EVENTS,
  RECORDING_STATUS,
  type ErrorLevel as Level,
  type EventModule as Module,
  type RecorderEventName,
  type RecorderReport,
  type RecorderStatusName,
} from '../../recording/index.ts';

/** A recorder's voice: named events and statuses over the dispatch report. */
export interface RecorderSignals {
  emit(name: RecorderEventName, fields?: Readonly<Record<string, unknown>>): void;
  error(module: Module, level: Level, errorCode: number, errorMsg: string): void;
  warning(module: Module, warnCode: number, warnMsg: string): void;
  status(name: RecorderStatusName): void;
}

export function recorderSignals(report: RecorderReport): RecorderSignals {
  const emit = (name: RecorderEventName, fields: Readonly<Record<string, unknown>> = {}): void => {
    const e = RECORDER_EVENTS[name];
    report.event(e.eventType, e.serviceType, { msgName: e.msgName, ...fields });
  };
  return {
    emit,
    error: (module, errorLevel, errorCode, errorMsg) => emit('error', errorFields(module, errorLevel, errorCode, errorMsg)),
    warning: (module, warnCode, warnMsg) => emit('warning', { module, warnCode, warnMsg }),
    status: (name) => report.status(RECORDING_STATUS[name]),
  };
}

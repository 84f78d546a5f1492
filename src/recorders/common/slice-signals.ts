import type { RecorderSignals } from './events.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE } from '../../recording/index.ts';
import type { SliceOutcome } from './hls-track.ts';

/** Which stream a slice belongs to, as event 42 `recorder_slice_start` names it (docs/notify.md). */
export interface SliceStream {
  readonly mixedAllUser: boolean;
  readonly streamUid: string;
  readonly trackType: string;
}

/**
 * A closed slice's hand-off as the recorder's events: an uploader error when the spool refused it, event 42 when it
 * starts a (re)started stream. True when the slice is in the spool.
 */
export function signalSliceOutcome(
  signals: RecorderSignals,
  startMs: number,
  out: SliceOutcome,
  stream: SliceStream,
): out is Extract<SliceOutcome, { ok: true }> {
  if (!out.ok) {
    signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, out.message);
    return false;
  }
  if (out.startsStream) {
    signals.emit('sliceStart', { startUtcMs: startMs, discontinueUtcMs: out.discontinueUtcMs, ...stream });
  }
  return true;
}

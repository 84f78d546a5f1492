import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, LEAVE_CODE, WARN_CODE } from '../../recording/dispatch/index.ts';
import { recorderSignals } from './events.ts';

test('signals put msgName first and the named numbers in place', () => {
  const seen: { eventType: number; serviceType: number; details: Record<string, unknown> }[] = [];
  const statuses: number[] = [];
  const s = recorderSignals({
    status: (st) => statuses.push(st),
    files() {},
    sliceStartTime() {},
    event: (eventType, serviceType, details) => seen.push({ eventType, serviceType, details }),
    ended() {},
  });
  s.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.slicerStopped, 'video slicer of uid 1 stopped');
  s.warning(EVENT_MODULE.uploader, WARN_CODE.backupSpool, 'f.ts: down');
  s.emit('recorderLeave', { leaveCode: LEAVE_CODE.idle });
  s.status('recorderReady');
  assert.deepEqual(seen, [
    { eventType: 1, serviceType: 0, details: { msgName: 'cloud_recording_error', module: 0, errorLevel: 3, errorCode: 1103, stat: 0, errorMsg: 'video slicer of uid 1 stopped' } },
    { eventType: 2, serviceType: 0, details: { msgName: 'cloud_recording_warning', module: 1, warnCode: 32, warnMsg: 'f.ts: down' } },
    { eventType: 41, serviceType: 1, details: { msgName: 'recorder_leave', leaveCode: 4 } },
  ]);
  assert.deepEqual(Object.keys(seen[0]!.details)[0], 'msgName');
  assert.deepEqual(statuses, [4]);
});

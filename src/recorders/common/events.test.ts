import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RECORDING_STATUSES } from '../../recording/dispatch/index.ts';
import {
  ERROR_CODE,
  ERROR_LEVEL,
  EVENT_MODULE,
  LEAVE_CODE,
  RECORDER_EVENTS,
  RECORDER_STATUS,
  recorderSignals,
  WARN_CODE,
} from './events.ts';

const doc = readFileSync(new URL('../../../docs/notify.md', import.meta.url), 'utf8');

/** Rows of docs/notify.md's "Recorder events" whose first cell is a backticked name (`uploaded`, `leaveCode.idle` ...). */
function documented(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  const section = doc.split('\n## Recorder events\n')[1]?.split('\n## ')[0] ?? '';
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([\w.]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.split('|').map((c) => c.trim()));
  }
  return rows;
}

const CODE_TABLES = { module: EVENT_MODULE, errorLevel: ERROR_LEVEL, errorCode: ERROR_CODE, warnCode: WARN_CODE, leaveCode: LEAVE_CODE, status: RECORDER_STATUS };

test('every recorder event, code and status is documented in docs/notify.md with the same numbers and msgName', () => {
  const rows = documented();
  const expected = new Map<string, string[]>();
  for (const [name, e] of Object.entries(RECORDER_EVENTS)) expected.set(name, [String(e.eventType), String(e.serviceType), `\`${e.msgName}\``]);
  for (const [table, codes] of Object.entries(CODE_TABLES)) {
    for (const [name, value] of Object.entries(codes)) expected.set(`${table}.${name}`, [String(value)]);
  }
  assert.deepEqual([...rows.keys()].sort(), [...expected.keys()].sort());
  for (const [name, cells] of expected) assert.deepEqual(rows.get(name)!.slice(0, cells.length), cells, name);
});

test('catalogue: event types unique, statuses are query statuses', () => {
  const types = Object.values(RECORDER_EVENTS).map((e) => e.eventType);
  assert.equal(new Set(types).size, types.length);
  for (const s of Object.values(RECORDER_STATUS)) assert.ok(RECORDING_STATUSES.includes(s));
});

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

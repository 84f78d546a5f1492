import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  ERROR_CODE,
  ERROR_LEVEL,
  errorFields,
  EVENT_MODULE,
  EVENT_STATUS,
  EXIT_STATUS,
  LEAVE_CODE,
  RECORDER_EVENTS,
  RECORDING_STATUS,
  RECORDING_STATUSES,
  SERVICE_EVENTS,
  STREAM_STATE,
  WARN_CODE,
  WEB_STOP,
} from './index.ts';

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

const CODE_TABLES = {
  module: EVENT_MODULE,
  errorLevel: ERROR_LEVEL,
  errorCode: ERROR_CODE,
  warnCode: WARN_CODE,
  leaveCode: LEAVE_CODE,
  exitStatus: EXIT_STATUS,
  eventStatus: EVENT_STATUS,
  streamState: STREAM_STATE,
  status: RECORDING_STATUS,
};

test('every event, code and status is documented in docs/notify.md with the same numbers and msgName', () => {
  const rows = documented();
  const expected = new Map<string, string[]>();
  for (const [name, e] of Object.entries({ ...RECORDER_EVENTS, ...SERVICE_EVENTS })) {
    expected.set(name, [String(e.eventType), String(e.serviceType), `\`${e.msgName}\``]);
  }
  for (const [table, codes] of Object.entries(CODE_TABLES)) {
    for (const [name, value] of Object.entries(codes)) expected.set(`${table}.${name}`, [String(value)]);
  }
  // Web stop codes: the value, then the message first in the meaning cell.
  for (const [name, stop] of Object.entries(WEB_STOP)) expected.set(`webStop.${name}`, [String(stop.code)]);
  assert.deepEqual([...rows.keys()].sort(), [...expected.keys()].sort());
  for (const [name, cells] of expected) assert.deepEqual(rows.get(name)!.slice(0, cells.length), cells, name);
  for (const [name, stop] of Object.entries(WEB_STOP)) assert.ok(rows.get(`webStop.${name}`)![1]!.startsWith(`\`${stop.message}\``), name);
});

test('catalogue: event names and types unique across recorder and service events; statuses are the spec query statuses', () => {
  const all = [...Object.values(RECORDER_EVENTS), ...Object.values(SERVICE_EVENTS)];
  const types = all.map((e) => e.eventType);
  assert.equal(new Set(types).size, types.length);
  const names = [...Object.keys(RECORDER_EVENTS), ...Object.keys(SERVICE_EVENTS)];
  assert.equal(new Set(names).size, names.length);
  // spec "Status codes in query responses".
  assert.deepEqual([...RECORDING_STATUSES], [0, 1, 2, 3, 4, 5, 6, 7, 8, 20]);
});

test('errorFields puts the named numbers in place', () => {
  const d = errorFields(EVENT_MODULE.service, ERROR_LEVEL.fatal, ERROR_CODE.launchFailed, 'failed to start the recording service');
  assert.deepEqual(d, {
    module: 2,
    errorLevel: 5,
    errorCode: 52,
    stat: 0,
    errorMsg: 'failed to start the recording service',
  });
});

// The runtime's pure parts: the recorder slot's transitions (stop de-duplication) and how kept reports fold into one
// transition (stale reports under a lost lease, an end that an API stop owns).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordedFile, RecorderHandle } from '../dispatch/index.ts';
import { canonicalJson, createIssuedTask, requestStop, startSession, type LiveTask, type Task } from '../lifecycle/index.ts';
import { startRequest } from '../testing/client.ts';
import { T0, testResource } from '../testing/resource.ts';
import { validateStartClientRequest } from '../validation/index.ts';
import { RECORDING_STATUS } from '../vocabulary/index.ts';
import { applyReports, applyStale, RecorderSlot, slotAfter, type KeptReport, type ReportContext } from './index.ts';

const cr = validateStartClientRequest(startRequest('mix'), 'mix', 0);
const live = (): LiveTask =>
  startSession(
    createIssuedTask(testResource()),
    { appId: 'app', cname: 'c', uid: '1', sid: 's1', mode: 'mix', clientRequest: cr, canonical: canonicalJson(startRequest('mix')) },
    T0 + 1000,
  ).task;

const file = (fileName: string): RecordedFile => ({ fileName, trackType: 'audio_and_video', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: T0 });
const base = { resourceId: 'r'.repeat(20), sid: 's1' };
const ctx = (over: Partial<ReportContext> = {}): ReportContext => ({ stale: () => false, stopping: false, now: T0 + 5000, ...over });

test('recorder slot: launch holds, a second stop joins the first, only the settled stop leaves, release forgets', () => {
  const handle = Promise.resolve<RecorderHandle | undefined>(undefined);
  const first = Promise.resolve(live() as Task);
  const second = Promise.resolve(live() as Task);
  const held = slotAfter(undefined, { kind: 'launched', handle });
  assert.deepEqual(held, { kind: 'held', handle });
  assert.equal(RecorderSlot.isStopping(held), false);

  const stopping = slotAfter(held, { kind: 'stopBegan', stop: first });
  assert.deepEqual(stopping, { kind: 'stopping', handle, stop: first });
  assert.equal(RecorderSlot.isStopping(stopping), true);
  // A second stop (an expiry during an API stop) does not replace the running one.
  assert.equal(slotAfter(stopping, { kind: 'stopBegan', stop: second }), stopping);
  // Another stop's settling leaves this one in place; its own returns the slot to held.
  assert.equal(slotAfter(stopping, { kind: 'stopSettled', stop: second }), stopping);
  assert.deepEqual(slotAfter(stopping, { kind: 'stopSettled', stop: first }), { kind: 'held', handle });

  // A stop begun with no recorder launched here (another process holds it) keeps no handle and leaves nothing.
  const remote = slotAfter(undefined, { kind: 'stopBegan', stop: first });
  assert.deepEqual(remote, { kind: 'stopping', handle: undefined, stop: first });
  assert.equal(slotAfter(remote, { kind: 'stopSettled', stop: first }), undefined);
  // Released while the stop settles (the ended task was released): the settling does not bring it back.
  assert.equal(slotAfter(slotAfter(stopping, { kind: 'released' }), { kind: 'stopSettled', stop: first }), undefined);
});

test('kept reports fold in order into one transition; reports of another session change nothing', () => {
  const t = live();
  const reports: KeptReport[] = [
    { ...base, kind: 'status', status: RECORDING_STATUS.recorderReady },
    { ...base, kind: 'files', files: [file('a.m3u8')] },
    { ...base, sid: 'other', kind: 'status', status: RECORDING_STATUS.exitedAbnormally },
    { ...base, kind: 'sliceStart', ms: T0 + 2000 },
    { ...base, kind: 'rtmp', rtmpUrl: 'rtmp://127.0.0.1/live/x', status: 'publishing' },
  ];
  const o = applyReports(t, reports, ctx());
  assert.equal(o.task.kind, 'live');
  assert.ok(o.task.kind === 'live');
  assert.equal(o.task.session.status, RECORDING_STATUS.recorderReady);
  assert.deepEqual(o.task.session.files.map((f) => f.fileName), ['a.m3u8']);
  assert.equal(o.task.session.sliceStartTime, T0 + 2000);
  assert.deepEqual(o.task.session.rtmp, [{ rtmpUrl: 'rtmp://127.0.0.1/live/x', status: 'publishing' }]);
  assert.deepEqual(o.effects, []);
  assert.deepEqual(applyReports(undefined, reports, ctx()).effects, []);
});

test('an ended report finishes the task unless an API stop here owns the end', () => {
  const ended: KeptReport = { ...base, kind: 'ended', outcome: { reason: 'idle', uploadingStatus: 'uploaded', recordedAnything: true } };
  const fromLive = applyReports(live(), [ended], ctx());
  assert.equal(fromLive.task.kind, 'ended');
  assert.deepEqual(fromLive.effects.map((e) => e.kind), ['emit', 'release']);

  const stopping = requestStop(live(), T0 + 3000).task;
  assert.equal(applyReports(stopping, [ended], ctx({ stopping: true })).task, stopping);
  assert.equal(applyReports(stopping, [ended], ctx({ stopping: false })).task.kind, 'ended');
});

test('a stale report (its lease lost) only adds files the stored list lacks', () => {
  const t = applyReports(live(), [{ ...base, kind: 'files', files: [file('a.m3u8')] }], ctx()).task;
  const stale = ctx({ stale: () => true });
  // Status, slice start and the end are dropped.
  assert.equal(applyReports(t, [{ ...base, kind: 'status', status: RECORDING_STATUS.exitedAbnormally }], stale).task, t);
  assert.equal(applyReports(t, [{ ...base, kind: 'ended', outcome: { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false } }], stale).task, t);
  // Files: the known one is neither removed nor replaced; the new one is added.
  const out = applyReports(t, [{ ...base, kind: 'files', files: [file('b.m3u8')] }], stale).task;
  assert.ok(out.kind === 'live');
  assert.deepEqual(out.session.files.map((f) => f.fileName), ['a.m3u8', 'b.m3u8']);
  assert.equal(applyStale(t, { ...base, kind: 'files', files: [file('a.m3u8')] }).task, t);
});

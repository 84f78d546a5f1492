import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingTaskOf } from '../dispatch/index.ts';
import { startRequest } from '../testing/client.ts';
import { T0, testResource } from '../testing/resource.ts';
import { validateStartClientRequest } from '../validation/index.ts';
import {
  accessSession,
  assertMode,
  canonicalJson,
  createIssuedTask,
  finish,
  RecordingRefusal,
  launchFailed,
  reportFiles,
  reportStatus,
  requestStop,
  RESOURCE_TTL_MS,
  resumeSession,
  startSession,
  timerFired,
  updateLayout,
  updateSession,
  uploadTimedOut,
  type LiveTask,
  type Task,
} from './index.ts';

const HOUR = 3600_000;
const cr = validateStartClientRequest(startRequest('mix'), 'mix', 0);
const ev = { appId: 'app', cname: 'c', uid: '1', sid: 's1', mode: 'mix' as const, clientRequest: cr, canonical: canonicalJson(startRequest('mix')) };

/** The name of the refusal `fn` throws. */
function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    assert.ok(e instanceof RecordingRefusal);
    return e.name;
  }
}

const live = (): LiveTask => startSession(createIssuedTask(testResource()), ev, T0 + 1000).task;

test('start: issued → live with launch and the expiry timer; refusals by kind and time', () => {
  const out = startSession(createIssuedTask(testResource()), ev, T0 + 1000);
  assert.equal(out.task.kind, 'live');
  assert.equal(out.task.session.status, 0);
  assert.equal(out.task.session.apiExpiresAt, T0 + 1000 + 2 * HOUR);
  assert.deepEqual(out.effects, [{ kind: 'launch', resumed: false }, { kind: 'schedule', at: T0 + 1000 + 2 * HOUR }]);
  assert.equal(refusal(() => startSession(out.task, ev, T0 + 2000)), 'AlreadyStartedError');
  assert.equal(refusal(() => startSession(createIssuedTask(testResource()), ev, T0 + RESOURCE_TTL_MS)), 'ResourceExpiredError');
  assert.equal(refusal(() => startSession(createIssuedTask(testResource()), { ...ev, uid: '2' }, T0)), 'ResourceMismatchError');
  assert.equal(refusal(() => startSession(createIssuedTask(testResource()), { ...ev, appId: 'other' }, T0)), 'ResourceMismatchError');
  assert.equal(refusal(() => startSession(createIssuedTask(testResource({ startParameter: '{}' })), ev, T0)), 'StartParameterMismatchError');
  assert.equal(startSession(createIssuedTask(testResource({ startParameter: ev.canonical })), ev, T0).task.kind, 'live');
});

test('canonical JSON ignores key order but not values or array order', () => {
  assert.equal(canonicalJson({ a: 1, b: { c: 2, d: [1, 2] } }), canonicalJson({ b: { d: [1, 2], c: 2 }, a: 1 }));
  assert.notEqual(canonicalJson({ d: [1, 2] }), canonicalJson({ d: [2, 1] }));
});

test('access: only live or stopping sessions of the right app, sid, cname and uid, before resourceExpiredHour', () => {
  const t = live();
  const ref = { appId: 'app', sid: 's1' };
  assert.equal(accessSession(t, ref, T0 + 2000).kind, 'live');
  assert.equal(refusal(() => accessSession(undefined, ref, T0)), 'SessionNotFoundError');
  assert.equal(refusal(() => accessSession(createIssuedTask(testResource()), ref, T0)), 'SessionNotFoundError');
  assert.equal(refusal(() => accessSession(t, { ...ref, sid: 'x' }, T0)), 'SessionNotFoundError');
  assert.equal(refusal(() => accessSession(t, { ...ref, appId: 'x' }, T0)), 'SessionNotFoundError');
  assert.equal(refusal(() => accessSession(t, { ...ref, cname: 'other' }, T0)), 'SessionNotFoundError');
  assert.equal(refusal(() => accessSession(t, ref, t.session.apiExpiresAt)), 'SessionNotFoundError');
});

test('refusals name their subject: the running sid for a second start, the resource only when it exists', () => {
  const t = live();
  const subject = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as RecordingRefusal).subject;
    }
    return undefined;
  };
  assert.deepEqual(subject(() => startSession(t, ev, T0 + 2000)), { cname: 'c', uid: '1', resourceId: t.resource.resourceId, sid: 's1' });
  assert.deepEqual(subject(() => accessSession(t, { appId: 'app', sid: 'x', cname: 'c' }, T0)), {
    cname: 'c',
    uid: undefined,
    resourceId: t.resource.resourceId,
    sid: 'x',
  });
  assert.equal(subject(() => accessSession(undefined, { appId: 'app', sid: 'x' }, T0))?.resourceId, undefined);
  assert.equal(refusal(() => assertMode(t, 'web')), 'ModeMismatchError');
  assert.equal(subject(() => assertMode(t, 'web'))?.uid, '1');
});

test('stop: live → stopping (status 6, stopRecorder); again → invalidOperation; finish → ended with session_exit', () => {
  const s = requestStop(live(), T0 + 5000);
  assert.equal(s.task.kind, 'stopping');
  assert.equal(s.task.session.status, 6);
  assert.deepEqual(s.effects, [{ kind: 'stopRecorder', reason: 'stopped' }]);
  assert.equal(refusal(() => requestStop(s.task, T0 + 6000)), 'SessionStoppingError');
  assert.equal(refusal(() => updateSession(s.task, { storageConfig: cr.storageConfig })), 'SessionStoppingError');
  const e = finish(s.task, { reason: 'stopped', uploadingStatus: 'backuped', recordedAnything: true, files: [] }, T0 + 7000);
  assert.equal(e.task.kind, 'ended');
  assert.equal(e.task.kind === 'ended' && e.task.uploadingStatus, 'backuped');
  assert.deepEqual(e.effects, [
    { kind: 'emit', eventType: 11, serviceType: 0, details: { msgName: 'session_exit', exitStatus: 0 } },
    { kind: 'release' },
  ]);
  // Finishing twice changes nothing.
  assert.deepEqual(finish(e.task, { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false }, T0).effects, []);
  const err = finish(live(), { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false }, T0);
  assert.equal(err.task.kind === 'ended' && err.task.session.status, 20);
  assert.deepEqual(err.effects[0], { kind: 'emit', eventType: 11, serviceType: 0, details: { msgName: 'session_exit', exitStatus: 1 } });
});

test('reports: status and files update sessions; a late status cannot hide a stop', () => {
  const t = reportStatus(live(), 5).task as LiveTask;
  assert.equal(t.session.status, 5);
  const stopping = requestStop(t, T0).task;
  assert.equal((reportStatus(stopping, 5).task as Task & { session: { status: number } }).session.status, 6);
  assert.equal((reportStatus(stopping, 7).task as Task & { session: { status: number } }).session.status, 7);
  const f = { fileName: 'a.m3u8', trackType: 'audio' as const, uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: T0 };
  assert.deepEqual((reportFiles(t, [f]).task as LiveTask).session.files, [f]);
  const issued = createIssuedTask(testResource());
  assert.equal(reportStatus(issued, 5).task, issued);
});

test('timers: before the deadline re-arm, at it stop with reason expired', () => {
  const t = live();
  assert.deepEqual(timerFired(t, T0 + HOUR).effects, [{ kind: 'schedule', at: t.session.apiExpiresAt }]);
  const o = timerFired(t, t.session.apiExpiresAt);
  assert.equal(o.task.kind, 'stopping');
  assert.deepEqual(o.effects, [{ kind: 'stopRecorder', reason: 'expired' }]);
  assert.deepEqual(timerFired(o.task, t.session.apiExpiresAt + 1).effects, []);
});

test('updateLayout: mix only, replaces the layout; update keeps web onhold', () => {
  const t = live();
  const o = updateLayout(t, { backgroundColor: '#FFFFFF' });
  assert.deepEqual(o.task.session.layout, { backgroundColor: '#FFFFFF' });
  const ind = startSession(
    createIssuedTask(testResource()),
    { ...ev, mode: 'individual', clientRequest: validateStartClientRequest(startRequest('individual'), 'individual', 0) },
    T0,
  ).task;
  assert.equal(refusal(() => updateLayout(ind, {})), 'LayoutNotSupportedError');
  const u = updateSession(t, { storageConfig: cr.storageConfig, webRecordingConfig: { onhold: true } });
  assert.equal(u.task.session.onhold, true);
});

test('the hold a recorder starts in is the stored one: the start request’s, then the last update’s', () => {
  const held = startSession(createIssuedTask(testResource()), { ...ev, clientRequest: { ...cr, recordingConfig: { ...cr.recordingConfig!, onhold: true } } }, T0).task;
  assert.equal(recordingTaskOf(held, true).settings.onhold, true);
  assert.equal(recordingTaskOf(live(), true).settings.onhold, false);
  const paused = updateSession(live(), { recordingConfig: { onhold: true } }).task;
  // A recorder taking the session over (restart recovery, failover) gets the update's hold, not the start's.
  assert.equal(recordingTaskOf(paused, true).settings.onhold, true);
  assert.equal(recordingTaskOf(updateSession(paused, { recordingConfig: { onhold: false } }).task, true).settings.onhold, false);
});

test('recorder effects: update and updateLayout carry the request; resume relaunches live sessions only', () => {
  const t = live();
  const req = { storageConfig: cr.storageConfig };
  assert.deepEqual(updateSession(t, req).effects, [{ kind: 'update', request: req }]);
  assert.deepEqual(updateLayout(t, { backgroundColor: '#000000' }).effects, [{ kind: 'updateLayout', request: { backgroundColor: '#000000' } }]);
  const r = resumeSession(t);
  assert.equal(r.task, t);
  assert.deepEqual(r.effects, [{ kind: 'launch', resumed: true }, { kind: 'schedule', at: t.session.apiExpiresAt }]);
  assert.deepEqual(resumeSession(requestStop(t, T0).task).effects, []);
});

test('launch failure ends the session with event 1 code 52 before session_exit; upload timeout emits code 50', () => {
  const f = launchFailed(live(), T0 + 2000);
  assert.equal(f.task.kind === 'ended' && f.task.session.status, 20);
  assert.deepEqual(
    f.effects.map((e) => (e.kind === 'emit' ? [e.eventType, e.details.msgName, e.details.errorCode] : [e.kind])),
    [[1, 'cloud_recording_error', 52], [11, 'session_exit', undefined], ['release']],
  );
  assert.deepEqual(launchFailed(f.task, T0 + 3000).effects, []);
  // The resource stays startable (retry after 3/6/9 s) with a new sid, until it expires; a normal end spends it.
  const retried = startSession(f.task, { ...ev, sid: 's2' }, T0 + 5000);
  assert.equal(retried.task.session.sid, 's2');
  assert.equal(refusal(() => startSession(f.task, { ...ev, sid: 's3' }, T0 + RESOURCE_TTL_MS)), 'ResourceExpiredError');
  const ended = finish(live(), { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false }, T0 + 2000).task;
  assert.equal(refusal(() => startSession(ended, { ...ev, sid: 's4' }, T0 + 5000)), 'ResourceExpiredError');
  const s = requestStop(live(), T0).task;
  const u = uploadTimedOut(s);
  assert.equal(u.task, s);
  assert.deepEqual(u.effects.map((e) => e.kind === 'emit' && e.details.errorCode), [50]);
});

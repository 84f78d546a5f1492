import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEB_STOP } from '../../recording/index.ts';
import { initialPageState, isRecording, stepPage, type WebPageInput, type WebPageState } from './page-state.ts';

function run(s: WebPageState, ...inputs: WebPageInput[]): { state: WebPageState; effects: string[] } {
  const effects: string[] = [];
  for (const i of inputs) {
    const step = stepPage(s, i);
    s = step.state;
    effects.push(
      ...step.effects.map((e) =>
        e.kind === 'reload' ? `reload:${e.reason}` : e.kind === 'end' ? `end:${e.stop.code}` : e.kind === 'resume' ? `resume:${e.afterHold}` : e.kind === 'capability-limit' ? `72:${e.limitType}` : e.kind,
      ),
    );
  }
  return { state: s, effects };
}

test('web page: ready detection off records at once; on waits for notifyReady, then resumes the encoder', () => {
  assert.ok(isRecording(initialPageState(false, false)));
  assert.ok(!isRecording(initialPageState(false, true)));
  const waiting = initialPageState(true, false);
  assert.ok(!isRecording(waiting));
  const r = run(waiting, { kind: 'page-ready', atMs: 0 });
  assert.deepEqual(r.effects, ['cancel-ready-timer', 'resume:false']);
  assert.ok(isRecording(r.state));
  // notifyReady again changes nothing.
  assert.deepEqual(run(r.state, { kind: 'page-ready', atMs: 0 }).effects, []);
  // Ready while on hold: no encoder until the resume.
  assert.deepEqual(run(initialPageState(true, true), { kind: 'page-ready', atMs: 0 }).effects, ['cancel-ready-timer']);
});

test('web page: a readyTimeout miss reloads once, the second ends with code 4; a miss after ready is ignored', () => {
  const r = run(initialPageState(true, false), { kind: 'ready-timeout' }, { kind: 'ready-timeout' });
  assert.deepEqual(r.effects, ['reload:page_load_timeout', `end:${WEB_STOP.pageLoadTimeout.code}`]);
  assert.equal(r.state.kind, 'ended');
  assert.deepEqual(run(initialPageState(false, false), { kind: 'ready-timeout' }).effects, []);
});

test('web page: a renderer crash reloads once (the page stays ready), the second ends with code 6', () => {
  const once = run(initialPageState(false, false), { kind: 'renderer-crashed' });
  assert.deepEqual(once.effects, ['reload:renderer_crashed']);
  assert.ok(isRecording(once.state));
  assert.deepEqual(run(once.state, { kind: 'renderer-crashed' }).effects, [`end:${WEB_STOP.recorderError.code}`]);
});

test('web page: a lost audio service reloads once (73 audio_silence, recording goes on); a second loss records on silent, no reload', () => {
  const once = run(initialPageState(false, false), { kind: 'audio-service-lost' });
  assert.deepEqual(once.effects, ['reload:audio_silence']);
  assert.ok(isRecording(once.state));
  const twice = run(once.state, { kind: 'audio-service-lost' });
  assert.deepEqual(twice.effects, []);
  assert.ok(isRecording(twice.state));
  // Counted apart from renderer crashes: a crash after an audio loss still gets its reload.
  assert.deepEqual(run(twice.state, { kind: 'renderer-crashed' }).effects, ['reload:renderer_crashed']);
});

test('web page: hold pauses, resume resumes only a ready page; repeats and anything after the end do nothing', () => {
  const ready = initialPageState(false, false);
  const r = run(ready, { kind: 'hold', onhold: true }, { kind: 'hold', onhold: true }, { kind: 'hold', onhold: false });
  assert.deepEqual(r.effects, ['pause', 'resume:true']);
  assert.deepEqual(run(initialPageState(true, true), { kind: 'hold', onhold: false }).effects, []);
  const end = run(ready, { kind: 'end', stop: WEB_STOP.ok, details: 'stopped by stop' }, { kind: 'hold', onhold: true }, { kind: 'renderer-crashed' }, { kind: 'end', stop: WEB_STOP.recorderError, details: 'x' });
  assert.deepEqual(end.effects, ['end:0']);
  assert.deepEqual(end.state, { kind: 'ended', stop: WEB_STOP.ok, details: 'stopped by stop' });
});

test('web page: page failures end with their codes (5 for 404, 5xx or nothing loaded; 2 after event 72; 6 for a child); a reload arms the timer only while waiting', () => {
  const ready = initialPageState(false, false);
  const waiting = initialPageState(true, false);
  assert.deepEqual(run(ready, { kind: 'document-status', url: 'http://p/', status: 200 }).effects, []);
  assert.deepEqual(run(ready, { kind: 'document-status', url: 'http://p/', status: 404 }).effects, ['end:5']);
  assert.deepEqual(run(ready, { kind: 'document-status', url: 'http://p/', status: 503 }).state, { kind: 'ended', stop: WEB_STOP.accessUrlFailed, details: 'HTTP 503' });
  assert.deepEqual(run(ready, { kind: 'load-failed', url: 'http://p/', errorText: 'net::ERR_NAME_NOT_RESOLVED' }).effects, ['end:5']);
  assert.deepEqual(run(ready, { kind: 'capability-limit', limitType: 'WebGL' }).effects, ['72:WebGL', 'end:2']);
  const child = run(ready, { kind: 'child-exited', child: 'browser', code: 1, signal: null, stderrTail: '' });
  assert.deepEqual(child.state, { kind: 'ended', stop: WEB_STOP.recorderError, details: 'browser exited' });
  assert.deepEqual(run(waiting, { kind: 'reloaded', failure: undefined }).effects, ['arm-ready-timer']);
  assert.deepEqual(run(ready, { kind: 'reloaded', failure: undefined }).effects, []);
  assert.deepEqual(run(waiting, { kind: 'reloaded', failure: 'HTTP 404' }).effects, ['end:5']);
  // After the end the page's reports change nothing.
  assert.deepEqual(run(child.state, { kind: 'capability-limit', limitType: 'WebGL' }, { kind: 'load-failed', url: 'x', errorText: 'y' }).effects, []);
});

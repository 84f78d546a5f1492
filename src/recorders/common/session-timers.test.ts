import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import type { RecorderEventName } from '../../recording/dispatch/index.ts';
import { IdleTimer, PROGRESS_INTERVAL_MS, ProgressReporter } from './session-timers.ts';
import { uploadEventReporter } from './upload-events.ts';

test('idle timer: fires once after an unbroken idle span on the injected clock', () => {
  const clock = new ManualClock();
  let fired = 0;
  const idle = new IdleTimer(clock, 5000, () => fired++);
  idle.arm();
  clock.advance(4000);
  idle.arm();
  clock.advance(999);
  assert.equal(fired, 0, 'arming again keeps the first deadline');
  idle.disarm();
  clock.advance(10_000);
  assert.equal(fired, 0, 'someone came back');
  idle.arm();
  clock.advance(5000);
  assert.equal(fired, 1);
  idle.arm();
  clock.advance(60_000);
  assert.equal(fired, 1, 'never twice');
  const disposed = new IdleTimer(clock, 1, () => fired++);
  disposed.arm();
  disposed.dispose();
  disposed.arm();
  clock.advance(10);
  assert.equal(fired, 1);
});

test('progress reporter: one uploadingProgress per interval until stopped', async () => {
  const clock = new ManualClock();
  const seen: [RecorderEventName, unknown][] = [];
  let progress = 2500;
  const r = new ProgressReporter(clock, { status: async () => ({ uploadingStatus: 'unknown', pending: 0, uploaded: 0, pendingBytes: 0, progress }) }, { emit: (n, f) => seen.push([n, f]) }, createLogger('silent'));
  r.start();
  clock.advance(PROGRESS_INTERVAL_MS - 1);
  await new Promise((res) => setImmediate(res));
  assert.equal(seen.length, 0);
  clock.advance(1);
  await new Promise((res) => setImmediate(res));
  progress = 10_000;
  clock.advance(PROGRESS_INTERVAL_MS);
  await new Promise((res) => setImmediate(res));
  assert.deepEqual(seen, [
    ['uploadingProgress', { progress: 2500 }],
    ['uploadingProgress', { progress: 10_000 }],
  ]);
  r.stop();
  clock.advance(10 * PROGRESS_INTERVAL_MS);
  await new Promise((res) => setImmediate(res));
  assert.equal(seen.length, 2);
});

test('upload events: backup spool warns each time, a storage config error is reported again only after a success', () => {
  const seen: string[] = [];
  const on = uploadEventReporter({
    warning: (module, code) => seen.push(`warning ${module}/${code}`),
    error: (module, level, code) => seen.push(`error ${module}/${level}/${code}`),
  });
  const configError = { kind: 'storage-config-error', sid: 's', fileName: 'a.ts', message: 'NoSuchBucket' } as const;
  on(configError);
  on(configError);
  on({ kind: 'backuped', sid: 's', fileName: 'a.ts', message: 'down' });
  on({ kind: 'file-uploaded', sid: 's', fileName: 'a.ts', bytes: 1, attempts: 1 });
  on(configError);
  assert.deepEqual(seen, ['error 1/4/32', 'warning 1/32', 'error 1/4/32']);
});

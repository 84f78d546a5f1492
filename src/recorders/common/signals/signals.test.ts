import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../clock/index.ts';
import { createLogger } from '../../../log/index.ts';
import type { RecorderEventName } from '../../../recording/index.ts';
import { PROGRESS_INTERVAL_MS, ProgressReporter } from './progress.ts';
import { uploadEventReporter } from './upload-events.ts';

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

test('upload events: backup spool warns each time, re-uploading once per file, a storage config error is reported again only after a success', () => {
  const seen: string[] = [];
  const on = uploadEventReporter({
    warning: (module, code) => seen.push(`warning ${module}/${code}`),
    error: (module, level, code) => seen.push(`error ${module}/${level}/${code}`),
  });
  const configError = { kind: 'storage-config-error', sid: 's', fileName: 'a.ts', message: 'NoSuchBucket' } as const;
  on(configError);
  on(configError);
  on({ kind: 'backuped', sid: 's', fileName: 'a.ts', message: 'down' });
  const failed = { kind: 'upload-failed', sid: 's', fileName: 'a.ts', attempt: 1, retryInMs: 1500, configError: false, message: 'down' } as const;
  on(failed);
  on({ ...failed, attempt: 2 });
  on({ ...failed, fileName: 'b.ts' });
  on({ kind: 'file-uploaded', sid: 's', fileName: 'a.ts', bytes: 1, attempts: 1 });
  on(configError);
  assert.deepEqual(seen, ['error 1/4/32', 'warning 1/32', 'warning 1/31', 'warning 1/31', 'error 1/4/32']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecorderDouble, testRecordingTask } from '../testing/index.ts';
import { createInProcessDispatcher } from './index.ts';

test('in-process dispatcher: one recorder per mode, launch goes to the mode, unknown modes refused', async () => {
  assert.throws(() => createInProcessDispatcher([new RecorderDouble('mix'), new RecorderDouble('mix')]), /two recorders/);
  const mix = new RecorderDouble('mix', { autoRun: false });
  const d = createInProcessDispatcher([mix]);
  assert.equal(d.supports('mix'), true);
  assert.equal(d.supports('web'), false);
  const report = { status() {}, files() {}, sliceStartTime() {}, event() {}, ended() {} };
  const clientRequest = { storageConfig: { vendor: 1 as const, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } };
  const task = testRecordingTask({ mode: 'mix', clientRequest });
  const h = await d.launch(task, report);
  assert.equal(mix.session('s').task, task);
  assert.equal((await h.stop()).recordedAnything, true);
  assert.equal(mix.session('s').task.settings.mode, 'mix');
  const other = testRecordingTask({ mode: 'individual', clientRequest });
  await assert.rejects(d.launch(other, report), /no recorder for mode individual/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecorderDouble } from '../testing/recorder-double.ts';
import { createInProcessDispatcher, subscriptionRequest } from './index.ts';

test('in-process dispatcher: one recorder per mode, launch goes to the mode, unknown modes refused', async () => {
  assert.throws(() => createInProcessDispatcher([new RecorderDouble('mix'), new RecorderDouble('mix')]), /two recorders/);
  const mix = new RecorderDouble('mix', { autoRun: false });
  const d = createInProcessDispatcher([mix]);
  assert.equal(d.supports('mix'), true);
  assert.equal(d.supports('web'), false);
  const report = { status() {}, files() {}, sliceStartTime() {}, event() {}, ended() {} };
  const task = {
    appId: 'a',
    cname: 'c',
    uid: '1',
    sid: 's',
    resourceId: 'r',
    mode: 'mix' as const,
    scene: 0 as const,
    clientRequest: { storageConfig: { vendor: 1 as const, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } },
    subscription: subscriptionRequest(undefined),
    startedAt: 0,
    resumed: false,
    previousFiles: [],
  };
  const h = await d.launch(task, report);
  assert.equal(mix.session('s').task, task);
  assert.equal((await h.stop()).recordedAnything, true);
  await assert.rejects(d.launch({ ...task, mode: 'web' }, report), /no recorder for mode web/);
});

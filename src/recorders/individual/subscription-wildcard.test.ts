import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyUpdate, createSubscription, kindsFor } from './subscription.ts';

test('subscription lists: ["#allstream#"] names every user, in subscribe and unsubscribe lists', () => {
  const all = createSubscription({ subscribeAudioUids: ['#allstream#'], subscribeVideoUids: ['#allstream#'] });
  assert.deepEqual(kindsFor(all, '42', ['audio', 'video']), ['audio', 'video']);
  const noVideo = createSubscription({ subscribeAudioUids: ['#allstream#'], unsubscribeVideoUids: ['#allstream#'] });
  assert.deepEqual(kindsFor(noVideo, '42', ['audio', 'video']), ['audio']);
  const upd = applyUpdate(createSubscription({ subscribeVideoUids: ['1'] }), { videoUidList: { subscribeVideoUids: ['#allstream#'] } });
  assert.deepEqual(kindsFor(upd, '7', ['video']), ['video']);
});

// The ingress table's pull claims: one process pulls each source (a camera, an SRT listener reeltime calls) however
// many channel processes could; a claim not renewed runs out and another process takes the source over.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openTestDatabase, TEST_DIALECTS } from '../testing/index.ts';
import { IngressStore } from './store.ts';
import { shownState, type Ingress } from './types.ts';

const camera: Ingress = {
  ingressId: 'in_0123456789abcdef01',
  appId: 'app',
  cname: 'lobby',
  uid: '31',
  kind: 'rtsp',
  url: 'rtsp://127.0.0.1:8554/cam',
  transport: 'udp',
  state: 'waiting',
  createdMs: 1000,
  updatedMs: 1000,
};

for (const dialect of TEST_DIALECTS) {
  describe(`ingress pull claims (${dialect})`, () => {
    test('one holder at a time; renewed by its holder, taken over once it runs out, freed by release and by a restart', async (t) => {
      const db = await openTestDatabase(dialect);
      t.after(() => db.close());
      const store = new IngressStore(db.db);
      await store.insert(camera);
      assert.equal((await store.get(camera.ingressId))?.transport, 'udp', 'the transport is stored');

      assert.equal(await store.claim(camera.ingressId, 'a', 10_000, 15_000), true, 'a takes it');
      assert.equal(await store.claim(camera.ingressId, 'b', 20_000, 15_000), false, 'b must wait while it holds');
      assert.equal(await store.claim(camera.ingressId, 'a', 20_000, 15_000), true, 'a renews (until 35 000)');
      assert.equal(await store.claim(camera.ingressId, 'b', 34_999, 15_000), false, 'still held');
      assert.equal(await store.claim(camera.ingressId, 'b', 35_001, 15_000), true, 'b takes it once it ran out');
      assert.equal(await store.claim(camera.ingressId, 'a', 36_000, 15_000), false, 'a lost it');

      await store.release(camera.ingressId, 'a');
      assert.equal(await store.claim(camera.ingressId, 'c', 37_000, 15_000), false, 'a release by a non-holder frees nothing');
      await store.release(camera.ingressId, 'b');
      assert.equal(await store.claim(camera.ingressId, 'c', 37_000, 15_000), true, 'released: c takes it at once');

      await store.resetPublishing(38_000);
      assert.equal(await store.claim(camera.ingressId, 'd', 38_000, 15_000), true, 'a single process restarting drops every claim');
      assert.equal(await store.claim('in_000000000000000000', 'd', 38_000, 15_000), false, 'no such ingress');
    });

    test('a publish is shown only while its process renews it: a crashed process\'s publish shows waiting once its time ran out', async (t) => {
      const db = await openTestDatabase(dialect);
      t.after(() => db.close());
      const store = new IngressStore(db.db);
      await store.insert(camera);
      await store.setState(camera.ingressId, 'publishing', undefined, 10_000, 25_000);
      let i = (await store.get(camera.ingressId))!;
      assert.deepEqual([i.state, i.liveUntilMs, shownState(i, 24_999)], ['publishing', 25_000, 'publishing']);
      await store.keepLive(camera.ingressId, 30_000);
      i = (await store.get(camera.ingressId))!;
      assert.equal(shownState(i, 29_000), 'publishing', 'renewed');
      assert.equal(shownState(i, 30_001), 'waiting', 'not renewed: its process is gone');
      await store.setState(camera.ingressId, 'failed', 'the source ended', 31_000, 46_000);
      await store.keepLive(camera.ingressId, 50_000);
      i = (await store.get(camera.ingressId))!;
      assert.deepEqual([i.state, i.liveUntilMs, shownState(i, 99_000)], ['failed', undefined, 'failed'], 'other states keep no time and are not renewed');
      assert.equal(shownState({ state: 'publishing' }, 99_000), 'publishing', 'a row from before the renewal is taken as it is');
    });
  });
}

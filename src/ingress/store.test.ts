// The ingress table's pull claims: one process pulls each source (a camera, an SRT listener reeltime calls) however
// many channel processes could; a claim not renewed runs out and another process takes the source over.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openTestDatabase, TEST_DIALECTS } from '../testing/index.ts';
import { IngressStore } from './store.ts';
import type { Ingress } from './types.ts';

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
  });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestDatabase, TEST_DIALECTS } from '../../testing/index.ts';
import {
  canonicalJson,
  createIssuedTask,
  finish,
  requestStop,
  RESOURCE_TTL_MS,
  startSession,
  TaskConflictError,
  type Resource,
} from '../lifecycle/index.ts';
import { startRequest } from '../testing/client.ts';
import { validateStartClientRequest } from '../validation/index.ts';
import { TaskStore } from './index.ts';

const T0 = 1_700_000_000_000;
/** Stored as JSON: undefined fields come back absent. */
const rt = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const res = (id: string, uid = '1', appId = 'app'): Resource => ({
  resourceId: id,
  appId,
  cname: 'c',
  uid,
  scene: 0,
  resourceExpiredHour: 72,
  region: 'EU',
  excludeResourceIds: ['x'],
  startParameter: undefined,
  issuedAt: T0,
  expiresAt: T0 + RESOURCE_TTL_MS,
});
const cr = validateStartClientRequest(startRequest('mix'), 'mix', 0);
const startEv = (sid: string, uid = '1') => ({ appId: 'app', cname: 'c', uid, sid, mode: 'mix' as const, clientRequest: cr, canonical: canonicalJson(cr) });

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] task store: round trip, counts, one active session per cname+uid, events`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const store = new TaskStore(h.db);
      const issued = createIssuedTask(res('r1'));
      await store.insert(issued, T0);
      assert.deepEqual(await store.get('r1'), rt(issued));
      assert.equal(await store.get('nope'), undefined);
      await store.insert(createIssuedTask(res('r2')), T0);
      await store.insert(createIssuedTask(res('r3', '1', 'other')), T0);
      assert.equal(await store.countActive('app', T0), 2);
      assert.equal(await store.countActive('app', T0 + RESOURCE_TTL_MS), 0);

      const live = startSession(issued, startEv('s1'), T0 + 10).task;
      await store.save(live, T0 + 10);
      assert.deepEqual(await store.get('r1'), rt(live));
      assert.equal(await store.hasActive('app', 'c', '1'), true);
      assert.equal(await store.countActive('app', T0 + RESOURCE_TTL_MS), 1);
      // Timestamps survive as numbers on both dialects.
      assert.equal(typeof ((await store.get('r1')) as typeof live).session.startedAt, 'number');

      const twin = startSession(createIssuedTask(res('r2')), startEv('s2'), T0 + 20).task;
      await assert.rejects(store.save(twin, T0 + 20), TaskConflictError);

      const stopping = requestStop(live, T0 + 30).task;
      await store.save(stopping, T0 + 30);
      assert.equal((await store.listWithSession()).length, 1);
      const ended = finish(stopping, { reason: 'stopped', uploadingStatus: 'uploaded', recordedAnything: true }, T0 + 40).task;
      await store.save(ended, T0 + 40);
      assert.equal(await store.hasActive('app', 'c', '1'), false);
      assert.equal((await store.listWithSession()).length, 0);
      await store.save(twin, T0 + 50);

      await store.addEvents([{ id: 'e1', appId: 'app', resourceId: 'r1', sid: 's1', eventType: 11, serviceType: 0, details: { msgName: 'session_exit', exitStatus: 0 }, createdAt: T0 + 40 }]);
      await store.addEvents([{ id: 'e2', appId: 'app', resourceId: 'r1', sid: 's1', eventType: 1, serviceType: 0, details: { msgName: 'cloud_recording_error' }, createdAt: T0 + 35 }]);
      // Written again (its first answer lost in an outage): listed once.
      await store.addEvents([{ id: 'e1', appId: 'app', resourceId: 'r1', sid: 's1', eventType: 11, serviceType: 0, details: { msgName: 'session_exit', exitStatus: 0 }, createdAt: T0 + 40 }]);
      const events = await store.events('s1');
      assert.deepEqual(events.map((e) => e.eventType), [1, 11]);
      assert.equal(events[1]!.createdAt, T0 + 40);
    } finally {
      await h.close();
    }
  });
}

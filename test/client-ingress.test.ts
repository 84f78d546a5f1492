// @reeltime/client's ingress methods against a real reeltime on loopback (the RTMP listener on a free port).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RecordingClient, ServiceError } from '@reeltime/client';
import { TEST_APP_ID } from '../src/recording/testing/client.ts';
import { allDoubles } from '../src/recording/testing/recorder-double.ts';
import { startTestServer, TEST_CUSTOMER_SECRET, type TestServer } from '../src/testing/index.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ recorders: allDoubles(), env: { REELTIME_INGRESS_RTMP_PORT: '0' } });
});
after(async () => server?.close());

test('createIngress, getIngress, listIngresses and deleteIngress; a refusal is a ServiceError naming the field', async () => {
  const c = new RecordingClient({ baseUrl: server.url, appId: TEST_APP_ID, customerId: 'test-customer', customerSecret: TEST_CUSTOMER_SECRET });
  const created = await c.createIngress({ cname: 'client-stage', uid: 77, kind: 'rtmp' });
  assert.equal(created.uid, '77');
  assert.equal(created.state, 'waiting');
  assert.ok(created.push?.streamKey.startsWith(created.ingressId));
  assert.deepEqual(await c.getIngress(created.ingressId), created);
  assert.deepEqual((await c.listIngresses()).ingresses, [created]);
  await assert.rejects(c.createIngress({ cname: 'client-stage', uid: '0', kind: 'rtmp' }), (e: unknown) => {
    assert.ok(e instanceof ServiceError);
    assert.equal(e.status, 400);
    assert.equal(e.code, 2);
    assert.match(e.body.reason, /^uid: /);
    return true;
  });
  await c.deleteIngress(created.ingressId);
  await assert.rejects(c.getIngress(created.ingressId), (e: unknown) => e instanceof ServiceError && e.status === 404 && e.code === 404);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allDoubles } from '../recording/testing/recorder-double.ts';
import { openTestDatabase, startTestServer, TEST_CUSTOMER_AUTH, TEST_DIALECTS } from '../testing/index.ts';

const BASE = '/v1/apps/970CA35de60c44645bbae8a215061b33/ingress';

for (const dialect of TEST_DIALECTS) {
  test(`an ingress left publishing by a stopped single process is waiting after its restart; the ingress itself is kept (${dialect})`, async (t) => {
    const database = await openTestDatabase(dialect);
    t.after(() => database.close());
    const env = { REELTIME_INGRESS_RTMP_PORT: '0' };
    const first = await startTestServer({ database, recorders: allDoubles(), env });
    const r = await first.app.inject({ method: 'POST', url: BASE, payload: { cname: 'restart', uid: '9', kind: 'rtmp' }, headers: { authorization: TEST_CUSTOMER_AUTH } });
    assert.equal(r.statusCode, 201, r.body);
    const { ingressId, push } = r.json() as { ingressId: string; push: { streamKey: string } };
    // As a crash in the middle of a publish leaves it.
    await database.db.updateTable('ingress_sources').set({ state: 'publishing' }).where('ingress_id', '=', ingressId).execute();
    await first.close();

    const second = await startTestServer({ database, recorders: allDoubles(), env });
    t.after(() => second.close());
    const got = await second.app.inject({ method: 'GET', url: `${BASE}/${ingressId}`, headers: { authorization: TEST_CUSTOMER_AUTH } });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().state, 'waiting');
    assert.equal(got.json().push.streamKey, push.streamKey, 'the same key works after the restart');
  });
}

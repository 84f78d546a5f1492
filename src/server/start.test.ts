import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../testing/index.ts';

test('the embedded server answers /healthz with every role', async () => {
  const s = await startTestServer();
  try {
    const res = await fetch(`${s.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok', roles: ['api', 'recorder', 'channel', 'chat'] });
  } finally {
    await s.close();
  }
});

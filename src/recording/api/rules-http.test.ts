import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../../testing/index.ts';
import { recordingClient } from '../testing/client.ts';
import { allDoubles } from '../testing/recorder-double.ts';
import { editedStart, START_RULE_CASES } from '../testing/start-rule-cases.ts';

test('start over HTTP: every rule of the table answers 400 code 2 naming the field (or 200 when valid)', async () => {
  const server = await startTestServer({
    recorders: allDoubles(),
    values: { recording: { rateLimitPerSecond: 0, maxConcurrentTasks: 100_000 } },
  });
  try {
    const api = recordingClient(server.app);
    const wrong: unknown[] = [];
    let uid = 1;
    for (const [name, mode, edit, reason, scene] of START_RULE_CASES) {
      const id = { cname: 'rules', uid: String(uid++) };
      const s = scene ?? (mode === 'web' ? 1 : 0);
      const rid = (await api.acquire({ ...id, clientRequest: { scene: s } })).body.resourceId as string;
      const r = await api.start(rid, mode, { ...id, clientRequest: editedStart(mode, edit) });
      const expected = reason === undefined ? { status: 200 } : { status: 400, code: 2, reason, ...id, resourceId: rid };
      const actual = reason === undefined ? { status: r.status } : { status: r.status, ...r.body };
      try {
        assert.deepEqual(actual, expected);
      } catch {
        wrong.push({ name, expected, actual });
      }
    }
    assert.deepEqual(wrong, []);
  } finally {
    await server.close();
  }
});

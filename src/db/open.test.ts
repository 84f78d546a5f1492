import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openTestDatabase, startTcpProxy, TEST_DIALECTS, TEST_PG_URL, waitUntil } from '../testing/index.ts';
import { openDatabase } from './open.ts';

for (const dialect of TEST_DIALECTS) {
  test(`${dialect}: opens and migrates`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const r = await sql<{ one: number }>`select 1 as one`.execute(h.db);
      assert.equal(Number(r.rows[0]?.one), 1);
    } finally {
      await h.close();
    }
  });
}

test('postgres: a schema named in the URL (?schema=) is where the tables go', async () => {
  const h = await openTestDatabase('postgres');
  try {
    const other = await openDatabase({ url: `${TEST_PG_URL}?schema=${h.location.pgSchema}` });
    try {
      await h.db.insertInto('chat_users').values({ uuid: 'u-1', org: 'o', app: 'a', username: 'x', password_hash: null, nickname: null, activated: 1, created: 1, modified: 1 }).execute();
      const rows = await other.db.selectFrom('chat_users').select('uuid').execute();
      assert.deepEqual(rows, [{ uuid: 'u-1' }]);
    } finally {
      await other.close();
    }
  } finally {
    await h.close();
  }
});

test('postgres: a connection broken under a query in flight fails that query and leaves the process running', async () => {
  // The recorder of postgres-drop.test.ts died this way: pg emits `error` on a checked-out client whose socket
  // breaks, where the pool does not listen, so the process ended on an unhandled error event.
  const h = await openTestDatabase('postgres');
  const proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  const uncaught: Error[] = [];
  const onUncaught = (e: Error) => void uncaught.push(e);
  process.prependListener('uncaughtException', onUncaught);
  const other = await openDatabase({ url: proxy.via(`${TEST_PG_URL}?schema=${h.location.pgSchema}`) });
  try {
    const inFlight = sql`select pg_sleep(5)`.execute(other.db);
    await waitUntil(
      async () => {
        const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where query = 'select pg_sleep(5)' and state = 'active'`.execute(h.db);
        return Number(r.rows[0]?.n) > 0;
      },
      { what: 'the query running on the server' },
    );
    proxy.cut('reset');
    await assert.rejects(inFlight);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(uncaught.map((e) => e.message), []);
    proxy.restore();
    const r = await sql<{ one: number }>`select 1 as one`.execute(other.db);
    assert.equal(Number(r.rows[0]?.one), 1, 'a new connection once the server is back');
  } finally {
    process.removeListener('uncaughtException', onUncaught);
    await other.close();
    await proxy.close();
    await h.close();
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openTestDatabase, TEST_DIALECTS, TEST_PG_URL } from '../testing/index.ts';
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

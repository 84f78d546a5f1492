import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openTestDatabase, TEST_DIALECTS } from '../testing/index.ts';

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

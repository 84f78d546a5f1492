import assert from 'node:assert/strict';
import { scryptSync } from 'node:crypto';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { openTestDatabase, TEST_DIALECTS } from '../../testing/index.ts';
import { MessageStore } from '../gateway/message-store.ts';
import { ChatUserStore } from './store.ts';

for (const dialect of TEST_DIALECTS) {
  test(`${dialect}: chat users persist with hashed passwords; duplicates are refused`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const clock = new ManualClock();
      const store = new ChatUserStore(h.db, clock);
      const r = await store.create('org', 'app', { username: 'alice', password: '123', nickname: 'Al' });
      assert.equal(r.kind, 'created');
      if (r.kind !== 'created') return;
      assert.deepEqual(r.user, {
        uuid: r.user.uuid,
        type: 'user',
        created: clock.now(),
        modified: clock.now(),
        username: 'alice',
        activated: true,
        nickname: 'Al',
      });
      assert.match(r.user.uuid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(await store.find('org', 'app', 'alice'), r.user);
      assert.equal(await store.find('org', 'other', 'alice'), undefined);
      assert.equal((await store.create('org', 'app', { username: 'alice', password: undefined, nickname: undefined })).kind, 'duplicate');
      // Same name in another app is another user.
      assert.equal((await store.create('org', 'other', { username: 'alice', password: undefined, nickname: undefined })).kind, 'created');
      // Concurrent registrations of one name: exactly one wins (the unique constraint decides the race).
      const race = await Promise.all(
        Array.from({ length: 5 }, () => store.create('org', 'app', { username: 'racer', password: undefined, nickname: undefined })),
      );
      assert.equal(race.filter((x) => x.kind === 'created').length, 1);
      const row = await h.db.selectFrom('chat_users').select('password_hash').where('username', '=', 'alice').where('app', '=', 'app').executeTakeFirstOrThrow();
      assert.ok(row.password_hash && !row.password_hash.includes('123'));
      // The documented format, checked independently: scrypt$<salt>$<key>, N=16384, r=8, p=1, 32-byte key.
      const [kind, salt, key] = row.password_hash.split('$');
      assert.equal(kind, 'scrypt');
      const derive = (pw: string) => scryptSync(pw, Buffer.from(salt!, 'base64'), 32, { N: 16384, r: 8, p: 1 }).toString('base64');
      assert.equal(derive('123'), key);
      assert.notEqual(derive('124'), key);
    } finally {
      await h.close();
    }
  });

  test(`${dialect}: undelivered messages are kept in order until acknowledged by their recipient`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const store = new MessageStore(h.db, 'org', 'app');
      const a = await store.save('alice', 'bob', 'one', 1000);
      const b = await store.save('alice', 'bob', 'two', 1000);
      await store.save('bob', 'alice', 'other way', 1001);
      assert.deepEqual((await store.pending('bob')).map((m) => m.text), ['one', 'two']);
      await store.markDelivered(a.id, 'alice'); // not the recipient: no effect
      assert.equal((await store.pending('bob')).length, 2);
      await store.markDelivered(a.id, 'bob');
      assert.deepEqual(await store.pending('bob'), [{ ...b }]);
      assert.equal((await new MessageStore(h.db, 'org', 'elsewhere').pending('bob')).length, 0);
    } finally {
      await h.close();
    }
  });
}

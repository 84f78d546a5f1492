import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkNewUser, checkUsername } from './username.ts';

test('usernames: lower-cased, [a-z0-9_.-], 1..64; errors as the chat service words them', () => {
  assert.deepEqual(checkUsername('Alice_1.x-Y'), { ok: true, value: 'alice_1.x-y' });
  const bad: [unknown, string][] = [
    [undefined, 'Entity user requires a property named username'],
    ['', 'Entity user requires a property named username'],
    ['a'.repeat(65), 'USERNAME_TOO_LONG'],
    ['a b', 'username [a b] is not legal'],
    ['ä', 'username [ä] is not legal'],
    [42, 'username must be a string'],
  ];
  for (const [raw, msg] of bad) {
    const r = checkUsername(raw);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.status, 400);
      assert.equal(r.error.error, 'illegal_argument');
      assert.equal(r.error.description, msg);
    }
  }
  assert.equal(checkUsername('a'.repeat(64)).ok, true);
});

test('new users: password and nickname rules', () => {
  assert.deepEqual(checkNewUser({ username: 'Bob', password: '123', nickname: 'B' }), {
    ok: true,
    value: { username: 'bob', password: '123', nickname: 'B' },
  });
  const r = checkNewUser({ username: 'bob', nickname: 'n'.repeat(101) });
  assert.ok(!r.ok && r.error.description === 'NICKNAME_TOO_LONG');
  const p = checkNewUser({ username: 'bob', password: 'p'.repeat(65) });
  assert.ok(!p.ok && p.error.description === 'PASSWORD_TOO_LONG');
  assert.equal(checkNewUser(['x']).ok, false);
  assert.equal(checkNewUser({ username: 'bob', password: 5 }).ok, false);
});

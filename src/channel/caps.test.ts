import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CapCounter } from './caps.ts';

test('caps: each cap refuses at its limit, names itself, and counts nothing for a refused acquire', () => {
  const c = new CapCounter({ perToken: 2, perChannel: 3, perAddress: 2 });
  const a = c.acquire({ token: 't1', channel: 'c', address: 'x' });
  const b = c.acquire({ token: 't1', channel: 'c', address: 'y' });
  assert.ok(a.ok && b.ok);
  assert.deepEqual(c.acquire({ token: 't1', channel: 'c', address: 'z' }), { ok: false, cap: 'perToken', limit: 2 });
  const d = c.acquire({ token: 't2', channel: 'c', address: 'x' });
  assert.ok(d.ok);
  // The channel is full now (3); the refused acquires above left no count behind.
  assert.equal(c.held('perChannel', 'c'), 3);
  assert.equal(c.held('perAddress', 'z'), 0);
  assert.deepEqual(c.acquire({ token: 't3', channel: 'c', address: 'w' }), { ok: false, cap: 'perChannel', limit: 3 });
  assert.deepEqual(c.acquire({ token: 't3', channel: 'other', address: 'x' }), { ok: false, cap: 'perAddress', limit: 2 });
  // A release frees one slot under every key it counted, once.
  a.release();
  a.release();
  assert.equal(c.held('perToken', 't1'), 1);
  assert.equal(c.held('perChannel', 'c'), 2);
  assert.equal(c.held('perAddress', 'x'), 1);
  assert.ok(c.acquire({ token: 't1', channel: 'c', address: 'x' }).ok);
});

test('caps: an absent key (no token, a trusted address) and a 0 limit are not capped', () => {
  const c = new CapCounter({ perToken: 1, perChannel: 0, perAddress: 1 });
  for (let i = 0; i < 5; i++) assert.ok(c.acquire({ channel: 'c' }).ok, 'no token, no address');
  assert.ok(c.acquire({ token: 't', channel: 'c' }).ok);
  assert.equal(c.acquire({ token: 't', channel: 'c' }).ok, false);
  assert.ok(c.acquire({ token: 'u', channel: 'c', address: 'a' }).ok);
  assert.deepEqual(c.acquire({ token: 'v', channel: 'c', address: 'a' }), { ok: false, cap: 'perAddress', limit: 1 });
});

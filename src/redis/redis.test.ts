import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../log/index.ts';
import { inProcessBus, openRedis, redisBus, type MessageBus } from './index.ts';
import { deleteTestKeys, requireTestRedis, startPrivateRedis, TEST_REDIS_URL, testRedisPrefix } from './testing.ts';

const log = createLogger('silent');
const prefix = testRedisPrefix();

before(() => requireTestRedis());
after(() => deleteTestKeys(prefix));

/** The next message on a topic; `ready` resolves once the subscription is active. */
function next(bus: MessageBus, topic: string): { ready: Promise<unknown>; message: Promise<string> } {
  let ready: Promise<unknown> = Promise.resolve();
  const message = new Promise<string>((resolve) => {
    const off = bus.subscribe(topic, (m) => {
      void off.then((f) => f());
      resolve(m);
    });
    ready = off;
  });
  return { ready, message };
}

test('the in-process bus delivers to subscribers of the topic only, and not after unsubscribe', async () => {
  const bus = inProcessBus();
  const got: string[] = [];
  const off = await bus.subscribe('a', (m) => got.push(`a:${m}`));
  await bus.subscribe('b', (m) => got.push(`b:${m}`));
  await bus.publish('a', '1');
  await new Promise((r) => setImmediate(r));
  await off();
  await bus.publish('a', '2');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['a:1']);
});

test('a message published by one Redis connection reaches a subscriber on another, within the prefix', async () => {
  const a = openRedis({ url: TEST_REDIS_URL, prefix }, log);
  const b = openRedis({ url: TEST_REDIS_URL, prefix }, log);
  const other = openRedis({ url: TEST_REDIS_URL, prefix: testRedisPrefix() }, log);
  try {
    const busA = redisBus(a);
    const busB = redisBus(b);
    const strayed: string[] = [];
    await redisBus(other).subscribe('user:u1', (m) => strayed.push(m));
    const received = next(busB, 'user:u1');
    // A second subscriber of the same topic in the same process waits for the one SUBSCRIBE too.
    const second = next(busB, 'user:u1');
    await Promise.all([received.ready, second.ready]);
    await busA.publish('user:u1', 'hello');
    assert.equal(await received.message, 'hello');
    assert.equal(await second.message, 'hello');
    assert.deepEqual(strayed, []);
    assert.equal(a.key('x', 'y'), `${prefix}x:y`);
  } finally {
    await Promise.all([a.close(), b.close(), other.close()]);
  }
});

test('ping answers true while Redis serves and false once it is killed, without hanging', async () => {
  const server = await startPrivateRedis();
  const r = openRedis({ url: server.url, prefix }, log);
  try {
    assert.equal(await r.ping(2000), true);
    await server.kill();
    assert.equal(await r.ping(500), false);
  } finally {
    await r.close();
    await server.kill();
  }
});

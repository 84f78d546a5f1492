import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../log/index.ts';
import { startPrivateRedis } from '../redis/testing.ts';
import { openTestDatabase, startTestServer, testServerEnv } from '../testing/index.ts';
import { loadConfig } from './config.ts';
import { startReeltime } from './start.ts';

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

test('REDIS_URL is checked and used; its password never reaches the logs, even while Redis is unreachable', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-redis-url-'));
  const redis = await startPrivateRedis();
  await redis.kill();
  const env = { ...testServerEnv(dataDir), REDIS_URL: `redis://:hunter2@127.0.0.1:${redis.port}/0` };
  assert.throws(() => loadConfig({ values: {}, env: { ...env, REDIS_URL: '127.0.0.1:6379' } }), /REDIS_URL \(redisUrl\): must be a redis/);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const database = await openTestDatabase('sqlite');
  const server = await startReeltime({ config: loadConfig({ values: {}, env }), database, log: createLogger('warn', sink), listen: false });
  try {
    assert.ok(server.context.redis, 'a Redis connection is opened');
    assert.equal(await server.context.redis.ping(1000), false);
    const warning = lines.find((l) => l.includes('redis connection error'));
    assert.ok(warning, lines.join(''));
    assert.ok(!lines.join('').includes('hunter2'));
  } finally {
    await server.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

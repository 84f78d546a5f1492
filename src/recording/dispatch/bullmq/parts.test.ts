// The small parts of queue-backed dispatch: admission by capacity, the lock shared by processes, the settings.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../../log/index.ts';
import { openRedis } from '../../../redis/index.ts';
import { deleteTestKeys, requireTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../../redis/testing.ts';
import { loadConfig } from '../../../server/config.ts';
import { Admission } from '../../../process/index.ts';
import { redisResourceLock } from './lock.ts';

test('admission: sessions are taken while their cost fits the capacity, and released units are free again', () => {
  const a = new Admission(10, 100);
  assert.equal(a.admit(4), true);
  assert.equal(a.admit(4), true);
  assert.equal(a.admit(4), false, 'over capacity');
  assert.equal(a.admit(2), true);
  assert.equal(a.used, 10);
  a.release(4);
  assert.equal(a.admit(4), true);
  assert.equal(a.admit(1), false);
});

test('the resource lock serialises mutations of one resource across two connections (two processes), not of two', async () => {
  await requireTestRedis();
  const prefix = testRedisPrefix();
  const log = createLogger('silent');
  const [r1, r2] = [openRedis({ url: TEST_REDIS_URL, prefix }, log), openRedis({ url: TEST_REDIS_URL, prefix }, log)];
  try {
    const [l1, l2] = [redisResourceLock(r1), redisResourceLock(r2)];
    const trace: string[] = [];
    const work = (who: string, key: string) => async () => {
      trace.push(`${who}+${key}`);
      await new Promise((r) => setTimeout(r, 30));
      trace.push(`${who}-${key}`);
    };
    await Promise.all([l1.run('r', work('a', 'r')), l2.run('r', work('b', 'r')), l1.run('r', work('c', 'r'))]);
    // Each holder leaves before the next enters.
    for (let i = 0; i < trace.length; i += 2) assert.equal(trace[i]!.replace('+', '-'), trace[i + 1], trace.join(' '));
    trace.length = 0;
    await Promise.all([l1.run('x', work('a', 'x')), l2.run('y', work('b', 'y'))]);
    assert.deepEqual(trace.slice(0, 2).sort(), ['a+x', 'b+y'], 'two resources at once');
    // A failing mutation frees the lock.
    await assert.rejects(l1.run('r', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await l2.run('r', async () => 'next'), 'next');
  } finally {
    await r1.close();
    await r2.close();
    await deleteTestKeys(prefix);
  }
});

test('dispatch settings: defaults, environment overrides, bad values name the setting', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'reeltime-dispatch-cfg-'));
  const d = loadConfig({ cwd, env: {} }).recording.dispatch;
  assert.deepEqual(d, {
    acceptTimeoutMs: 15_000,
    leaseMs: 10_000,
    capacity: 100,
    costs: { individual: 2, mix: 15, web: 40 },
    cpuThresholdPercent: 90,
  });
  const e = loadConfig({
    cwd,
    env: { REELTIME_RECORDING_DISPATCH_LEASE_SECOND: '6', REELTIME_RECORDING_DISPATCH_COST_MIX: '20', REELTIME_RECORDING_DISPATCH_CPU_THRESHOLD_PERCENT: '100' },
  }).recording.dispatch;
  assert.equal(e.leaseMs, 6000);
  assert.equal(e.costs.mix, 20);
  assert.equal(e.cpuThresholdPercent, 100);
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_RECORDING_DISPATCH_LEASE_SECOND: '1' } }), /REELTIME_RECORDING_DISPATCH_LEASE_SECOND/);
});

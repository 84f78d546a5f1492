import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../command.ts';
import { parseImpairArgs } from './impair.ts';

test('impair: flags become a relay per port, both directions unless prefixed', () => {
  const o = parseImpairArgs(['--listen', '127.0.0.1:41000-41002', '--target', '127.0.0.1:40000-40002', '--loss', '5', '--down-loss', '0', '--burst-loss', '2', '--burst-length', '5', '--up-delay', '50', '--jitter', '30', '--rate', '1000', '--seed', '9']);
  assert.equal(o.mappings.length, 3);
  assert.deepEqual(o.mappings[2], { listen: { address: '127.0.0.1', port: 41002 }, target: { address: '127.0.0.1', port: 40002 } });
  assert.equal(o.upstream?.loss, 0.05);
  assert.equal(o.downstream?.loss, 0);
  assert.equal(o.upstream?.delayMs, 50);
  assert.equal(o.downstream?.delayMs, undefined);
  assert.equal(o.downstream?.jitterMs, 30);
  assert.equal(o.upstream?.burst?.pBadToGood, 0.2);
  assert.deepEqual(o.upstream?.rate, { bitsPerSecond: 1_000_000, burstBytes: 15_000, queueBytes: 60_000 });
  assert.equal(o.seed, 9);
});

test('impair: bad flags are refused by name', () => {
  const base = ['--listen', '127.0.0.1:41000', '--target', '127.0.0.1:40000'];
  assert.throws(() => parseImpairArgs([...base, '--loss', '150']), (e: unknown) => e instanceof UsageError && /--loss must be a number from 0 to 100/.test(e.message));
  assert.throws(() => parseImpairArgs([...base, '--up-jitter', '-3']), /--up-jitter/);
  assert.throws(() => parseImpairArgs(['--listen', '127.0.0.1:41000-41001', '--target', '127.0.0.1:40000']), /as many ports/);
  assert.throws(() => parseImpairArgs(['--target', '127.0.0.1:40000']), /--listen must be HOST:PORT/);
  assert.throws(() => parseImpairArgs([...base, '--color', 'red']), UsageError);
});

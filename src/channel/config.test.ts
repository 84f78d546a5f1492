import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigSource } from '../config/source.ts';
import { parseChannelConfig } from './config.ts';

const core = { env: 'development' } as Parameters<typeof parseChannelConfig>[1];

test('channel config: defaults, env overrides, errors name the setting', () => {
  const d = parseChannelConfig(new ConfigSource({}, {}), core);
  assert.deepEqual(d, { iceAddresses: ['127.0.0.1'], udpPortRange: undefined, idleTimeoutMs: 5000, devTokenEndpoint: true, leaseMs: 15_000 });
  const e = parseChannelConfig(
    new ConfigSource({ channel: { udpPortMin: 40000, udpPortMax: 40100 } }, { REELTIME_CHANNEL_ICE_ADDRESSES: '127.0.0.1, 10.0.0.5' }),
    { ...core, env: 'production' },
  );
  assert.deepEqual(e.iceAddresses, ['127.0.0.1', '10.0.0.5']);
  assert.deepEqual(e.udpPortRange, [40000, 40100]);
  assert.equal(e.devTokenEndpoint, false);
  assert.throws(() => parseChannelConfig(new ConfigSource({ channel: { iceAddresses: ['localhost'] } }, {}), core), /channel\.iceAddresses.*not an IPv4/);
  assert.throws(() => parseChannelConfig(new ConfigSource({ channel: { udpPortMin: 5000 } }, {}), core), /udpPortMin/);
  assert.throws(() => parseChannelConfig(new ConfigSource({}, { REELTIME_CHANNEL_IDLE_TIMEOUT_MS: '10' }), core), /REELTIME_CHANNEL_IDLE_TIMEOUT_MS/);
});

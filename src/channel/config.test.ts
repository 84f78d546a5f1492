import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigSource } from '../config/source.ts';
import { parseChannelConfig } from './config.ts';

const core = { env: 'development', clusterPeers: [] as string[] } as unknown as Parameters<typeof parseChannelConfig>[1];

test('channel config: defaults, env overrides, errors name the setting', () => {
  const d = parseChannelConfig(new ConfigSource({}, {}), core);
  assert.deepEqual(d, {
    iceAddresses: ['127.0.0.1'],
    udpPortRange: undefined,
    icePortOffset: 0,
    idleTimeoutMs: 5000,
    devTokenEndpoint: true,
    leaseMs: 15_000,
    sessionCaps: { perToken: 32, perChannel: 512, perAddress: 64 },
    eventStreamCaps: { perToken: 8, perChannel: 0, perAddress: 32 },
    trustedAddresses: ['127.0.0.0/8', '::1'],
    turn: undefined,
  });
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

test('channel config: icePortOffset shifts a port range and needs one', () => {
  const range = { udpPortMin: 40000, udpPortMax: 40099 };
  assert.equal(parseChannelConfig(new ConfigSource({ channel: { ...range, icePortOffset: 1000 } }, {}), core).icePortOffset, 1000);
  assert.equal(parseChannelConfig(new ConfigSource({ channel: range }, { REELTIME_CHANNEL_ICE_PORT_OFFSET: '-100' }), core).icePortOffset, -100);
  assert.throws(() => parseChannelConfig(new ConfigSource({ channel: { icePortOffset: 1000 } }, {}), core), /channel\.icePortOffset.*udpPortMin/);
  assert.throws(() => parseChannelConfig(new ConfigSource({ channel: { ...range, icePortOffset: 30000 } }, {}), core), /channel\.icePortOffset.*1-65535/);
});

test('channel config: caps and trusted addresses (cluster peers by default)', () => {
  const c = parseChannelConfig(
    new ConfigSource({ channel: { maxSessionsPerToken: 2, maxEventStreamsPerAddress: 0 } }, { REELTIME_CHANNEL_MAX_SESSIONS_PER_ADDRESS: '5' }),
    { ...core, clusterPeers: ['http://10.0.0.5:8080', '10.1.0.0/16', 'http://node-b:8080'] },
  );
  assert.deepEqual(c.sessionCaps, { perToken: 2, perChannel: 512, perAddress: 5 });
  assert.deepEqual(c.eventStreamCaps, { perToken: 8, perChannel: 0, perAddress: 0 });
  assert.deepEqual(c.trustedAddresses, ['127.0.0.0/8', '::1', '10.0.0.5', '10.1.0.0/16']);
  assert.deepEqual(parseChannelConfig(new ConfigSource({ channel: { trustedAddresses: [] } }, {}), core).trustedAddresses, []);
  assert.throws(
    () => parseChannelConfig(new ConfigSource({}, { REELTIME_CHANNEL_TRUSTED_ADDRESSES: 'localhost' }), core),
    /REELTIME_CHANNEL_TRUSTED_ADDRESSES.*"localhost" is not an IP/,
  );
  assert.throws(() => parseChannelConfig(new ConfigSource({}, { REELTIME_CHANNEL_MAX_SESSIONS_PER_TOKEN: '-1' }), core), /REELTIME_CHANNEL_MAX_SESSIONS_PER_TOKEN/);
});

test('channel config: TURN URLs need a long secret; the credential lifetime is bounded', () => {
  const turn = (file: ConstructorParameters<typeof ConfigSource>[0]['channel'], env: Record<string, string> = {}) => parseChannelConfig(new ConfigSource({ channel: file }, env), core).turn;
  assert.deepEqual(turn({}, { REELTIME_CHANNEL_TURN_URLS: 'turn:127.0.0.1:3478?transport=udp,turn:127.0.0.1:3478?transport=tcp', REELTIME_CHANNEL_TURN_SECRET: 'a-secret-of-20-chars' }), {
    urls: ['turn:127.0.0.1:3478?transport=udp', 'turn:127.0.0.1:3478?transport=tcp'],
    secret: 'a-secret-of-20-chars',
    credentialTtlSeconds: 3600,
  });
  assert.throws(() => turn({ turnUrls: ['turn:127.0.0.1:3478'] }), /channel\.turnSecret.*static-auth-secret/);
  assert.throws(() => turn({ turnUrls: ['turn:127.0.0.1:3478'], turnSecret: 'short' }), /channel\.turnSecret.*16/);
  assert.throws(() => turn({ turnUrls: ['stun:127.0.0.1:3478'], turnSecret: 'a-secret-of-20-chars' }), /channel\.turnUrls.*"stun:127\.0\.0\.1:3478" is not a TURN URL/);
  assert.throws(() => turn({ turnSecret: 'a-secret-of-20-chars' }), /channel\.turnUrls.*empty/);
  assert.throws(() => turn({ turnUrls: ['turn:h'], turnSecret: 'a-secret-of-20-chars', turnCredentialTtlSeconds: 5 }), /turnCredentialTtlSeconds/);
});

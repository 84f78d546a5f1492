import { isIP } from 'node:net';
import { ConfigError, type CoreConfig, type ConfigSource } from '../config/index.ts';

/** Settings of the channel module (file section "channel", environment overrides REELTIME_CHANNEL_*). */
export interface ChannelConfig {
  /** Addresses announced as ICE host candidates (and the only ones gathered). */
  readonly iceAddresses: readonly string[];
  /** UDP port range for media; undefined means ephemeral ports. */
  readonly udpPortRange: readonly [number, number] | undefined;
  /** A session that receives no RTP/RTCP for this long is removed from its channel. */
  readonly idleTimeoutMs: number;
  /** Serve `POST /rtc/v1/dev/token` (mints tokens for the primary app); on by default only in development. */
  readonly devTokenEndpoint: boolean;
  /** With Redis: how long a node's claim on a channel outlives its last renewal (a dead node's channels move after it). */
  readonly leaseMs: number;
}

export function parseChannelConfig(src: ConfigSource, core: CoreConfig): ChannelConfig {
  const iceAddresses = src.list('channel.iceAddresses', 'REELTIME_CHANNEL_ICE_ADDRESSES', ['127.0.0.1']);
  if (iceAddresses.length === 0) {
    throw new ConfigError('REELTIME_CHANNEL_ICE_ADDRESSES (channel.iceAddresses)', 'needs at least one address');
  }
  for (const a of iceAddresses) {
    if (isIP(a) !== 4) {
      throw new ConfigError('REELTIME_CHANNEL_ICE_ADDRESSES (channel.iceAddresses)', `"${a}" is not an IPv4 address`);
    }
  }
  const min = src.int('channel.udpPortMin', 'REELTIME_CHANNEL_UDP_PORT_MIN', 0, { min: 0, max: 65535 });
  const max = src.int('channel.udpPortMax', 'REELTIME_CHANNEL_UDP_PORT_MAX', 0, { min: 0, max: 65535 });
  if ((min === 0) !== (max === 0) || (min !== 0 && max <= min)) {
    throw new ConfigError(
      'REELTIME_CHANNEL_UDP_PORT_MIN/MAX (channel.udpPortMin/udpPortMax)',
      'set both, with min < max (or neither for ephemeral ports)',
    );
  }
  return {
    iceAddresses,
    udpPortRange: min === 0 ? undefined : [min, max],
    idleTimeoutMs: src.int('channel.idleTimeoutMs', 'REELTIME_CHANNEL_IDLE_TIMEOUT_MS', 5000, { min: 500 }),
    devTokenEndpoint: src.bool('channel.devTokenEndpoint', 'REELTIME_CHANNEL_DEV_TOKEN_ENDPOINT', core.env === 'development'),
    leaseMs: src.int('channel.leaseMs', 'REELTIME_CHANNEL_LEASE_MS', 15_000, { min: 1000, max: 600_000 }),
  };
}

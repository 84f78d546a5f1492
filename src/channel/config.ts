import { isIP } from 'node:net';
import { ConfigError, type CoreConfig, type ConfigSource } from '../config/index.ts';
import type { CapLimits } from './caps.ts';
import { parseRange } from './client-address.ts';
import { isTurnUrl, type TurnSettings } from './turn/index.ts';

/** Settings of the channel module (file section "channel", environment overrides REELTIME_CHANNEL_*). */
export interface ChannelConfig {
  /** Addresses announced as ICE host candidates (and the only ones gathered). */
  readonly iceAddresses: readonly string[];
  /** UDP port range for media; undefined means ephemeral ports. */
  readonly udpPortRange: readonly [number, number] | undefined;
  /**
   * Added to each bound media port in the announced candidates (0: announce the bound port). For a port-shifting
   * forward in front of the node: a NAT mapping 50000-50099 to 40000-40099, or the impairment relay (docs/impairment.md).
   */
  readonly icePortOffset: number;
  /** A session that receives no RTP/RTCP for this long is removed from its channel. */
  readonly idleTimeoutMs: number;
  /** Serve `POST /rtc/v1/dev/token` (mints tokens for the primary app); on by default only in development. */
  readonly devTokenEndpoint: boolean;
  /** With Redis: how long a node's claim on a channel outlives its last renewal (a dead node's channels move after it). */
  readonly leaseMs: number;
  /** Caps on WHIP and WHEP sessions held at once (docs/channel.md, "Caps"); 0 turns one off. */
  readonly sessionCaps: CapLimits;
  /** Caps on membership event streams held at once (no per-channel cap: a stream is a socket and a listener). */
  readonly eventStreamCaps: CapLimits;
  /**
   * Address ranges of the deployment's own processes (recorders, channel followers, benchmarks): a request from
   * one that no proxy relayed is not counted per address and its sessions are not ended at token expiry.
   */
  readonly trustedAddresses: readonly string[];
  /** TURN servers (coturn with `use-auth-secret`) whose short-lived credentials clients get (docs/channel.md, "TURN"). */
  readonly turn: TurnSettings | undefined;
}

/** coturn's shared secret: long enough not to be guessed from one handed-out credential. */
const MIN_TURN_SECRET_LENGTH = 16;

function parseTurn(src: ConfigSource): TurnSettings | undefined {
  const urls = src.list('channel.turnUrls', 'REELTIME_CHANNEL_TURN_URLS', []);
  const secret = src.string('channel.turnSecret', 'REELTIME_CHANNEL_TURN_SECRET');
  const credentialTtlSeconds = src.int('channel.turnCredentialTtlSeconds', 'REELTIME_CHANNEL_TURN_CREDENTIAL_TTL_SECONDS', 3600, { min: 60, max: 86_400 });
  if (urls.length === 0) {
    if (secret !== undefined) throw new ConfigError('REELTIME_CHANNEL_TURN_URLS (channel.turnUrls)', 'is empty while channel.turnSecret is set');
    return undefined;
  }
  for (const url of urls) {
    if (!isTurnUrl(url)) {
      throw new ConfigError('REELTIME_CHANNEL_TURN_URLS (channel.turnUrls)', `"${url}" is not a TURN URL (turn:host:port?transport=udp|tcp, or turns:)`);
    }
  }
  if (secret === undefined || secret.length < MIN_TURN_SECRET_LENGTH) {
    throw new ConfigError('REELTIME_CHANNEL_TURN_SECRET (channel.turnSecret)', `needs coturn's static-auth-secret, at least ${MIN_TURN_SECRET_LENGTH} characters, when TURN URLs are set`);
  }
  return { urls, secret, credentialTtlSeconds };
}

/** Loopback and the IP literals and ranges of `clusterPeers` (an origin given by name is not resolved). */
function defaultTrusted(clusterPeers: readonly string[]): string[] {
  const out = ['127.0.0.0/8', '::1'];
  for (const peer of clusterPeers) {
    if (parseRange(peer)) out.push(peer);
    else if (URL.canParse(peer)) {
      const host = new URL(peer).hostname.replace(/^\[|\]$/g, '');
      if (isIP(host)) out.push(host);
    }
  }
  return out;
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
  const icePortOffset = src.int('channel.icePortOffset', 'REELTIME_CHANNEL_ICE_PORT_OFFSET', 0, { min: -65535, max: 65535 });
  if (icePortOffset !== 0 && (min === 0 || min + icePortOffset < 1 || max + icePortOffset > 65535)) {
    throw new ConfigError(
      'REELTIME_CHANNEL_ICE_PORT_OFFSET (channel.icePortOffset)',
      'needs channel.udpPortMin/udpPortMax, and the shifted range must stay within 1-65535',
    );
  }
  const trustedAddresses = src.list('channel.trustedAddresses', 'REELTIME_CHANNEL_TRUSTED_ADDRESSES', defaultTrusted(core.clusterPeers));
  for (const a of trustedAddresses) {
    if (!parseRange(a)) {
      throw new ConfigError('REELTIME_CHANNEL_TRUSTED_ADDRESSES (channel.trustedAddresses)', `"${a}" is not an IP address or range (10.0.0.0/16)`);
    }
  }
  return {
    iceAddresses,
    udpPortRange: min === 0 ? undefined : [min, max],
    icePortOffset,
    idleTimeoutMs: src.int('channel.idleTimeoutMs', 'REELTIME_CHANNEL_IDLE_TIMEOUT_MS', 5000, { min: 500 }),
    devTokenEndpoint: src.bool('channel.devTokenEndpoint', 'REELTIME_CHANNEL_DEV_TOKEN_ENDPOINT', core.env === 'development'),
    leaseMs: src.int('channel.leaseMs', 'REELTIME_CHANNEL_LEASE_MS', 15_000, { min: 1000, max: 600_000 }),
    sessionCaps: {
      perToken: src.int('channel.maxSessionsPerToken', 'REELTIME_CHANNEL_MAX_SESSIONS_PER_TOKEN', 32, { min: 0 }),
      perChannel: src.int('channel.maxSessionsPerChannel', 'REELTIME_CHANNEL_MAX_SESSIONS_PER_CHANNEL', 512, { min: 0 }),
      perAddress: src.int('channel.maxSessionsPerAddress', 'REELTIME_CHANNEL_MAX_SESSIONS_PER_ADDRESS', 64, { min: 0 }),
    },
    eventStreamCaps: {
      perToken: src.int('channel.maxEventStreamsPerToken', 'REELTIME_CHANNEL_MAX_EVENT_STREAMS_PER_TOKEN', 8, { min: 0 }),
      perChannel: 0,
      perAddress: src.int('channel.maxEventStreamsPerAddress', 'REELTIME_CHANNEL_MAX_EVENT_STREAMS_PER_ADDRESS', 32, { min: 0 }),
    },
    trustedAddresses,
    turn: parseTurn(src),
  };
}

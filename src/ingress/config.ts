import { ConfigError, type ConfigSource, type CoreConfig } from '../config/index.ts';

/** Settings of the ingress module (file section "ingress", environment REELTIME_INGRESS_*), docs/ingest.md. */
export interface IngressConfig {
  /** The RTMP listener's port; undefined: no RTMP listener in this process (0: any free port, for tests). */
  readonly rtmpPort: number | undefined;
  /** Address the RTMP listener binds; loopback unless set. */
  readonly rtmpHost: string;
  /** The "Server" URL answered to RTMP ingresses; default rtmp://<public host>:<port>/live. */
  readonly rtmpUrl: string | undefined;
  /** The RTMP application name the listener takes (the path of the Server URL). */
  readonly rtmpApp: string;
  /** How long a connection may take from its first byte to its publish command (slow or idle clients are cut). */
  readonly rtmpHandshakeTimeoutMs: number;
}

export function parseIngressConfig(src: ConfigSource, _core: CoreConfig): IngressConfig {
  const portText = src.env.REELTIME_INGRESS_RTMP_PORT ?? src.raw('ingress.rtmpPort');
  const rtmpPort =
    portText === undefined || portText === '' || portText === null ? undefined : src.int('ingress.rtmpPort', 'REELTIME_INGRESS_RTMP_PORT', 1935, { min: 0, max: 65_535 });
  const rtmpUrl = src.string('ingress.rtmpUrl', 'REELTIME_INGRESS_RTMP_URL');
  if (rtmpUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(rtmpUrl);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'rtmp:' && u.protocol !== 'rtmps:')) throw new ConfigError('REELTIME_INGRESS_RTMP_URL (ingress.rtmpUrl)', 'must be an rtmp:// or rtmps:// URL');
  }
  const rtmpApp = src.string('ingress.rtmpApp', 'REELTIME_INGRESS_RTMP_APP', 'live');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(rtmpApp)) throw new ConfigError('REELTIME_INGRESS_RTMP_APP (ingress.rtmpApp)', 'must be 1 to 64 letters, digits, _ or -');
  return {
    rtmpPort,
    rtmpHost: src.string('ingress.rtmpHost', 'REELTIME_INGRESS_RTMP_HOST', '127.0.0.1'),
    rtmpUrl: rtmpUrl?.replace(/\/+$/, ''),
    rtmpApp,
    rtmpHandshakeTimeoutMs: src.int('ingress.rtmpHandshakeTimeoutMs', 'REELTIME_INGRESS_RTMP_HANDSHAKE_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
  };
}

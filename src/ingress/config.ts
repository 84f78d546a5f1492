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
  /** The UDP ports SRT ingresses get one each (their listeners run in `channel` processes); undefined: no SRT. */
  readonly srtPorts: { readonly first: number; readonly last: number } | undefined;
  /** Address the SRT listeners bind; loopback unless set. */
  readonly srtHost: string;
  /** The host SRT URLs answered to clients name; default the public URL's. */
  readonly srtPublicHost: string | undefined;
  /** Admission of a `channel` process: each publishing ingress costs `cost` of its `capacity` units... */
  readonly capacity: number;
  readonly cost: number;
  /** ...or `transcodeCost` when its video is re-encoded (an H.265 source), which takes several times the CPU. */
  readonly transcodeCost: number;
  /** ...and none starts while the machine's CPU is busier than this (100, the default: no CPU check). */
  readonly cpuThresholdPercent: number;
  /**
   * How an ingest's media enters its channel: `auto` straight into the SFU when every channel lives in this process
   * (the `channel` role, no Redis), over WHIP otherwise; `whip` always over WHIP (docs/ingest.md, "Media path").
   */
  readonly mediaPath: 'auto' | 'whip';
}

function parsePortRange(text: string | undefined): { first: number; last: number } | undefined {
  if (text === undefined || text === '') return undefined;
  const label = 'REELTIME_INGRESS_SRT_PORTS (ingress.srtPorts)';
  const m = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5}))?\s*$/.exec(text);
  if (!m) throw new ConfigError(label, `must be a port or a range like 9000-9019, got "${text}"`);
  const first = Number(m[1]);
  const last = Number(m[2] ?? m[1]);
  if (first < 1 || last > 65_535 || last < first) throw new ConfigError(label, `must be ports from 1 to 65535, first ≤ last, got "${text}"`);
  if (last - first >= 1000) throw new ConfigError(label, 'must span at most 1000 ports');
  return { first, last };
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
  const mediaPath = src.string('ingress.mediaPath', 'REELTIME_INGRESS_MEDIA_PATH', 'auto');
  if (mediaPath !== 'auto' && mediaPath !== 'whip') throw new ConfigError('REELTIME_INGRESS_MEDIA_PATH (ingress.mediaPath)', 'must be auto or whip');
  return {
    rtmpPort,
    rtmpHost: src.string('ingress.rtmpHost', 'REELTIME_INGRESS_RTMP_HOST', '127.0.0.1'),
    rtmpUrl: rtmpUrl?.replace(/\/+$/, ''),
    rtmpApp,
    srtPorts: parsePortRange(src.string('ingress.srtPorts', 'REELTIME_INGRESS_SRT_PORTS')),
    srtHost: src.string('ingress.srtHost', 'REELTIME_INGRESS_SRT_HOST', '127.0.0.1'),
    srtPublicHost: src.string('ingress.srtPublicHost', 'REELTIME_INGRESS_SRT_PUBLIC_HOST'),
    rtmpHandshakeTimeoutMs: src.int('ingress.rtmpHandshakeTimeoutMs', 'REELTIME_INGRESS_RTMP_HANDSHAKE_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    capacity: src.int('ingress.capacity', 'REELTIME_INGRESS_CAPACITY', 100, { min: 1, max: 1_000_000 }),
    cost: src.int('ingress.cost', 'REELTIME_INGRESS_COST', 3, { min: 0, max: 1_000_000 }),
    // A 1080p25 H.265 camera re-encoded to H.264 took 0.45 of a core on its own (docs/ingest.md), a copied stream's
    // whole path about 0.1: five times the units.
    transcodeCost: src.int('ingress.transcodeCost', 'REELTIME_INGRESS_TRANSCODE_COST', 15, { min: 0, max: 1_000_000 }),
    // Off by default: a publish is admitted once its media came, so a CPU spike would drop a source already connected.
    cpuThresholdPercent: src.int('ingress.cpuThresholdPercent', 'REELTIME_INGRESS_CPU_THRESHOLD_PERCENT', 100, { min: 1, max: 100 }),
    mediaPath,
  };
}

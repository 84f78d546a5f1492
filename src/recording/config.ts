import { checkSecretLength, ConfigError, HEX32, type CoreConfig, type ConfigSource } from '../config/index.ts';
import type { StorageArea as Area } from '../storage/vendors/index.ts';
import { parseDispatchSettings, type DispatchSettings } from './dispatch/bullmq/settings.ts';

export interface RecordingCustomer {
  readonly id: string;
  readonly secret: string;
  readonly appIds: readonly string[];
}

/** Settings of the recording module (file section "recording", environment overrides REELTIME_RECORDING_*). */
export interface RecordingSettings {
  /** Basic-auth customers: the core customerId/customerSecret (for appId) first, then recording.customers. */
  readonly customers: readonly RecordingCustomer[];
  /** Every app ID some customer may use; others get 400 "appid is invalid". */
  readonly appIds: readonly string[];
  /** Requests per second per app ID (token bucket refill); 0 turns the limit off. */
  readonly rateLimitPerSecond: number;
  /** Bucket size: how many requests may come at once. */
  readonly rateLimitBurst: number;
  /** Concurrent sessions plus unstarted resources per app ID; acquire answers code 406 past it. */
  readonly maxConcurrentTasks: number;
  /** How long a synchronous stop waits for the final uploads before answering code 50. */
  readonly stopTimeoutMs: number;
  /** Area this deployment serves; used when acquire gives no region (then storage regions are checked against it). */
  readonly region: Area | undefined;
  /** Queue-backed dispatch across processes (used with REDIS_URL and PostgreSQL). */
  readonly dispatch: DispatchSettings;
  /**
   * Web mode's slice length and MP4 split in seconds; 0 keeps the service's (≈15 s slices, `maxVideoDuration`).
   * Shorter values exist so tests finish quickly (docs/recording-web.md).
   */
  readonly webSliceSeconds: number;
  readonly webMp4SplitSeconds: number;
  /**
   * Individual mode's slice length in seconds; 0 keeps the service's 15 s. Like the web settings it exists so tests
   * get a first slice quickly (docs/recording-individual.md); no request can change it.
   */
  readonly individualSliceSeconds: number;
  /** mix mode's slice length in seconds; 0: the service's 15 s (tests shorten it). */
  readonly mixSliceSeconds: number;
  /**
   * Production: hosts a recorded page may load from besides its own (each checked by the outbound guard and pinned
   * when the browser starts); `*` lets other names resolve through the system (docs/recording-web.md).
   */
  readonly webPageHosts: readonly string[];
  /**
   * How individual and mix recorders receive publishers' media: `auto` taps the SFU in-process when this process
   * runs the channel role (no WebRTC hop), WHEP otherwise; `whep` always subscribes over WHEP.
   */
  readonly mediaPath: 'auto' | 'whep';
  /**
   * Mix recorders take each simulcast publisher's smallest layer that covers the region it is drawn in (in-process
   * taps); false keeps the layer `videoStreamType` chose (docs/recording-mix.md, "Simulcast").
   */
  readonly mixFitLayers: boolean;
}

const AREAS: readonly Area[] = ['CN', 'AP', 'EU', 'NA'];

function parseCustomers(src: ConfigSource, env: CoreConfig['env']): RecordingCustomer[] {
  const label = 'REELTIME_RECORDING_CUSTOMERS (recording.customers)';
  const fromEnv = src.env.REELTIME_RECORDING_CUSTOMERS;
  let raw: unknown = src.raw('recording.customers');
  if (fromEnv) {
    try {
      raw = JSON.parse(fromEnv);
    } catch {
      throw new ConfigError(label, 'must be a JSON array of {id, secret, appIds}');
    }
  }
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ConfigError(label, 'must be a list of {id, secret, appIds}');
  return raw.map((c: unknown, i) => {
    const o = c as Record<string, unknown>;
    if (!o || typeof o !== 'object') throw new ConfigError(label, `entry ${i} must be an object`);
    if (typeof o.id !== 'string' || !o.id || o.id.includes(':')) {
      throw new ConfigError(label, `entry ${i}: id must be a non-empty string without ":"`);
    }
    if (typeof o.secret !== 'string' || !o.secret) throw new ConfigError(label, `entry ${i}: secret must be a non-empty string`);
    checkSecretLength(env, `${label} entry ${i} (id "${o.id}") secret`, o.secret);
    if (!Array.isArray(o.appIds) || o.appIds.some((a) => typeof a !== 'string' || !HEX32.test(a))) {
      throw new ConfigError(label, `entry ${i}: appIds must be a list of 32-hex-digit app IDs`);
    }
    return { id: o.id, secret: o.secret, appIds: o.appIds as string[] };
  });
}

/** Host names (lower case, as URL.hostname gives them) or `*`; anything else would change Chromium's rules. */
function pageHosts(hosts: readonly string[]): readonly string[] {
  for (const h of hosts) {
    if (h !== '*' && !/^[a-z0-9.-]+$/.test(h)) {
      throw new ConfigError('recording.webPageHosts (REELTIME_RECORDING_WEB_PAGE_HOSTS)', `${JSON.stringify(h)} is not a lower-case host name or *`);
    }
  }
  return hosts;
}

function mediaPath(v: string): 'auto' | 'whep' {
  if (v !== 'auto' && v !== 'whep') throw new ConfigError('REELTIME_RECORDING_MEDIA_PATH (recording.mediaPath)', 'must be auto or whep');
  return v;
}

export function parseRecordingSettings(src: ConfigSource, core: CoreConfig): RecordingSettings {
  const customers = [
    { id: core.customerId, secret: core.customerSecret, appIds: [core.appId] },
    ...parseCustomers(src, core.env),
  ];
  const rate = src.int('recording.rateLimitPerSecond', 'REELTIME_RECORDING_RATE_LIMIT_PER_SECOND', 10, { min: 0 });
  const burst = src.int('recording.rateLimitBurst', 'REELTIME_RECORDING_RATE_LIMIT_BURST', Math.max(rate, 1), { min: 1 });
  const region = src.string('recording.region', 'REELTIME_RECORDING_REGION');
  if (region !== undefined && !AREAS.includes(region as Area)) {
    throw new ConfigError('REELTIME_RECORDING_REGION (recording.region)', 'must be CN, AP, EU or NA');
  }
  return {
    customers,
    appIds: [...new Set(customers.flatMap((c) => c.appIds))],
    rateLimitPerSecond: rate,
    rateLimitBurst: burst,
    maxConcurrentTasks: src.int('recording.maxConcurrentTasks', 'REELTIME_RECORDING_MAX_CONCURRENT_TASKS', 50, { min: 1 }),
    stopTimeoutMs:
      src.int('recording.stopTimeoutSecond', 'REELTIME_RECORDING_STOP_TIMEOUT_SECOND', 20, { min: 1, max: 600 }) * 1000,
    region: region as Area | undefined,
    webSliceSeconds: src.int('recording.webSliceSeconds', 'REELTIME_RECORDING_WEB_SLICE_SECONDS', 0, { min: 0, max: 60 }),
    webPageHosts: pageHosts(src.list('recording.webPageHosts', 'REELTIME_RECORDING_WEB_PAGE_HOSTS', [])),
    webMp4SplitSeconds: src.int('recording.webMp4SplitSeconds', 'REELTIME_RECORDING_WEB_MP4_SPLIT_SECONDS', 0, { min: 0 }),
    individualSliceSeconds: src.int('recording.individualSliceSeconds', 'REELTIME_RECORDING_INDIVIDUAL_SLICE_SECONDS', 0, { min: 0, max: 60 }),
    mixSliceSeconds: src.int('recording.mixSliceSeconds', 'REELTIME_RECORDING_MIX_SLICE_SECONDS', 0, { min: 0, max: 60 }),
    dispatch: parseDispatchSettings(src),
    mediaPath: mediaPath(src.string('recording.mediaPath', 'REELTIME_RECORDING_MEDIA_PATH', 'auto')),
    mixFitLayers: src.bool('recording.mixFitLayers', 'REELTIME_RECORDING_MIX_FIT_LAYERS', true),
  };
}

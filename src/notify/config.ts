import { checkSecretLength, ConfigError, type CoreConfig, type ConfigSource } from '../config/index.ts';

/** Where one app's events go. The secret keys both signatures and is never logged or returned. */
export interface WebhookTarget {
  readonly url: string;
  readonly secret: string;
}

/** Settings of the notify module (file section "notify", environment overrides REELTIME_NOTIFY_*). */
export interface NotifyConfig {
  /** Webhook per app id. */
  readonly webhooks: Readonly<Record<string, WebhookTarget>>;
  /** Whether outbound URLs may point at loopback/private/link-local targets (off in production by default). */
  readonly allowPrivateUrls: boolean;
  /** Addresses answered by GET /v1/ncs/ip. */
  readonly ncsHosts: readonly string[];
  /** A webhook must answer 200 within this many milliseconds. */
  readonly timeoutMs: number;
  /** Delay before each retry; its length is the number of retries (notes: at once, then growing, 3 retries). */
  readonly retryDelaysMs: readonly number[];
  /** Hours delivered and skipped events stay visible in deliveries(); failed ones are kept until removed by hand. */
  readonly retentionHours: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([0, 10_000, 60_000]);

function checkUrl(label: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(label, 'must be an absolute http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(label, 'must be an http(s) URL');
  return url;
}

function parseWebhooks(src: ConfigSource, core: CoreConfig): Record<string, WebhookTarget> {
  const out: Record<string, WebhookTarget> = {};
  const raw = src.raw('notify.webhooks');
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ConfigError('notify.webhooks', 'must be an object mapping app id to {"url", "secret"}');
    }
    for (const [appId, v] of Object.entries(raw)) {
      const label = `notify.webhooks.${appId}`;
      if (!appId) throw new ConfigError('notify.webhooks', 'app id keys must not be empty');
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(label, 'must be {"url", "secret"}');
      const { url, secret } = v as { url?: unknown; secret?: unknown };
      if (typeof url !== 'string') throw new ConfigError(`${label}.url`, 'must be a string');
      if (typeof secret !== 'string' || secret === '') throw new ConfigError(`${label}.secret`, 'must be a non-empty string');
      checkSecretLength(core.env, `${label}.secret`, secret);
      out[appId] = { url: checkUrl(`${label}.url`, url), secret };
    }
  }
  // The environment pair configures the primary app and wins over the file entry for it.
  const envUrl = src.env.REELTIME_NOTIFY_WEBHOOK_URL;
  const envSecret = src.env.REELTIME_NOTIFY_WEBHOOK_SECRET;
  if (envUrl) {
    const secret = envSecret || out[core.appId]?.secret;
    if (!secret) throw new ConfigError('REELTIME_NOTIFY_WEBHOOK_SECRET', 'is required with REELTIME_NOTIFY_WEBHOOK_URL');
    checkSecretLength(core.env, 'REELTIME_NOTIFY_WEBHOOK_SECRET', secret);
    out[core.appId] = { url: checkUrl('REELTIME_NOTIFY_WEBHOOK_URL', envUrl), secret };
  } else if (envSecret) {
    const current = out[core.appId];
    if (!current) throw new ConfigError('REELTIME_NOTIFY_WEBHOOK_URL', 'is required with REELTIME_NOTIFY_WEBHOOK_SECRET');
    checkSecretLength(core.env, 'REELTIME_NOTIFY_WEBHOOK_SECRET', envSecret);
    out[core.appId] = { url: current.url, secret: envSecret };
  }
  return out;
}

function parseDelays(src: ConfigSource): readonly number[] {
  const label = 'REELTIME_NOTIFY_RETRY_DELAYS_MS (notify.retryDelaysMs)';
  const fromEnv = src.env.REELTIME_NOTIFY_RETRY_DELAYS_MS;
  let list: unknown[];
  if (fromEnv !== undefined && fromEnv !== '') list = fromEnv.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : s));
  else {
    const r = src.raw('notify.retryDelaysMs');
    if (r === undefined || r === null) return DEFAULT_RETRY_DELAYS_MS;
    if (!Array.isArray(r)) throw new ConfigError(label, 'must be a list of milliseconds');
    list = r;
  }
  if (list.length > 10) throw new ConfigError(label, 'at most 10 retries');
  for (const d of list) {
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > 86_400_000) {
      throw new ConfigError(label, `each delay must be an integer from 0 to 86400000 ms, got ${JSON.stringify(d)}`);
    }
  }
  return list as number[];
}

export function parseNotifyConfig(src: ConfigSource, core: CoreConfig): NotifyConfig {
  const publicHost = new URL(core.publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  const ncsHosts = src.list('notify.ncsHosts', 'REELTIME_NOTIFY_NCS_HOSTS', [publicHost]);
  if (ncsHosts.length === 0) throw new ConfigError('REELTIME_NOTIFY_NCS_HOSTS (notify.ncsHosts)', 'must list at least one address');
  return {
    webhooks: parseWebhooks(src, core),
    allowPrivateUrls: src.bool('notify.allowPrivateUrls', 'REELTIME_ALLOW_PRIVATE_URLS', core.env !== 'production'),
    ncsHosts,
    timeoutMs: src.int('notify.timeoutMs', 'REELTIME_NOTIFY_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, { min: 1, max: 600_000 }),
    retryDelaysMs: parseDelays(src),
    retentionHours: src.int('notify.retentionHours', 'REELTIME_NOTIFY_RETENTION_HOURS', 168, { min: 0, max: 87_600 }),
  };
}

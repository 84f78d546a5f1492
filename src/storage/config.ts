import { join, resolve } from 'node:path';
import { ConfigError, type CoreConfig, type ConfigSource } from '../config/index.ts';
import { isStorageVendor, type StorageVendor } from './vendors/index.ts';

/** Settings of the storage module (file section "storage", environment overrides REELTIME_STORAGE_*). */
export interface StorageSettings {
  /** Send every session to the local bucket whatever its vendor (the embedded default in development). */
  readonly routeAllToLocal: boolean;
  /** Endpoint overrides per vendor (path-style), e.g. a loopback S3 server for vendor 1. */
  readonly endpoints: Readonly<Partial<Record<StorageVendor, string>>>;
  /** Root of the local bucket: `<bucketDir>/<bucket>/<key>`. */
  readonly bucketDir: string;
  /** Serve the local bucket read-only (no auth) at /bucket/<bucket>/<key>; default: same as routeAllToLocal. */
  readonly serveBucket: boolean;
  /**
   * Whether the served bucket answers anyone who knows an object's key (development default), or only signed,
   * expiring links the sessions API hands out (production default). docs/storage.md, "Who may read recordings".
   */
  readonly bucketPublic: boolean;
  /** How long a signed bucket link stays valid. */
  readonly signedUrlTtlSeconds: number;
  readonly spoolDir: string;
  /** Upper bound of bytes waiting in the spool; enqueue beyond it is refused. */
  readonly spoolMaxBytes: number;
  /** Uploads running at once (per process). */
  readonly concurrency: number;
  /** Retry backoff: first delay, doubled per failure up to the maximum. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Multipart part (S3) / block (Azure) size. */
  readonly partSizeBytes: number;
  /** How long a process's claim on spooled files lasts without renewal (a crashed process's files wait this long). */
  readonly leaseMs: number;
}

const MiB = 1024 * 1024;

function parseEndpoints(src: ConfigSource): Partial<Record<StorageVendor, string>> {
  const label = 'REELTIME_STORAGE_ENDPOINTS (storage.endpoints)';
  const out: Partial<Record<StorageVendor, string>> = {};
  let entries: [string, unknown][];
  const fromEnv = src.env.REELTIME_STORAGE_ENDPOINTS;
  if (fromEnv) {
    entries = fromEnv
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((pair) => {
        const i = pair.indexOf('=');
        if (i < 1) throw new ConfigError(label, `expected "<vendor>=<url>" pairs separated by commas, got "${pair}"`);
        return [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
      });
  } else {
    const raw = src.raw('storage.endpoints');
    if (raw === undefined || raw === null) return out;
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(label, 'must be an object of vendor: url');
    entries = Object.entries(raw);
  }
  for (const [k, v] of entries) {
    const vendor = Number(k);
    if (!/^\d+$/.test(k) || !isStorageVendor(vendor)) throw new ConfigError(label, `unknown vendor "${k}"`);
    if (typeof v !== 'string') throw new ConfigError(label, `vendor ${k} must map to a URL string`);
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new ConfigError(label, `vendor ${k}: "${v}" is not a URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(label, `vendor ${k} must be http(s)`);
    out[vendor] = v.replace(/\/+$/, '');
  }
  return out;
}

export function parseStorageSettings(src: ConfigSource, core: CoreConfig): StorageSettings {
  const dir = (key: string, env: string, fallback: string) => resolve(core.dataDir, src.string(key, env, fallback));
  const routeAllToLocal = src.bool(
    'storage.routeAllToLocal',
    'REELTIME_STORAGE_ROUTE_ALL_TO_LOCAL',
    core.env === 'development',
  );
  const retryBaseMs = src.int('storage.retryBaseMs', 'REELTIME_STORAGE_RETRY_BASE_MS', 1000, { min: 10, max: 600_000 });
  return {
    routeAllToLocal,
    endpoints: parseEndpoints(src),
    bucketDir: dir('storage.bucketDir', 'REELTIME_STORAGE_BUCKET_DIR', join(core.dataDir, 'bucket')),
    // The bucket folder is public over HTTP; by default only when it is where recordings go.
    serveBucket: src.bool('storage.serveBucket', 'REELTIME_STORAGE_SERVE_BUCKET', routeAllToLocal),
    bucketPublic: src.bool('storage.bucketPublic', 'REELTIME_STORAGE_BUCKET_PUBLIC', core.env === 'development'),
    signedUrlTtlSeconds: src.int('storage.signedUrlTtlSeconds', 'REELTIME_STORAGE_SIGNED_URL_TTL_SECONDS', 3600, {
      min: 10,
      max: 7 * 24 * 3600,
    }),
    spoolDir: dir('storage.spoolDir', 'REELTIME_STORAGE_SPOOL_DIR', join(core.dataDir, 'spool')),
    spoolMaxBytes: src.int('storage.spoolMaxBytes', 'REELTIME_STORAGE_SPOOL_MAX_BYTES', 10 * 1024 * MiB, { min: 1 }),
    concurrency: src.int('storage.concurrency', 'REELTIME_STORAGE_CONCURRENCY', 4, { min: 1, max: 64 }),
    retryBaseMs,
    retryMaxMs: src.int('storage.retryMaxMs', 'REELTIME_STORAGE_RETRY_MAX_MS', 30_000, { min: retryBaseMs, max: 3_600_000 }),
    partSizeBytes: src.int('storage.partSizeBytes', 'REELTIME_STORAGE_PART_SIZE_BYTES', 8 * MiB, {
      min: 5 * MiB,
      max: 512 * MiB,
    }),
    leaseMs: src.int('storage.leaseMs', 'REELTIME_STORAGE_LEASE_MS', 60_000, { min: 1000, max: 3_600_000 }),
  };
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isAllowEntry } from '../net/index.ts';
import { ConfigError, type ConfigSource, HEX32 } from './source.ts';

export interface CoreConfig {
  /** `development` (embedded defaults, generated credentials, URL guard off) or `production`. */
  readonly env: 'development' | 'production';
  readonly host: string;
  readonly port: number;
  /** Base URL this process is reachable at; used in printed URLs and Location headers. */
  readonly publicUrl: string;
  readonly dataDir: string;
  /** PostgreSQL URL; SQLite in dataDir when absent. */
  readonly databaseUrl: string | undefined;
  /** Redis URL: processes coordinate through it (docs/deployment.md); everything stays in-process when absent. */
  readonly redisUrl: string | undefined;
  /**
   * The cluster's own nodes as the outbound URL guard lets them through even when private: origins or IP ranges
   * (docs/deployment.md, "Peer URLs"). This process's own URL is always one.
   */
  readonly clusterPeers: readonly string[];
  readonly logLevel: string;
  /** The primary app: RTC/chat tokens are signed with its certificate. */
  readonly appId: string;
  readonly appCertificate: string;
  /** Basic-auth credentials of the recording API for the primary app. */
  readonly customerId: string;
  readonly customerSecret: string;
  /** Which of the four credentials above were generated (dev default) rather than configured. */
  readonly generatedCredentials: boolean;
  /** Bearer token that opens `GET /metrics` to any address; unset, only loopback callers may scrape. */
  readonly metricsToken: string | undefined;
  /** Limits of the HTTP server: how long a request may take to arrive, failed logins (docs/configuration.md). */
  readonly http: HttpSettings;
}

export interface HttpSettings {
  /** The whole request (line, headers, body) must arrive within this; 408 and the connection closed otherwise. */
  readonly requestTimeoutMs: number;
  /** The request line and headers must arrive within this. */
  readonly headersTimeoutMs: number;
  /** Failed Basic logins per minute per client address, and per customer id, before 429 (0: no limit). */
  readonly loginFailuresPerMinutePerAddress: number;
  readonly loginFailuresPerMinutePerCustomer: number;
}

/** The rule every secret configured for production follows. */
export const MIN_SECRET_LENGTH = 16;

/**
 * Production refuses short secrets at start: `value` must have at least 16 characters (128 bits when they are hex,
 * more otherwise). Development keeps whatever it is given (its generated credentials have 32 hex digits).
 */
export function checkSecretLength(env: 'development' | 'production', setting: string, value: string): void {
  if (env === 'production' && value.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(setting, `must be at least ${MIN_SECRET_LENGTH} characters in production (got ${value.length}); generate one with "openssl rand -hex 16"`);
  }
}

function parseHttpSettings(src: ConfigSource): HttpSettings {
  const requestTimeoutMs = src.int('http.requestTimeoutMs', 'REELTIME_HTTP_REQUEST_TIMEOUT_MS', 30_000, { min: 100, max: 600_000 });
  const headersTimeoutMs = src.int('http.headersTimeoutMs', 'REELTIME_HTTP_HEADERS_TIMEOUT_MS', Math.min(15_000, requestTimeoutMs), { min: 100, max: 600_000 });
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('REELTIME_HTTP_HEADERS_TIMEOUT_MS (http.headersTimeoutMs)', `must be at most http.requestTimeoutMs (${requestTimeoutMs})`);
  }
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    loginFailuresPerMinutePerAddress: src.int('http.loginFailuresPerMinutePerAddress', 'REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_ADDRESS', 20, { min: 0 }),
    loginFailuresPerMinutePerCustomer: src.int('http.loginFailuresPerMinutePerCustomer', 'REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_CUSTOMER', 100, { min: 0 }),
  };
}

interface DevCredentials {
  appId: string;
  appCertificate: string;
  customerId: string;
  customerSecret: string;
}

/** Generated once per data dir and reused, so tokens and curl commands keep working across restarts. */
function devCredentials(dataDir: string): DevCredentials {
  const file = join(dataDir, 'dev-credentials.json');
  if (existsSync(file)) {
    return JSON.parse(readFileSync(file, 'utf8')) as DevCredentials;
  }
  const creds: DevCredentials = {
    appId: randomBytes(16).toString('hex'),
    appCertificate: randomBytes(16).toString('hex'),
    customerId: randomBytes(16).toString('hex'),
    customerSecret: randomBytes(16).toString('hex'),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  return creds;
}

/** `logLevel` / REELTIME_LOG_LEVEL: a pino level. */
export function parseLogLevel(src: ConfigSource): string {
  const logLevel = src.string('logLevel', 'REELTIME_LOG_LEVEL', 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('REELTIME_LOG_LEVEL (logLevel)', `unknown level "${logLevel}"`);
  }
  return logLevel;
}

export function parseCoreConfig(src: ConfigSource, cwd: string): CoreConfig {
  const envName = src.string('env', 'REELTIME_ENV', 'development');
  if (envName !== 'development' && envName !== 'production') {
    throw new ConfigError('REELTIME_ENV (env)', `must be "development" or "production", got "${envName}"`);
  }
  const port = src.int('port', 'REELTIME_PORT', 8080, { min: 0, max: 65535 });
  const host = src.string('host', 'REELTIME_HOST', '127.0.0.1');
  const dataDir = resolve(cwd, src.string('dataDir', 'REELTIME_DATA_DIR', './data'));
  const publicUrl = src.string('publicUrl', 'REELTIME_PUBLIC_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError('REELTIME_PUBLIC_URL (publicUrl)', `must be a URL, got "${publicUrl}"`);
  }
  const databaseUrl = src.string('databaseUrl', 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL (databaseUrl)', 'must be a postgres:// URL');
  }
  const redisUrl = src.string('redisUrl', 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\/[^/]/.test(redisUrl)) {
    throw new ConfigError('REDIS_URL (redisUrl)', 'must be a redis:// or rediss:// URL');
  }
  const clusterPeers = src.list('clusterPeers', 'REELTIME_CLUSTER_PEERS', []).map((e) => e.replace(/\/+$/, ''));
  for (const e of clusterPeers) {
    if (!isAllowEntry(e)) {
      throw new ConfigError('REELTIME_CLUSTER_PEERS (clusterPeers)', `"${e}" is neither an http(s) origin (http://10.0.0.5:8080) nor an IP range (10.0.0.0/16)`);
    }
  }
  const logLevel = parseLogLevel(src);
  const metricsToken = src.string('metricsToken', 'REELTIME_METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) {
    throw new ConfigError('REELTIME_METRICS_TOKEN (metricsToken)', 'must be at least 16 printable characters without spaces');
  }

  let appId = src.string('appId', 'REELTIME_APP_ID');
  let appCertificate = src.string('appCertificate', 'REELTIME_APP_CERTIFICATE');
  let customerId = src.string('customerId', 'REELTIME_CUSTOMER_ID');
  let customerSecret = src.string('customerSecret', 'REELTIME_CUSTOMER_SECRET');
  const missing = !appId || !appCertificate || !customerId || !customerSecret;
  if (missing && envName === 'production') {
    const name = !appId
      ? 'REELTIME_APP_ID (appId)'
      : !appCertificate
        ? 'REELTIME_APP_CERTIFICATE (appCertificate)'
        : !customerId
          ? 'REELTIME_CUSTOMER_ID (customerId)'
          : 'REELTIME_CUSTOMER_SECRET (customerSecret)';
    throw new ConfigError(name, 'is required in production');
  }
  if (missing) {
    const dev = devCredentials(dataDir);
    appId ??= dev.appId;
    appCertificate ??= dev.appCertificate;
    customerId ??= dev.customerId;
    customerSecret ??= dev.customerSecret;
  }
  if (!HEX32.test(appId!)) throw new ConfigError('REELTIME_APP_ID (appId)', 'must be 32 hexadecimal characters');
  if (!HEX32.test(appCertificate!)) {
    throw new ConfigError('REELTIME_APP_CERTIFICATE (appCertificate)', 'must be 32 hexadecimal characters');
  }
  if (customerId!.includes(':')) throw new ConfigError('REELTIME_CUSTOMER_ID (customerId)', 'must not contain ":"');
  checkSecretLength(envName, 'REELTIME_CUSTOMER_SECRET (customerSecret)', customerSecret!);

  return {
    env: envName,
    host,
    port,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    dataDir,
    databaseUrl,
    redisUrl,
    clusterPeers,
    logLevel,
    appId: appId!,
    appCertificate: appCertificate!,
    customerId: customerId!,
    customerSecret: customerSecret!,
    generatedCredentials: missing,
    metricsToken,
    http: parseHttpSettings(src),
  };
}

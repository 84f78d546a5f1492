import { CHAT_TOKEN_MAX_VALIDITY_SECONDS } from '@reeltime/token';
import { ConfigError, HEX32 } from '../../config/index.ts';

/** The token server's settings, named as in the spec (`server.port`, `appid`, `appcert`, ...). */
export interface TokenServerSettings {
  /** `server.port`: only used when the token server runs alone (`reeltime chat-token-server`). */
  readonly port: number;
  /** `server.address`: interface the standalone server binds. */
  readonly address: string;
  /** `appid`, `appcert`: may be empty; requests then answer "appid or appcert is not empty". */
  readonly appId: string;
  readonly appCertificate: string;
  /** `expire.second`: validity of both token kinds, 1..86400. */
  readonly expireSecond: number;
  /** `appkey`: `<org_name>#<app_name>`; may be empty or illegal, reported per request. */
  readonly appKey: string;
  /** `domain`: host (or URL) of the chat REST API; undefined = this reeltime's own users service. */
  readonly domain: string | undefined;
}

/** The spec's 24-hour maximum, the same number the verifiers enforce. */
export const MAX_EXPIRE_SECOND = CHAT_TOKEN_MAX_VALIDITY_SECONDS;

/** Where a property's value comes from: the environment first, then a file. */
export interface PropertyReader {
  /** The raw value, or undefined when unset. */
  get(property: string): string | undefined;
  /** How an error names the property, e.g. `REELTIME_CHAT_EXPIRE_SECOND (expire.second)`. */
  label(property: string): string;
}

/** `expire.second` → `REELTIME_CHAT_EXPIRE_SECOND`. */
export function envNameOf(property: string): string {
  return `REELTIME_CHAT_${property.replace(/\./g, '_').toUpperCase()}`;
}

export interface SettingsDefaults {
  readonly appId?: string;
  readonly appCertificate?: string;
  readonly appKey?: string;
  readonly domain?: string;
}

function int(r: PropertyReader, prop: string, fallback: number, min: number, max: number): number {
  const raw = r.get(prop);
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\s*-?\d+\s*$/.test(raw)) throw new ConfigError(r.label(prop), `must be an integer, got "${raw}"`);
  const v = Number(raw);
  if (v < min) throw new ConfigError(r.label(prop), `must be at least ${min}, got ${v}`);
  if (v > max) throw new ConfigError(r.label(prop), `must be at most ${max}, got ${v}`);
  return v;
}

/**
 * Reads and checks the settings once, at start-up. `expire.second` above 86400 (the 24-hour token limit) and
 * non-hex app credentials are refused here; empty credentials, app key or domain are allowed because the
 * spec reports them per request.
 */
export function parseTokenServerSettings(r: PropertyReader, defaults: SettingsDefaults = {}): TokenServerSettings {
  const str = (p: string, d: string | undefined) => {
    const v = r.get(p);
    return v === undefined ? d : v.trim();
  };
  const appId = str('appid', defaults.appId) ?? '';
  const appCertificate = str('appcert', defaults.appCertificate) ?? '';
  if (appId !== '' && !HEX32.test(appId)) throw new ConfigError(r.label('appid'), 'must be 32 hexadecimal characters');
  if (appCertificate !== '' && !HEX32.test(appCertificate)) {
    throw new ConfigError(r.label('appcert'), 'must be 32 hexadecimal characters');
  }
  const expireSecond = int(r, 'expire.second', 6000, 1, MAX_EXPIRE_SECOND);
  const domain = str('domain', defaults.domain);
  return {
    port: int(r, 'server.port', 8090, 0, 65535),
    address: str('server.address', '127.0.0.1') || '127.0.0.1',
    appId,
    appCertificate,
    expireSecond,
    appKey: str('appkey', defaults.appKey) ?? '',
    domain: domain === '' ? '' : domain,
  };
}

/** A reader over a parsed `.properties` file with REELTIME_CHAT_* environment overrides. */
export function propertiesReader(
  props: ReadonlyMap<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  fileName: string,
): PropertyReader {
  return {
    get(p) {
      const e = env[envNameOf(p)];
      return e !== undefined && e !== '' ? e : props.get(p);
    },
    label: (p) => `${envNameOf(p)} (${p} in ${fileName})`,
  };
}

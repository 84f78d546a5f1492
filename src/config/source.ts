/** Raised for any invalid setting; the message always names the setting (file key and environment variable). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`invalid configuration ${setting}: ${message}`);
  }
}

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/**
 * One place that reads a setting: the environment variable wins over the file key.
 * `key` is a dotted path into the config file ("chat.expireSecond").
 */
export class ConfigSource {
  constructor(
    readonly file: JsonObject,
    readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  raw(key: string): Json | undefined {
    let cur: Json | undefined = this.file;
    for (const part of key.split('.')) {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      cur = (cur as JsonObject)[part];
    }
    return cur;
  }

  #label(key: string, envName?: string): string {
    return envName ? `${envName} (${key})` : key;
  }

  string(key: string, envName: string | undefined, fallback: string): string;
  string(key: string, envName: string | undefined): string | undefined;
  string(key: string, envName: string | undefined, fallback?: string): string | undefined {
    const fromEnv = envName ? this.env[envName] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const v = this.raw(key);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') throw new ConfigError(this.#label(key, envName), 'must be a string');
    return v;
  }

  int(key: string, envName: string | undefined, fallback: number, range?: { min?: number; max?: number }): number {
    const label = this.#label(key, envName);
    const fromEnv = envName ? this.env[envName] : undefined;
    let v: number;
    if (fromEnv !== undefined && fromEnv !== '') {
      if (!/^-?\d+$/.test(fromEnv.trim())) throw new ConfigError(label, `must be an integer, got "${fromEnv}"`);
      v = Number(fromEnv);
    } else {
      const r = this.raw(key);
      if (r === undefined || r === null) v = fallback;
      else if (typeof r === 'number' && Number.isInteger(r)) v = r;
      else throw new ConfigError(label, 'must be an integer');
    }
    if (range?.min !== undefined && v < range.min) throw new ConfigError(label, `must be at least ${range.min}, got ${v}`);
    if (range?.max !== undefined && v > range.max) throw new ConfigError(label, `must be at most ${range.max}, got ${v}`);
    return v;
  }

  bool(key: string, envName: string | undefined, fallback: boolean): boolean {
    const label = this.#label(key, envName);
    const fromEnv = envName ? this.env[envName] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') {
      if (/^(1|true|yes|on)$/i.test(fromEnv)) return true;
      if (/^(0|false|no|off)$/i.test(fromEnv)) return false;
      throw new ConfigError(label, `must be true or false, got "${fromEnv}"`);
    }
    const r = this.raw(key);
    if (r === undefined || r === null) return fallback;
    if (typeof r !== 'boolean') throw new ConfigError(label, 'must be true or false');
    return r;
  }

  /** A list from the file, or a comma-separated environment variable. */
  list(key: string, envName: string | undefined, fallback: readonly string[]): readonly string[] {
    const fromEnv = envName ? this.env[envName] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv.split(',').map((s) => s.trim()).filter(Boolean);
    const r = this.raw(key);
    if (r === undefined || r === null) return fallback;
    if (!Array.isArray(r) || r.some((x) => typeof x !== 'string')) {
      throw new ConfigError(this.#label(key, envName), 'must be a list of strings');
    }
    return r as string[];
  }
}

export const HEX32 = /^[0-9a-fA-F]{32}$/;

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, ConfigSource, type JsonObject } from './source.ts';

export interface ReadConfigOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** Path of a JSON config file; defaults to $REELTIME_CONFIG, then ./reeltime.json when present. */
  readonly file?: string;
  /** Parsed file contents, instead of reading a file (tests). */
  readonly values?: JsonObject;
}

/**
 * The one place that reads the process environment and the JSON config file. Modules parse their own section
 * from the returned source; the composition root (src/server/config.ts) assembles and freezes the result.
 */
export function readConfigSource(opts: ReadConfigOptions = {}): { readonly source: ConfigSource; readonly cwd: string } {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  let values: JsonObject = opts.values ?? {};
  if (!opts.values) {
    const explicit = opts.file ?? env.REELTIME_CONFIG;
    const path = explicit ? resolve(cwd, explicit) : resolve(cwd, 'reeltime.json');
    if (explicit && !existsSync(path)) throw new ConfigError('REELTIME_CONFIG', `file not found: ${path}`);
    if (existsSync(path)) {
      try {
        values = JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
      } catch (e) {
        throw new ConfigError('REELTIME_CONFIG', `${path} is not valid JSON: ${(e as Error).message}`);
      }
      if (!values || typeof values !== 'object' || Array.isArray(values)) {
        throw new ConfigError('REELTIME_CONFIG', `${path} must hold a JSON object`);
      }
    }
  }
  return { source: new ConfigSource(values, env), cwd };
}

/** The environment alone, for commands that take their settings from another file format (`.properties`). */
export function environmentSource(env: Readonly<Record<string, string | undefined>> = process.env): ConfigSource {
  return new ConfigSource({}, env);
}

/** Freezes a parsed configuration all the way down, so no module can change what another one reads. */
export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * A tiny validator kit: each check turns `unknown` into a typed value or throws ValidationError naming the exact
 * field path (`clientRequest.recordingConfig.maxIdleTime`) and the rule broken. Schemas are built once at load.
 */

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super(`${path}: ${rule}`);
  }
}

export type Check<T> = (value: unknown, path: string) => T;

export interface Field<T> {
  readonly check: Check<T>;
  readonly required: boolean;
  /** A second spelling of the key that clients send (read when the key itself is absent). */
  readonly alias?: string;
  /** A value typed SDKs send for "not set" (Go's zero values): treated as absent. */
  readonly unset?: string | number;
}

export interface OptOptions {
  readonly alias?: string;
  readonly unset?: string | number;
}

export const req = <T>(check: Check<T>): Field<T> => ({ check, required: true });
export const opt = <T>(check: Check<T>, o: OptOptions = {}): Field<T | undefined> => ({ check, required: false, ...o });

export function fail(path: string, rule: string): never {
  throw new ValidationError(path, rule);
}

export const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const list = (xs: readonly (string | number)[]): string => xs.map((x) => String(x)).join(', ');

export interface StrOptions<T extends string> {
  readonly enum?: readonly T[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly maxBytes?: number;
  /** A pattern and the rule text shown when it does not match. */
  readonly pattern?: readonly [RegExp, string];
  readonly refine?: (v: string, path: string) => void;
}

export function str<T extends string = string>(o: StrOptions<T> = {}): Check<T> {
  return (v, path) => {
    if (typeof v !== 'string') fail(path, 'must be a string');
    if (o.enum && !o.enum.includes(v as T)) fail(path, `must be one of ${list(o.enum.map((e) => JSON.stringify(e)))}`);
    if (o.minLength !== undefined && v.length < o.minLength) {
      fail(path, o.minLength === 1 ? 'must not be empty' : `must be at least ${o.minLength} characters`);
    }
    if (o.maxLength !== undefined && v.length > o.maxLength) fail(path, `must be at most ${o.maxLength} characters`);
    if (o.maxBytes !== undefined && Buffer.byteLength(v, 'utf8') > o.maxBytes) {
      fail(path, `must be at most ${o.maxBytes} bytes`);
    }
    if (o.pattern && !o.pattern[0].test(v)) fail(path, o.pattern[1]);
    o.refine?.(v, path);
    return v as T;
  };
}

export interface NumOptions<T extends number> {
  readonly integer?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly enum?: readonly T[];
}

export function num<T extends number = number>(o: NumOptions<T> = {}): Check<T> {
  return (v, path) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'must be a number');
    if (o.enum) {
      if (!o.enum.includes(v as T)) fail(path, `must be one of ${list(o.enum)}`);
      return v as T;
    }
    if (o.integer && !Number.isInteger(v)) fail(path, 'must be an integer');
    if (o.min !== undefined && o.max !== undefined && (v < o.min || v > o.max)) {
      fail(path, `must be between ${o.min} and ${o.max}`);
    }
    if (o.min !== undefined && v < o.min) fail(path, `must be at least ${o.min}`);
    if (o.max !== undefined && v > o.max) fail(path, `must be at most ${o.max}`);
    return v as T;
  };
}

export const int = <T extends number = number>(o: Omit<NumOptions<T>, 'integer'> = {}): Check<T> =>
  num<T>({ ...o, integer: true });

export const bool = (): Check<boolean> => (v, path) => (typeof v === 'boolean' ? v : fail(path, 'must be true or false'));

export interface ArrOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly unique?: boolean;
}

export function arr<T>(item: Check<T>, o: ArrOptions = {}): Check<readonly T[]> {
  return (v, path) => {
    if (!Array.isArray(v)) fail(path, 'must be an array');
    if (o.minItems !== undefined && v.length < o.minItems) {
      fail(path, o.minItems === 1 ? 'must not be empty' : `must have at least ${o.minItems} entries`);
    }
    if (o.maxItems !== undefined && v.length > o.maxItems) fail(path, `must have at most ${o.maxItems} entries`);
    const out = v.map((x, i) => item(x, `${path}[${i}]`));
    if (o.unique) {
      const seen = new Set<unknown>();
      out.forEach((x, i) => {
        if (seen.has(x)) fail(`${path}[${i}]`, 'must not repeat an earlier entry');
        seen.add(x);
      });
    }
    return out;
  };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Shape = Record<string, Field<unknown>>;
type Out<S extends Shape> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/**
 * An object with known fields (unknown keys are ignored, as the hosted service does) and an optional cross-field
 * check run after every field passed.
 */
export function obj<T>(shape: Shape, refine?: (v: T, path: string) => void): Check<T> {
  const entries = Object.entries(shape);
  return (v, path) => {
    if (!isPlainObject(v)) fail(path || 'body', 'must be a JSON object');
    const out: Record<string, unknown> = {};
    for (const [key, field] of entries) {
      let name = key;
      let x = Object.hasOwn(v, key) ? v[key] : undefined;
      if (field.alias !== undefined && Object.hasOwn(v, field.alias) && v[field.alias] !== null) {
        if (x !== undefined && x !== null) fail(join(path, field.alias), `must not be set together with ${key} (two spellings of one field)`);
        name = field.alias;
        x = v[field.alias];
      }
      const p = join(path, name);
      // null counts as absent for optional fields: clients serialising optional values as null are common.
      if (x === undefined || x === null || (field.unset !== undefined && x === field.unset)) {
        if (field.required) fail(p, 'is required');
        continue;
      }
      out[key] = field.check(x, p);
    }
    refine?.(out as T, path);
    return out as T;
  };
}

export type { Out as ShapeOutput };

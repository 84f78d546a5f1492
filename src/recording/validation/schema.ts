/**
 * The checker of the request tables. Each table is a TypeBox schema (plain JSON Schema plus a few `x-` keywords,
 * see docs/validation.md); `checkerFor(schema)` turns `unknown` into the schema's static type or throws a
 * ValidationError naming the exact field path (`clientRequest.recordingConfig.maxIdleTime`) and the rule broken.
 * Unknown keys are dropped, `null` is absent. Cross-field rules are named functions attached with `withRules`.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { FORMATS, type FormatName } from './formats.ts';

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

export function fail(path: string, rule: string): never {
  throw new ValidationError(path, rule);
}

export const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validated values are never changed downstream. */
export type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

/** The TypeScript type a schema validates to. */
export type Out<S extends TSchema> = Frozen<Static<S>>;

/** A cross-field rule: runs once every field of the value passed; throws through `fail`. */
export type Rule<T> = (value: T, path: string) => void;

const RULES = Symbol('reeltime.validation.rules');
const CUSTOM = Symbol('reeltime.validation.custom');

/** The runtime view of a schema node: the JSON Schema keywords the checker reads, and reeltime's own. */
interface Node {
  readonly type?: string;
  readonly enum?: readonly (string | number)[];
  readonly const?: string | number | boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: FormatName;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly items?: Node;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly properties?: Readonly<Record<string, Node>>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly Node[];
  readonly discriminator?: { readonly propertyName: string };
  /** Rule text shown when the value breaks this node's enum, const or pattern (type errors keep their own). */
  readonly 'x-rule'?: string;
  readonly 'x-maxBytes'?: number;
  /** Another key clients send for this property. */
  readonly 'x-alias'?: string;
  /** A value typed SDKs send for "not set": treated as absent. */
  readonly 'x-unset'?: string | number;
  readonly [RULES]?: readonly Rule<unknown>[];
  readonly [CUSTOM]?: Check<unknown>;
}

/**
 * Attaches cross-field rules to a schema (run in order after its fields passed) and lists their names under
 * `x-rules`, so the JSON Schema tells a reader which rules apply beyond the keywords.
 */
export function withRules<S extends TSchema>(schema: S, ...rules: Rule<Out<S>>[]): S {
  return Object.assign(schema, { [RULES]: rules, 'x-rules': rules.map((r) => r.name) });
}

/** A copy of a schema with more keywords (`x-unset`, `x-alias`, `x-rule`…); attached rules are kept. */
export function annotate<S extends TSchema>(schema: S, keywords: Readonly<Record<string, unknown>>): S {
  return { ...schema, ...keywords };
}

/** A schema whose value another module checks (the storage module's vendor tables); the schema documents it. */
export function checkedBy<S extends TSchema>(schema: S, check: Check<Out<S>>): S {
  return Object.assign(schema, { [CUSTOM]: check });
}

const list = (xs: readonly (string | number)[]): string => xs.map((x) => String(x)).join(', ');
const quoted = (xs: readonly (string | number)[]): string => list(xs.map((x) => JSON.stringify(x)));

const patterns = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let r = patterns.get(source);
  if (!r) patterns.set(source, (r = new RegExp(source)));
  return r;
}

type Step = (v: unknown, path: string) => unknown;

function stringStep(s: Node): Step {
  const { enum: values, const: constant, minLength, maxLength, pattern, format } = s;
  const rule = s['x-rule'];
  const maxBytes = s['x-maxBytes'];
  const re = pattern === undefined ? undefined : regex(pattern);
  const f = format === undefined ? undefined : FORMATS[format];
  const enumRule = values && (rule ?? `must be one of ${quoted(values)}`);
  return (v, path) => {
    if (typeof v !== 'string') return fail(path, 'must be a string');
    if (values && !values.includes(v)) fail(path, enumRule!);
    if (constant !== undefined && v !== constant) fail(path, rule ?? `must be ${JSON.stringify(constant)}`);
    if (minLength !== undefined && v.length < minLength) {
      fail(path, minLength === 1 ? 'must not be empty' : `must be at least ${minLength} characters`);
    }
    if (maxLength !== undefined && v.length > maxLength) fail(path, `must be at most ${maxLength} characters`);
    if (maxBytes !== undefined && v.length * 3 > maxBytes && Buffer.byteLength(v, 'utf8') > maxBytes) {
      fail(path, `must be at most ${maxBytes} bytes`);
    }
    if (re && !re.test(v)) fail(path, rule ?? `must match ${pattern}`);
    if (f && !f.test(v)) fail(path, f.rule);
    return v;
  };
}

function numberStep(s: Node): Step {
  const { enum: values, minimum: min, maximum: max } = s;
  const integer = s.type === 'integer';
  const enumRule = values && (s['x-rule'] ?? `must be one of ${list(values)}`);
  return (v, path) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, 'must be a number');
    if (values) return values.includes(v) ? v : fail(path, enumRule!);
    if (integer && !Number.isInteger(v)) fail(path, 'must be an integer');
    if (min !== undefined && max !== undefined && (v < min || v > max)) fail(path, `must be between ${min} and ${max}`);
    if (min !== undefined && v < min) fail(path, `must be at least ${min}`);
    if (max !== undefined && v > max) fail(path, `must be at most ${max}`);
    return v;
  };
}

function arrayStep(s: Node): Step {
  const { minItems, maxItems, uniqueItems } = s;
  const item = s.items ? compile(s.items) : undefined;
  return (v, path) => {
    if (!Array.isArray(v)) return fail(path, 'must be an array');
    if (minItems !== undefined && v.length < minItems) {
      fail(path, minItems === 1 ? 'must not be empty' : `must have at least ${minItems} entries`);
    }
    if (maxItems !== undefined && v.length > maxItems) fail(path, `must have at most ${maxItems} entries`);
    const out = item ? v.map((x, i) => item(x, `${path}[${i}]`)) : [...v];
    if (uniqueItems) {
      const seen = new Set<unknown>();
      out.forEach((x, i) => {
        if (seen.has(x)) fail(`${path}[${i}]`, 'must not repeat an earlier entry');
        seen.add(x);
      });
    }
    return out;
  };
}

const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const absent = (v: unknown): boolean => v === undefined || v === null;

function objectStep(s: Node): Step {
  const required = new Set(s.required ?? []);
  const fields = Object.entries(s.properties ?? {}).map(([key, node]) => ({
    key,
    required: required.has(key),
    alias: node['x-alias'],
    unset: node['x-unset'],
    check: compile(node),
  }));
  return (v, path) => {
    if (!isPlainObject(v)) return fail(path || 'body', 'must be a JSON object');
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      let name = f.key;
      let x = own(v, f.key);
      if (f.alias !== undefined && !absent(own(v, f.alias))) {
        if (!absent(x)) fail(join(path, f.alias), `must not be set together with ${f.key} (two spellings of one field)`);
        name = f.alias;
        x = v[f.alias];
      }
      // null counts as absent: clients serialising optional values as null are common.
      if (absent(x) || (f.unset !== undefined && x === f.unset)) {
        if (f.required) fail(join(path, name), 'is required');
        continue;
      }
      out[f.key] = f.check(x, join(path, name));
    }
    return out;
  };
}

/** A union told apart by one property (OpenAPI `discriminator`): the property picks the branch. */
function taggedStep(s: Node, branches: readonly Node[]): Step {
  const tagKey = s.discriminator?.propertyName;
  if (tagKey === undefined) throw new Error('validation: a union needs a discriminator');
  const tags = branches.map((b) => String(b.properties?.[tagKey]?.const));
  const checks = branches.map(compile);
  return (v, path) => {
    if (!isPlainObject(v)) return fail(path || 'body', 'must be a JSON object');
    const tag = own(v, tagKey);
    const p = join(path, tagKey);
    if (absent(tag)) fail(p, 'is required');
    if (typeof tag !== 'string') fail(p, 'must be a string');
    const i = tags.indexOf(tag);
    if (i < 0) fail(p, `must be one of ${quoted(tags)}`);
    return checks[i]!(v, path);
  };
}

function baseStep(s: Node): Step {
  if (s.anyOf) return taggedStep(s, s.anyOf);
  switch (s.type) {
    case 'object':
      return objectStep(s);
    case 'array':
      return arrayStep(s);
    case 'string':
      return stringStep(s);
    case 'number':
    case 'integer':
      return numberStep(s);
    case 'boolean':
      return (v, path) => (typeof v === 'boolean' ? v : fail(path, 'must be true or false'));
    default:
      return (v) => v; // no type: any JSON value, kept raw
  }
}

/** Each schema node becomes one closure, built once (the tables are built at load and never change). */
const compiled = new WeakMap<Node, Step>();
function compile(s: Node): Step {
  let step = compiled.get(s);
  if (step) return step;
  const custom = s[CUSTOM];
  const rules = s[RULES] ?? [];
  const base = custom ?? baseStep(s);
  step =
    rules.length === 0
      ? base
      : (v, path) => {
          const out = base(v, path);
          for (const rule of rules) rule(out, path);
          return out;
        };
  compiled.set(s, step);
  return step;
}

/** The checker of a schema: `(value, path) => validated value`, throwing ValidationError. */
export function checkerFor<S extends TSchema>(schema: S): Check<Out<S>> {
  return compile(schema as unknown as Node) as Check<Out<S>>;
}

/** Whether a value passes a schema (for echo decisions; never throws ValidationError). */
export function passes(schema: TSchema, value: unknown): boolean {
  try {
    compile(schema as unknown as Node)(value, '');
    return true;
  } catch (e) {
    if (e instanceof ValidationError) return false;
    throw e;
  }
}

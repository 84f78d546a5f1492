/**
 * TypeScript declarations from JSON Schema data: how @reeltime/client gets its request and response types from
 * the server's schemas without importing server code (docs/client.md, "Where the types come from"). Handles the
 * subset the recording schemas use: object, array, string, integer, number, boolean, enum, const, anyOf, and
 * untyped values (unknown).
 */
import type { OpenApiObject as JsonSchema } from '../http/index.ts';

interface Node {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly enum?: readonly (string | number)[];
  readonly const?: string | number | boolean;
  readonly anyOf?: readonly Node[];
  readonly items?: Node;
  readonly properties?: Readonly<Record<string, Node>>;
  readonly required?: readonly string[];
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
const literal = (v: string | number | boolean) => JSON.stringify(v);
const comment = (text: string, pad: string) => `${pad}/** ${text.replace(/\*\//g, '*\\/')} */\n`;

/** Named shapes by their JSON text: a node equal to one is written as its name. */
type Shared = ReadonlyMap<string, string>;

function typeOf(s: Node, pad: string, shared: Shared, top = false): string {
  const name = top ? undefined : shared.get(JSON.stringify(s));
  if (name !== undefined) return name;
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) return s.enum.map(literal).join(' | ');
  if (s.anyOf) return s.anyOf.map((b) => typeOf(b, pad, shared)).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return s.items ? `Array<${typeOf(s.items, pad, shared)}>` : 'unknown[]';
    case 'object': {
      const props = Object.entries(s.properties ?? {});
      if (props.length === 0) return '{ [key: string]: unknown }';
      const required = new Set(s.required ?? []);
      const inner = `${pad}  `;
      const lines = props.map(
        ([k, p]) => `${p.description ? comment(p.description, inner) : ''}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(p, inner, shared)};\n`,
      );
      return `{\n${lines.join('')}${pad}}`;
    }
    default:
      return 'unknown';
  }
}

/**
 * One `export type Name = …;` per schema: first the shared parts (written by name wherever they recur), then the
 * top-level schemas, in the given order.
 */
export function typeDeclarations(schemas: Readonly<Record<string, JsonSchema>>, parts: Readonly<Record<string, JsonSchema>> = {}): string {
  const shared: Shared = new Map(Object.entries(parts).map(([name, s]) => [JSON.stringify(s), name]));
  return Object.entries({ ...parts, ...schemas })
    .map(([name, schema]) => {
      const s = schema as Node;
      return `${s.description ? comment(s.description, '') : ''}export type ${name} = ${typeOf(s, '', shared, true)};\n`;
    })
    .join('\n');
}

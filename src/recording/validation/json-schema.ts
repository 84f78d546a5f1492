/**
 * The JSON Schema of each request body, derived from the tables (for the OpenAPI document and for readers).
 * Plain data: JSON Schema 2020-12 keywords plus OpenAPI's `discriminator` and reeltime's `x-` keywords
 * (docs/validation.md). Mode and scene rules of start are described, not encoded: see rules.ts.
 */
import type { TSchema } from '@sinclair/typebox';
import {
  AcquireRequestSchema,
  StartRequestSchema,
  StopRequestSchema,
  UpdateLayoutRequestSchema,
  UpdateRequestSchema,
} from './tables.ts';

export type JsonSchema = { readonly [key: string]: unknown };

const REQUEST_BODIES = {
  acquire: AcquireRequestSchema,
  start: StartRequestSchema,
  update: UpdateRequestSchema,
  updateLayout: UpdateLayoutRequestSchema,
  stop: StopRequestSchema,
} as const satisfies Record<string, TSchema>;

export type RequestBodyName = keyof typeof REQUEST_BODIES;
export const REQUEST_BODY_NAMES = Object.freeze(Object.keys(REQUEST_BODIES) as RequestBodyName[]);

/** The JSON Schema of one request body (a fresh copy: TypeBox's symbols and attached rules left out). */
export function requestBodyJsonSchema(name: RequestBodyName): JsonSchema {
  return JSON.parse(JSON.stringify(REQUEST_BODIES[name])) as JsonSchema;
}

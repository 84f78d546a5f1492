/**
 * What a module says about its routes in the OpenAPI document (src/openapi assembles it): its path items, the
 * named schemas and security schemes they refer to, and the routes it leaves out on purpose, each with why.
 * Plain JSON data, so a module describes its routes next to them without knowing the document's other parts.
 */

/** A JSON object of the document (a schema, an operation, a path item). */
export type OpenApiObject = { readonly [key: string]: unknown };

/** A route the document leaves out, with the reason; `url` is Fastify's pattern, and may end in `*` (a prefix). */
export interface UndocumentedRoute {
  readonly method: string;
  readonly url: string;
  readonly reason: string;
}

export interface OpenApiContribution {
  /** Tag names the operations use, in the order the document lists them. */
  readonly tags: readonly string[];
  /** Path items by OpenAPI path (`{name}` parameters). */
  readonly paths: Readonly<Record<string, OpenApiObject>>;
  /** Named schemas (`#/components/schemas/<name>`). */
  readonly schemas?: Readonly<Record<string, OpenApiObject>>;
  /** Security schemes only this module's operations use (the shared ones, basicAuth and bearerAuth, are the document's). */
  readonly securitySchemes?: Readonly<Record<string, OpenApiObject>>;
  readonly undocumented?: readonly UndocumentedRoute[];
}

/** A string parameter; path parameters are required. */
export const openApiParam = (name: string, where: 'path' | 'query' | 'header', description: string, required = where === 'path'): OpenApiObject => ({
  name,
  in: where,
  required,
  description,
  schema: { type: 'string' },
});

/** A response with a JSON body. */
export const jsonResponse = (schema: OpenApiObject, description: string): OpenApiObject => ({
  description,
  content: { 'application/json': { schema } },
});

/** A response whose body is a string of the given media type. */
export const textResponse = (mediaType: string, description: string): OpenApiObject => ({
  description,
  content: { [mediaType]: { schema: { type: 'string' } } },
});

/** A reference to a named schema. */
export const schemaRef = (name: string): OpenApiObject => ({ $ref: `#/components/schemas/${name}` });

export { createOpenApiModule } from './module.ts';
export { buildOpenApiDocument, OPENAPI_VERSION, type DocumentOptions } from './document.ts';
export { typeDeclarations } from './typescript.ts';

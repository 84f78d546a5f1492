// Ingress (reeltime's extension): sources outside WebRTC published into channels as participants, docs/ingest.md.
export { createIngressModule, type IngressModule } from './module.ts';
export type { IngressConfig } from './config.ts';
export { INGRESS_ERRORS, IngressError, type IngressErrorKey } from './errors.ts';
export type { IngressView } from './service.ts';
export { INGRESS_KINDS, type Ingress, type IngressKind, type IngressRequest, type IngressState } from './types.ts';
export { validateIngressRequest } from './validate.ts';
export { INGRESS_SCHEMAS } from './openapi.ts';

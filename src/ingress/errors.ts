/**
 * Every failure the ingress API answers, besides the recording API's gateway refusals it shares (Basic auth, app
 * id): one status, code and reason each. Entries with a `null` reason take one naming the field and the rule, worded
 * as the recording API words its validation errors (`field: rule`). docs/ingest.md lists the same entries.
 */
export interface IngressErrorSpec {
  readonly http: number;
  readonly code: number;
  readonly reason: string | null;
}

export const INGRESS_ERRORS = Object.freeze({
  invalidParameter: { http: 400, code: 2, reason: null },
  badRequestFormat: { http: 400, code: 8, reason: null },
  notFound: { http: 404, code: 404, reason: 'ingress not found' },
  uidTaken: { http: 409, code: 409, reason: null },
  notAvailable: { http: 501, code: 501, reason: null },
  noPortFree: { http: 503, code: 503, reason: null },
  internalError: { http: 500, code: 500, reason: 'internal_error' },
} satisfies Record<string, IngressErrorSpec>);

export type IngressErrorKey = keyof typeof INGRESS_ERRORS;

/** A refusal of the ingress API; `detail` names the field and the rule where the catalogue has no fixed reason. */
export class IngressError extends Error {
  override readonly name = 'IngressError';
  constructor(
    readonly key: IngressErrorKey,
    readonly detail?: string,
  ) {
    super(detail ?? key);
  }
}

/** The body of an ingress error: `{code, reason}`, as the recording API's service errors. */
export function ingressErrorBody(e: IngressError): { status: number; body: { code: number; reason: string } } {
  const spec = INGRESS_ERRORS[e.key];
  return { status: spec.http, body: { code: spec.code, reason: spec.reason ?? e.detail ?? e.key } };
}

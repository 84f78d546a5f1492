/** Why an outbound URL was refused. */
export type OutboundRefusal = 'invalid_url' | 'scheme' | 'blocked_address' | 'unresolvable';

/** Thrown by the outbound guard; `message` says which URL part is wrong and why, never the URL's credentials. */
export class OutboundUrlError extends Error {
  override readonly name = 'OutboundUrlError';
  constructor(
    readonly refusal: OutboundRefusal,
    message: string,
  ) {
    super(message);
  }
}

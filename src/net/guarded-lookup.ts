import type { LookupFunction } from 'node:net';
import { resolveOutboundHost, type OutboundPolicy } from './check-url.ts';

/**
 * A `lookup` for sockets an SDK opens itself (an http.Agent's, a storage client's): every name the socket resolves
 * goes through the outbound guard at connect time, so a DNS answer that changed since the start-time check to a
 * private address is refused (error code `EOUTBOUNDREFUSED`) and nothing is sent. IP literals never reach a lookup
 * function: check them with resolveOutboundHost before building the client. `url` lets origin allow entries match.
 */
export function guardedLookup(policy: OutboundPolicy, url?: URL): LookupFunction {
  return ((hostname: string, options: { all?: boolean } | number | undefined, callback: (...args: unknown[]) => void) => {
    const all = typeof options === 'object' && options?.all === true;
    resolveOutboundHost(hostname, policy, url).then(
      ({ address, family }) => (all ? callback(null, [{ address, family }]) : callback(null, address, family)),
      (e: Error) => callback(Object.assign(e, { code: 'EOUTBOUNDREFUSED' })),
    );
  }) as unknown as LookupFunction;
}

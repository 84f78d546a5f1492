export { checkOutboundUrl, isAllowEntry, resolveOutbound, resolveOutboundHost, type OutboundPolicy, type ResolvedAddress, type ResolvedTarget } from './check-url.ts';
export { OutboundUrlError, type OutboundRefusal } from './errors.ts';
export { guardedFetch, type GuardedFetchInit } from './guarded-fetch.ts';
export { guardedLookup } from './guarded-lookup.ts';
export { classifyIp } from './ip-ranges.ts';

export { checkOutboundUrl, isAllowEntry, resolveOutbound, type OutboundPolicy, type ResolvedTarget } from './check-url.ts';
export { OutboundUrlError, type OutboundRefusal } from './errors.ts';
export { guardedFetch, type GuardedFetchInit } from './guarded-fetch.ts';
export { classifyIp } from './ip-ranges.ts';

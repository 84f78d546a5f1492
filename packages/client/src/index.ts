export { RecordingClient, type QueryResponseByMode, type RecordingClientOptions, type RecordingMode, type SessionListFilter, type SessionRef } from './client.ts';
export { ERROR_CODES, errorFromAnswer, GatewayError, RecordingError, ServiceError } from './errors.ts';
export { HOSTED_DOMAINS, HOSTED_REGIONS, hostedBaseUrl, type HostedDomain, type HostedRegion } from './regions.ts';
export { DEFAULT_RETRY, retryDelay, type Operation, type RetryPolicy } from './retry.ts';
export type * from './types.gen.ts';
export * from '@reeltime/token';

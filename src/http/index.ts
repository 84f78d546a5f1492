export { RateLimiter, take, type Bucket } from './rate-limit.ts';
export { credentialMatcher, parseBasic, safeEqual, type BasicCredentials } from './basic-auth.ts';

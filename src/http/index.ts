export { RateLimiter, take, type Bucket } from './rate-limit.ts';

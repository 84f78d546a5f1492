export { RateLimiter, refill, secondsUntilToken, take, type Bucket, type RateDecision } from './rate-limit.ts';
export { basicLogin, credentialMatcher, parseBasic, safeEqual, type BasicCredentials, type BasicLogin } from './basic-auth.ts';
export { LOGIN_FAILURES_TOPIC, LoginThrottle, type LoginThrottleSettings } from './login-throttle.ts';
export { inlineScriptsOf, installResponseHeaders, pageHeaders, type PagePolicy } from './security-headers.ts';
export {
  jsonResponse,
  openApiParam,
  schemaRef,
  textResponse,
  type OpenApiContribution,
  type OpenApiObject,
  type UndocumentedRoute,
} from './openapi.ts';

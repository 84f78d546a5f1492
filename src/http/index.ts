export { RateLimiter, take, type Bucket } from './rate-limit.ts';
export { credentialMatcher, parseBasic, safeEqual, type BasicCredentials } from './basic-auth.ts';
export {
  jsonResponse,
  openApiParam,
  schemaRef,
  textResponse,
  type OpenApiContribution,
  type OpenApiObject,
  type UndocumentedRoute,
} from './openapi.ts';

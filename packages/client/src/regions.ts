/**
 * Base URLs of the hosted service: one global name per domain, and regional names for failover
 * (docs/client.md, "Hosted service").
 */
export const HOSTED_DOMAINS = Object.freeze(['sd-rtn.com', 'agora.io'] as const);
export type HostedDomain = (typeof HOSTED_DOMAINS)[number];

export const HOSTED_REGIONS = Object.freeze([
  'us-west-1',
  'us-east-1',
  'ap-southeast-1',
  'ap-northeast-1',
  'eu-west-1',
  'eu-central-1',
  'cn-east-1',
  'cn-north-1',
] as const);
export type HostedRegion = (typeof HOSTED_REGIONS)[number];

/** `https://api.sd-rtn.com`, or a regional host such as `https://api-eu-west-1.sd-rtn.com`. */
export function hostedBaseUrl(region?: HostedRegion, domain: HostedDomain = 'sd-rtn.com'): string {
  return region === undefined ? `https://api.${domain}` : `https://api-${region}.${domain}`;
}

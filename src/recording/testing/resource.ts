/** A resource as acquire issues it, for the pure lifecycle and runtime tests: issued at T0, valid RESOURCE_TTL_MS. */
import { RESOURCE_TTL_MS, type Resource } from '../lifecycle/index.ts';

/** The tests' clock origin (ms). */
export const T0 = 1_000_000;

export const testResource = (over: Partial<Resource> = {}): Resource => ({
  resourceId: 'r'.repeat(20),
  appId: 'app',
  cname: 'c',
  uid: '1',
  scene: 0,
  resourceExpiredHour: 2,
  region: undefined,
  excludeResourceIds: [],
  startParameter: undefined,
  issuedAt: T0,
  expiresAt: T0 + RESOURCE_TTL_MS,
  ...over,
});
